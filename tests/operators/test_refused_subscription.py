"""Rule 2.5: a hop refuses a second ``on_subscribe`` (it cancels that subscription) and
does nothing else. The hops that ask upstream at subscription (skip, skip_last,
ignore_elements, on_backpressure_drop) asked their first upstream again, so skip's
downstream got elements it never requested (rule 1.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from ._util import PushPublisher, RecordingSubscription

HOPS: dict[str, Callable[[Flow[Any]], Flow[Any]]] = {
    "skip": lambda f: f.skip(2),
    "skip_last": lambda f: f.skip_last(2),
    "ignore_elements": lambda f: f.ignore_elements(),
    "on_backpressure_drop": lambda f: f.on_backpressure_drop(),
    "take": lambda f: f.take(2),
    "take0": lambda f: f.take(0),
}


@pytest.mark.parametrize("name", sorted(HOPS))
def test_spec205_a_second_on_subscribe_is_cancelled_and_asks_nothing(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    HOPS[name](Flow(pub)).subscribe(ts)
    asked = list(pub.requested)
    second = RecordingSubscription()
    assert pub.subscriber is not None
    pub.subscriber.on_subscribe(second)
    assert second.cancelled  # rule 2.5
    assert second.requested == []
    assert pub.requested == asked  # the first upstream is not asked again
    ts.assert_no_violations()


def test_spec101_skip_after_a_refused_on_subscribe_sends_nothing_unrequested() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).skip(2).subscribe(ts)
    assert pub.subscriber is not None
    pub.subscriber.on_subscribe(RecordingSubscription())
    pub.push(*range(min(sum(pub.requested), 10)))  # what upstream was asked for
    ts.assert_values().assert_no_violations()
