"""``materialize`` and ``dematerialize`` (operators/_notification.py): signals as
elements (the last one waiting for demand, rule 1.1) and back (an error or completion
notification cancels upstream, rule 3.12), rule 2.13, a foreign element refused."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import Notification
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_materialize_gives_each_signal_then_completes() -> None:
    error = KeyError("k")
    flow = Flow.just(1, 2).concat_with(Flow.error(error)).materialize()
    assert flow.to_list(timeout=5) == [
        Notification.next(1),
        Notification.next(2),
        Notification.failed(error),
    ]
    assert Flow.empty().materialize().to_list(timeout=5) == [Notification.completed()]


def test_spec101_the_final_notification_waits_for_demand() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.just(1).materialize().subscribe(ts)
    ts.assert_values(Notification.next(1)).assert_no_terminal()
    ts.request(1)
    ts.assert_values(Notification.next(1), Notification.completed()).assert_complete()
    ts.assert_no_violations()


def test_dematerialize_is_materialize_undone() -> None:
    assert Flow.range(4).materialize().dematerialize().to_list(timeout=5) == [0, 1, 2, 3]
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(1).concat_with(Flow.error(KeyError("k"))).materialize().dematerialize().subscribe(ts)
    ts.assert_values(1).assert_error(KeyError)


@pytest.mark.parametrize(
    ("notification", "error"),
    [(Notification.completed(), None), (Notification.failed(LookupError("x")), LookupError)],
)
def test_a_terminal_notification_cancels_upstream_and_ends(
    notification: Notification[Any], error: type[BaseException] | None
) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).dematerialize().subscribe(ts)
    pub.push(Notification.next(1), notification)
    assert pub.cancelled  # rule 3.12
    ts.assert_values(1)
    if error is None:
        ts.assert_complete()
    else:
        ts.assert_error(error)


def test_spec101_dematerialize_passes_demand_as_it_is() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).dematerialize().subscribe(ts)
    ts.request(2)
    assert pub.requested == [2]


def test_a_foreign_element_fails_dematerialize_naming_it() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(3).dematerialize().subscribe(ts)  # type: ignore[misc]
    ts.assert_error(TypeError)
    assert str(ts.errors[0]) == "dematerialize: a Notification is due, got 3"


def test_spec213_none_is_refused_in_a_notification() -> None:
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        Notification.next(None)
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(Notification("on_next")).dematerialize().subscribe(ts)
    ts.assert_values().assert_error(TypeError)
    assert "rule 2.13" in str(ts.errors[0])


def test_spec312_cancel_mid_stream_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).materialize().subscribe(ts)
    pub.push(1)
    ts.cancel()
    assert pub.cancelled
    ts.assert_values(Notification.next(1)).assert_no_terminal()
