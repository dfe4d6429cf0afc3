"""Contracts of the drained operators' base (DemandDrain) that mutation testing found
untested: a subscriber raising from on_next is cancelled and its fault logged (2.13)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.flow import Flow
from reactive_streams.operators import BufferOverflowError
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, RecordingSubscription


class Boom(Exception):
    pass


class _Raising(Subscriber[Any]):
    def __init__(self) -> None:
        self.subscription: Subscription | None = None
        self.signals: list[object] = []

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(10)

    def on_next(self, item: Any) -> None:
        self.signals.append(item)
        raise Boom("in on_next")

    def on_error(self, error: BaseException) -> None:
        self.signals.append(error)

    def on_complete(self) -> None:
        self.signals.append("complete")


def test_spec213_drained_on_next_raising_cancels_and_logs_the_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pub = PushPublisher()
    sub = _Raising()
    Flow(pub).on_backpressure_buffer(8).subscribe(sub)
    with caplog.at_level(logging.ERROR):
        pub.push(1, 2)
    assert sub.signals == [1]  # cancelled: nothing after the raise (2.13)
    assert pub.cancelled
    records = [r for r in caplog.records if r.getMessage().startswith("rule 2.13: on_next")]
    assert len(records) == 1
    assert records[0].exc_info is not None
    assert isinstance(records[0].exc_info[1], Boom)  # the fault is logged with its traceback


MAX = 2**63 - 1


def test_spec213_drained_hop_on_subscribe_none_names_the_rule() -> None:
    pub = PushPublisher()
    Flow(pub).on_backpressure_buffer(4).subscribe(_Raising())
    assert pub.subscriber is not None
    with pytest.raises(TypeError) as info:
        pub.subscriber.on_subscribe(None)  # type: ignore[arg-type]
    assert str(info.value) == "rule 2.13: on_subscribe(None)"


def test_spec205_drained_hop_refuses_a_second_on_subscribe() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).on_backpressure_buffer(4).subscribe(ts)
    assert pub.subscriber is not None
    second = RecordingSubscription()
    pub.subscriber.on_subscribe(second)
    assert second.cancelled  # rule 2.5
    assert second.requested == []
    assert pub.requested == [MAX]  # the first is not asked again
    assert not pub.cancelled
    ts.assert_no_violations()


def test_spec213_drained_hop_on_error_none_names_the_rule() -> None:
    pub = PushPublisher()
    Flow(pub).on_backpressure_buffer(4).subscribe(TestSubscriber(0))
    assert pub.subscriber is not None
    with pytest.raises(TypeError) as info:
        pub.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(info.value) == "rule 2.13: on_error(None)"


def test_spec17_an_upstream_end_after_the_hop_failed_is_ignored() -> None:
    # the overflow error waits behind the buffered element; upstream's later error or
    # completion must not replace it (one terminal, the first: rule 1.7)
    for end in ("fail", "complete"):
        pub = PushPublisher()
        ts: TestSubscriber[Any] = TestSubscriber(0)
        Flow(pub).on_backpressure_buffer(1).subscribe(ts)
        pub.push(1, 2)  # overflow: upstream cancelled, the error after element 1
        assert pub.cancelled
        if end == "fail":
            pub.fail(RuntimeError("late"))
        else:
            pub.complete()
        ts.assert_no_terminal()
        ts.request(1)
        ts.assert_values(1).assert_error(BufferOverflowError)


def test_spec213_zip_inner_on_subscribe_none_names_the_rule_and_second_is_refused() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.zip(a, b, prefetch=4).subscribe(ts)
    assert a.subscriber is not None
    with pytest.raises(TypeError) as info:
        a.subscriber.on_subscribe(None)  # type: ignore[arg-type]
    assert str(info.value) == "rule 2.13: on_subscribe(None)"
    second = RecordingSubscription()
    a.subscriber.on_subscribe(second)
    assert second.cancelled  # rule 2.5
    assert second.requested == []
    assert a.requested == [4]  # the prefetch, once


def test_spec312_a_cancelled_zip_inner_ignores_late_elements() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.zip(a, b, prefetch=4).subscribe(ts)
    ts.cancel()
    assert a.cancelled
    assert b.cancelled
    a.push(1)  # late, after the cancel (rule 2.8)
    b.push(2)
    ts.assert_values().assert_no_terminal()


def test_spec205_a_second_on_subscribe_before_the_drain_ran_is_refused() -> None:
    # observe_on delivers on_subscribe from its executor: the first subscription is kept
    # while that task waits; a second one meanwhile is cancelled, the first never is
    from reactive_streams.executors import ManualExecutor

    ex = ManualExecutor()
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow(pub).observe_on(ex, prefetch=4).subscribe(ts)
    assert pub.subscriber is not None
    second = RecordingSubscription()
    pub.subscriber.on_subscribe(second)
    assert second.cancelled  # rule 2.5
    ex.run_all()
    assert second.requested == []
    assert pub.requested == [4]
    assert not pub.cancelled
    pub.push(7)
    ex.run_all()
    ts.assert_values(7).assert_no_violations()


def test_spec28_an_element_after_the_hop_failed_is_ignored() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).on_backpressure_buffer(1).subscribe(ts)
    pub.push(1, 2)  # overflow: failed, upstream cancelled
    assert pub.cancelled
    pub.push(3)  # late: upstream had not seen the cancel yet (rule 2.8)
    ts.request(5)
    ts.assert_values(1).assert_error(BufferOverflowError)


def test_spec28_an_element_after_the_decision_is_ignored() -> None:
    seen: list[int] = []

    def even(x: int) -> bool:
        seen.append(x)
        return x % 2 == 0

    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).all(even).subscribe(ts)
    pub.push(2, 3)  # 3 decides: upstream cancelled
    assert pub.cancelled
    pub.push(5)  # late (rule 2.8): the predicate is not called, nothing more decided
    pub.complete()
    assert seen == [2, 3]
    ts.request(5)
    ts.assert_values(False).assert_complete()


def test_traced_drained_hop_names_itself_and_delivers_in_order() -> None:
    from reactive_streams.tracing import tracing

    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    with tracing() as tracer:
        Flow(pub).on_backpressure_buffer(8).subscribe(ts)
        pub.push(1, 2, 3)
        pub.complete()
    ts.assert_values(1, 2, 3).assert_complete()
    hops = [e.get("hop") for e in tracer.events if e["sig"] == "subscribe"]
    assert "on_backpressure_buffer" in hops


def test_traced_drained_on_next_raising_stops_the_emission(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from reactive_streams.tracing import tracing

    pub = PushPublisher()
    sub = _Raising()
    with tracing(), caplog.at_level(logging.ERROR):
        Flow(pub).on_backpressure_buffer(8).subscribe(sub)
        pub.push(1, 2, 3)
    assert sub.signals == [1]  # cancelled at the raise (2.13): no more elements
    assert pub.cancelled
    assert any(r.getMessage().startswith("rule 2.13: on_next") for r in caplog.records)


def test_spec101_drained_hop_takes_what_it_sent_from_the_demand() -> None:
    from reactive_streams.tracing import tracing

    for traced in (False, True):
        pub = PushPublisher()
        ts: TestSubscriber[Any] = TestSubscriber(0)
        with tracing() if traced else contextlib.nullcontext():
            Flow(pub).on_backpressure_buffer(8).subscribe(ts)
            pub.push(1, 2, 3, 4)
            ts.request(3)  # one round sends the three
            ts.assert_values(1, 2, 3)
            pub.push(5)
            ts.assert_values(1, 2, 3).assert_no_violations()  # rule 1.1: demand spent
            ts.request(5)
            ts.assert_values(1, 2, 3, 4, 5).assert_no_violations()


def test_spec213_drained_on_next_raising_releases_upstream_at_once() -> None:
    pub = PushPublisher()
    sub = _Raising()
    Flow(pub).on_backpressure_buffer(8).subscribe(sub)
    pub.push(1)  # the only element: nothing late makes the cancel for the hop
    assert sub.signals == [1]
    assert pub.cancelled  # rule 2.13: cancelled, and so upstream (3.12)


def test_zip_inners_queue_their_elements_for_the_drain() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.zip(a, b, prefetch=4).subscribe(ts)
    a.push("x", "y")
    b.push(1)
    ts.assert_values(("x", 1))
    b.push(2)
    ts.assert_values(("x", 1), ("y", 2)).assert_no_violations()


def test_upstream_end_follows_the_buffered_elements() -> None:
    error = RuntimeError("upstream failed")
    for end in ("complete", "fail"):
        pub = PushPublisher()
        ts: TestSubscriber[Any] = TestSubscriber(0)
        Flow(pub).on_backpressure_buffer(8).subscribe(ts)
        pub.push(1)
        if end == "complete":
            pub.complete()
        else:
            pub.fail(error)
        ts.assert_no_terminal()
        ts.request(1)
        ts.assert_values(1)
        if end == "complete":
            ts.assert_complete()
        else:
            assert ts.errors == [error]


def test_spec312_a_cancel_between_a_rounds_checks_still_releases_upstream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the race forced at a function boundary: the cancel lands after the round saw the
    # subscription active and before it reads the subscriber; the next round releases
    from reactive_streams.operators._backpressure import OnBackpressureBuffer

    ts: TestSubscriber[Any] = TestSubscriber(5)
    armed = [False]
    answer = OnBackpressureBuffer._answer_bad_request

    def cancel_first(self: Any) -> bool:
        if armed[0]:
            armed[0] = False
            ts.cancel()
        return answer(self)

    monkeypatch.setattr(OnBackpressureBuffer, "_answer_bad_request", cancel_first)
    pub = PushPublisher()
    Flow(pub).on_backpressure_buffer(8).subscribe(ts)
    armed[0] = True
    pub.push(1)
    assert not armed[0]  # the cancel was made inside the round
    ts.assert_values()
    assert pub.cancelled  # rule 3.12
