"""zip: what the mutation run (tools/mutation.py) showed untested.

Every tuple emitted is taken from the demand, whether one round emits one or several
(rule 1.1); a round emits all that demand and the queues allow; on_error(None) and
subscribe(None) name their rules."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def _zipped(ts: TestSubscriber[tuple[int, int]]) -> tuple[PushPublisher, PushPublisher]:
    a, b = PushPublisher(), PushPublisher()
    Flow.zip(Flow(a), Flow(b), prefetch=8).subscribe(ts)
    return a, b


def test_spec101_zip_takes_each_tuple_from_the_demand_one_at_a_time() -> None:
    # one tuple per round (the second source's element completes a row): each is counted
    ts: TestSubscriber[tuple[int, int]] = TestSubscriber(2)
    a, b = _zipped(ts)
    a.push(1, 2, 3)
    b.push(10)  # a row; then the second source's queue is empty
    b.push(20)
    b.push(30)  # no demand left: waits
    ts.assert_values((1, 10), (2, 20)).assert_no_violations()
    ts.request(1)
    ts.assert_values((1, 10), (2, 20), (3, 30)).assert_no_violations()


def test_spec101_zip_emits_up_to_the_demand_in_one_round() -> None:
    ts: TestSubscriber[tuple[int, int]] = TestSubscriber(0)
    a, b = _zipped(ts)
    a.push(1, 2, 3, 4)
    b.push(10, 20, 30, 40)
    ts.request(3)  # one round: three rows, no more
    ts.assert_values((1, 10), (2, 20), (3, 30)).assert_no_violations()
    ts.request(1)
    ts.assert_values((1, 10), (2, 20), (3, 30), (4, 40)).assert_no_violations()
    assert a.requested == [8]  # 4 consumed: fewer than 75 % of 8
    a.push(5)
    b.push(50)
    ts.assert_value_count(4).assert_no_violations()


def test_spec213_zip_refuses_on_error_none_by_name() -> None:
    ts: TestSubscriber[tuple[int, int]] = TestSubscriber(1)
    a, _ = _zipped(ts)
    assert a.subscriber is not None
    with pytest.raises(TypeError) as raised:
        a.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"
    ts.assert_no_terminal()


def test_spec109_zip_refuses_a_none_subscriber_by_name() -> None:
    flow = Flow.zip(Flow.just(1), Flow.just(2))
    with pytest.raises(TypeError) as raised:
        flow.source.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"


def test_spec312_zip_cancelled_in_on_subscribe_subscribes_no_source() -> None:
    # on_subscribe goes first (rule 1.9); a cancel there ends the hop before any source
    # is subscribed: none is started only to be cancelled
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[tuple[int, int]] = TestSubscriber(5, cancel_on_subscribe=True)
    Flow.zip(Flow(a), Flow(b)).subscribe(ts)
    assert ts.subscription is not None
    assert a.subscriber is None
    assert b.subscriber is None
    ts.assert_values().assert_no_terminal().assert_no_violations()
