"""delay_subscription: what the mutation run (tools/mutation.py) showed untested.
Virtual time: a ``ManualExecutor`` clock."""

from __future__ import annotations

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TimedSubscriber

from ._util import PushPublisher


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


def test_spec109_delay_subscription_refuses_a_none_subscriber_by_name(ex: ManualExecutor) -> None:
    flow = Flow.just(1).delay_subscription(1.0, scheduler=ex)
    with pytest.raises(TypeError) as raised:
        flow.source.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert ex.scheduled == 0


def test_spec213_delay_subscription_refuses_on_subscribe_none_by_name(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 3)
    Flow(upstream).delay_subscription(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    hop = upstream.subscriber
    assert hop is not None
    with pytest.raises(TypeError) as raised:
        hop.on_subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_subscribe(None)"
    assert upstream.requested == [3]  # the early request, forwarded once upstream subscribed
