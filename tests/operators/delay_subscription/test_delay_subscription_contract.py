"""delay_subscription: what the mutation run (tools/mutation.py) showed untested.
Virtual time: a ``ManualExecutor`` clock."""

from __future__ import annotations

import logging

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TimedSubscriber

from .._util import PushPublisher


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


def test_delay_subscription_forwards_later_requests_and_the_cancel(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 1)
    Flow(upstream).delay_subscription(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    assert upstream.requested == [1]
    ts.request(2)
    assert upstream.requested == [1, 2]
    upstream.push(5)
    assert ts.values == [5]
    ts.cancel()
    assert upstream.cancelled  # rule 3.12: the cancel reaches the subscribed upstream


def test_spec205_delay_subscription_cancels_a_second_subscription(ex: ManualExecutor) -> None:
    upstream, second = PushPublisher(), PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 1)
    Flow(upstream).delay_subscription(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    hop = upstream.subscriber
    assert hop is not None
    hop.on_subscribe(second)
    assert second.cancelled
    assert second.requested == []
    ts.request(1)
    assert upstream.requested == [1, 1]  # still the first subscription


def test_delay_subscription_cancelled_in_on_subscribe_is_quiet(
    ex: ManualExecutor, caplog: pytest.LogCaptureFixture
) -> None:
    upstream = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 1, cancel_on_subscribe=True)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        Flow(upstream).delay_subscription(1.0, scheduler=ex).subscribe(ts)
        ex.advance_by(5.0)
    assert [r.getMessage() for r in caplog.records] == []
    assert upstream.subscriber is None  # never subscribed
    assert ex.scheduled == 0
