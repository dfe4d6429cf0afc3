"""The timed core (``TimedDrain``, ``delay``, the duration check): what the mutation run
(tools/mutation.py) showed untested. Virtual time: a ``ManualExecutor`` clock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators._timed import Delay
from reactive_streams.testing import TestSubscriber, TimedSubscriber
from reactive_streams.tracing import tracing

from .._util import PushPublisher

_ONE: Any = "1"  # not a number


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: Flow.timer(True), TypeError, "timer: seconds must be a number, got True"),
        (lambda: Flow.timer(_ONE), TypeError, "timer: seconds must be a number, got '1'"),
        (lambda: Flow.timer(float("nan")), TypeError, "timer: seconds must be a number, got nan"),
        (lambda: Flow.timer(-0.5), ValueError, "timer: seconds must be >= 0, got -0.5"),
        (lambda: Flow.just(1).delay(-1), ValueError, "delay: seconds must be >= 0, got -1"),
        (lambda: Flow.just(1).debounce(0), ValueError, "debounce: seconds must be > 0, got 0"),
        (
            lambda: Flow.just(1).debounce(-2.0),
            ValueError,
            "debounce: seconds must be > 0, got -2.0",
        ),
    ],
    ids=["bool", "str", "nan", "negative", "negative-int", "zero-positive", "negative-positive"],
)
def test_durations_are_refused_by_name(
    build: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        build()
    assert str(raised.value) == message


def test_zero_and_fractional_durations_are_accepted(ex: ManualExecutor) -> None:
    Flow.timer(0, scheduler=ex)
    Flow.just(1).delay(0.0, scheduler=ex)
    Flow.just(1).debounce(1e-9, scheduler=ex)
    ts: TimedSubscriber[int] = TimedSubscriber(ex)
    Flow.timer(0, scheduler=ex).subscribe(ts)
    ex.advance_by(0.0)
    assert ts.timeline == [(0.0, "on_next", 0), (0.0, "on_complete", None)]


def test_spec213_a_timed_hop_refuses_on_error_none_by_name(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    assert upstream.subscriber is not None
    with pytest.raises(TypeError) as raised:
        upstream.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"
    ex.advance_by(5.0)
    ts.assert_no_terminal()


@pytest.mark.parametrize(
    "build",
    [lambda c: Flow.timer(1.0, scheduler=c), lambda c: Flow.just(1).delay(1.0, scheduler=c)],
    ids=["source", "operator"],
)
def test_spec109_a_timed_publisher_refuses_a_none_subscriber_by_name(
    ex: ManualExecutor, build: Callable[[Any], Flow[Any]]
) -> None:
    with pytest.raises(TypeError) as raised:
        build(ex).source.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert ex.scheduled == 0


def test_delay_names_itself_in_the_trace(ex: ManualExecutor) -> None:
    with tracing() as tracer:
        Flow.range(0, 3).delay(1.0, scheduler=ex).subscribe(TestSubscriber(1))
    assert next(e["hop"] for e in tracer.events if e["sig"] == "subscribe") == "delay"


def test_spec309_a_timed_hop_answers_a_bad_request_and_forwards_none_of_it(
    ex: ManualExecutor,
) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    ts.request(-1)
    ex.advance_by(1.0)
    ts.assert_error(ValueError, "rule 3.9").assert_no_violations()
    assert upstream.requested == []  # the bad n is answered here, not asked upstream


def test_spec101_delay_takes_every_element_of_a_round_from_the_demand(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    upstream.push(1, 2, 3)
    ex.advance_by(1.0)  # all due, no demand
    ts.request(2)  # one round: two elements
    ts.assert_values(1, 2).assert_no_violations()
    ex.advance_by(1.0)
    ts.assert_values(1, 2).assert_no_violations()
    ts.request(1)
    ts.assert_values(1, 2, 3).assert_no_violations()


def test_spec213_a_raising_on_next_is_logged_with_its_exception(
    ex: ManualExecutor, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(t: TestSubscriber[int], item: int) -> None:
        raise KeyError("subscriber failed")

    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5, on_next_hook=boom)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
        upstream.push(1, 2)
        ex.advance_by(1.0)
    assert upstream.cancelled
    ts.assert_values(1).assert_no_terminal()
    [record] = [r for r in caplog.records if "on_next raised" in r.getMessage()]
    assert record.exc_info is not None
    assert isinstance(record.exc_info[1], KeyError)


def test_spec312_a_cancel_racing_a_timed_round_reaches_upstream(
    ex: ManualExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a cancel from another thread, forced into the window after the round's state check
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    check = Delay._answer_bad_request
    cancelled: list[bool] = []

    def cancel_first(self: Delay[int]) -> bool:
        if not cancelled:
            cancelled.append(True)
            ts.cancel()
        return check(self)

    monkeypatch.setattr(Delay, "_answer_bad_request", cancel_first)
    upstream.push(1)
    assert cancelled == [True]
    assert upstream.cancelled
    assert ex.scheduled == 0  # the timer is cancelled too (rule 3.13)
    ex.advance_by(5.0)
    ts.assert_values().assert_no_terminal().assert_no_violations()


def test_spec309_a_timed_hop_answers_request_none_without_raising(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    assert ts.subscription is not None
    ts.subscription.request(None)  # type: ignore[arg-type]
    ts.assert_error(ValueError, "rule 3.9").assert_no_violations()
    assert upstream.requested == []


def test_delay_asks_upstream_what_downstream_asks_and_completes_after_the_last(
    ex: ManualExecutor,
) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    ts.request(2)
    assert upstream.requested == [2]  # one upstream element per requested output
    upstream.push(1)
    upstream.complete()
    assert upstream.requested == [2]  # nothing more owed
    ts.assert_values().assert_no_terminal()
    ex.advance_by(1.0)
    ts.assert_values(1).assert_complete()


def test_delay_over_a_real_source_asks_it_with_a_valid_count(ex: ManualExecutor) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.range(0, 5).delay(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    ts.assert_values(0, 1).assert_no_terminal().assert_no_violations()  # rule 3.9 holds


def test_a_dropping_timed_hop_asks_upstream_for_everything_once(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(upstream).debounce(1.0, scheduler=ex).subscribe(ts)
    upstream.push(1, 2)
    ex.advance_by(1.0)
    ts.assert_values(2)
    assert upstream.requested == [2**63 - 1]  # rule 3.17: the hop drops, upstream runs free


def test_upstream_signals_count_as_the_main_source(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(upstream).timeout(1.0, scheduler=ex).subscribe(ts)
    upstream.push(1)  # source 0: the main upstream, not a fallback
    ts.assert_values(1)
    ex.advance_by(1.0)
    ts.assert_error(TimeoutError)
    assert str(ts.errors[0]) == "timeout(1.0): no element within 1.0 s"


def test_a_timed_hop_without_a_scheduler_runs_on_the_shared_pool() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.just(1).delay(0.0).subscribe(ts)
    ts.await_terminal(10.0).assert_values(1).assert_complete()


@pytest.mark.parametrize("op", ["delay", "timeout"])
def test_an_upstream_error_is_signalled_at_once(ex: ManualExecutor, op: str) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)
    flow = Flow(upstream)
    hop = flow.delay(1.0, scheduler=ex) if op == "delay" else flow.timeout(1.0, scheduler=ex)
    hop.subscribe(ts)
    upstream.push(1)
    upstream.fail(ValueError("up"))  # rule 1.4: at once, the waiting element dropped
    assert [repr(e) for e in ts.errors] == ["ValueError('up')"]
    assert ex.scheduled == 0  # the timer is cancelled (rule 3.13)


def test_an_element_delivered_takes_its_demand_for_the_next_rounds(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    upstream.push(1)
    ex.advance_by(1.0)
    ts.assert_values(1)
    upstream.push(2)  # a PushPublisher ignores demand; delay holds it
    ex.advance_by(1.0)
    ts.assert_values(1).assert_no_violations()  # rule 1.1: the one asked for was sent
    ts.request(1)
    ts.assert_values(1, 2)
