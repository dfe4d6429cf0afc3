"""debounce, sample, throttle_first, buffer_timeout, window_timeout, timeout: what the
mutation run (tools/mutation.py) showed untested. Virtual time: a ``ManualExecutor``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber, TimedSubscriber, marbles
from reactive_streams.tracing import tracing

from .._util import PushPublisher


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


def test_timeout_names_its_duration(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(PushPublisher()).timeout(2.5, scheduler=ex).subscribe(ts)
    ex.advance_by(10.0)
    [error] = ts.errors
    assert type(error) is TimeoutError
    assert str(error) == "timeout(2.5): no element within 2.5 s"
    assert ts.timeline == [(2.5, "on_error", error)]


def test_spec213_timeouts_fallback_subscriber_refuses_none_by_name(ex: ManualExecutor) -> None:
    fallback = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(PushPublisher()).timeout(1.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    inner = fallback.subscriber
    assert inner is not None  # subscribed at the timeout
    with pytest.raises(TypeError) as raised:
        inner.on_subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_subscribe(None)"
    with pytest.raises(TypeError) as raised:
        inner.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"
    fallback.push(7)
    ex.advance_by(0.0)
    assert ts.values == [7]
    assert ts.errors == []


@pytest.mark.parametrize(
    ("hop", "build"),
    [
        ("debounce", lambda f, c: f.debounce(1.0, scheduler=c)),
        ("sample", lambda f, c: f.sample(1.0, scheduler=c)),
        ("throttle_first", lambda f, c: f.throttle_first(1.0, scheduler=c)),
        ("buffer_timeout", lambda f, c: f.buffer_timeout(2, 1.0, scheduler=c)),
        ("window_timeout", lambda f, c: f.window_timeout(2, 1.0, scheduler=c)),
        ("timeout", lambda f, c: f.timeout(1.0, scheduler=c)),
    ],
)
def test_each_timed_hop_names_itself_in_the_trace(
    ex: ManualExecutor, hop: str, build: Callable[[Flow[int], Any], Flow[Any]]
) -> None:
    with tracing() as tracer:
        build(Flow.range(0, 3), ex).subscribe(TestSubscriber(1))
    assert next(e["hop"] for e in tracer.events if e["sig"] == "subscribe") == hop


def test_sample_and_debounce_emit_nothing_before_an_element(ex: ManualExecutor) -> None:
    sampled: TimedSubscriber[Any] = TimedSubscriber(ex)
    marbles("---a|", scheduler=ex).sample(1.0, scheduler=ex).subscribe(sampled)
    debounced: TimedSubscriber[Any] = TimedSubscriber(ex)
    Flow.empty().debounce(1.0, scheduler=ex).subscribe(debounced)
    ex.advance_by(10.0)
    assert sampled.timeline == [(3.0, "on_next", "a"), (4.0, "on_complete", None)]
    assert debounced.timeline == [(0.0, "on_complete", None)]
    assert not sampled.violations
    assert not debounced.violations


class _LateCancel:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True  # too late: the tick was handed to the executor already


class _TicksAfterCancel(ManualExecutor):
    """A clock whose timers fire even when cancelled (each tick already handed over)."""

    def schedule(self, delay: float, task: Any) -> Any:
        super().schedule(delay, task)
        return _LateCancel()


def test_buffer_timeout_ignores_the_tick_of_a_cancelled_timer() -> None:
    clock = _TicksAfterCancel()
    upstream = PushPublisher()
    ts: TimedSubscriber[Any] = TimedSubscriber(clock)
    Flow(upstream).buffer_timeout(3, 2.0, scheduler=clock).subscribe(ts)
    upstream.push("a", "b", "c")  # full at 0: its timer (due at 2) is cancelled, too late
    clock.advance_by(1.0)
    upstream.push("d")  # a new list, due at 3
    clock.advance_by(5.0)
    assert ts.timeline == [(0.0, "on_next", ["a", "b", "c"]), (3.0, "on_next", ["d"])]


def test_timeouts_fallback_error_reaches_the_subscriber(ex: ManualExecutor) -> None:
    fallback = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(PushPublisher()).timeout(1.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    assert fallback.subscriber is not None
    fallback.push(7)
    error = KeyError("fallback failed")
    fallback.fail(error)
    ex.advance_by(0.0)
    assert ts.timeline == [(1.0, "on_next", 7), (1.0, "on_error", error)]
    assert ts.errors[0] is error


class _Refusing(ManualExecutor):
    def schedule(self, delay: float, task: Any) -> Any:
        raise RuntimeError("the scheduler is closed")


def test_spec109_timeout_on_a_refusing_scheduler_is_on_error() -> None:
    clock = _Refusing()
    ts: TimedSubscriber[int] = TimedSubscriber(clock, 5)
    Flow(PushPublisher()).timeout(1.0, scheduler=clock).subscribe(ts)
    ts.assert_error(RuntimeError, "the scheduler is closed").assert_no_violations()


def test_timeout_passes_upstreams_error(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(upstream).timeout(5.0, scheduler=ex).subscribe(ts)
    error = KeyError("upstream failed")
    upstream.fail(error)
    assert ts.errors == [error]
    assert ex.scheduled == 0


def test_timeout_ignores_the_tick_of_a_cancelled_timer() -> None:
    clock = _TicksAfterCancel()
    upstream = PushPublisher()
    ts: TimedSubscriber[str] = TimedSubscriber(clock, 5)
    Flow(upstream).timeout(2.0, scheduler=clock).subscribe(ts)
    clock.advance_by(1.0)
    upstream.push("a")  # re-armed: due at 3; the first timer's tick (at 2) is stale
    clock.advance_by(1.5)
    assert ts.errors == []
    clock.advance_by(1.0)
    assert [k for _, k, _ in ts.timeline] == ["on_next", "on_error"]
    assert ts.timeline[-1][0] == 3.0


def test_timeout_ignores_the_former_upstream_after_the_switch(ex: ManualExecutor) -> None:
    upstream, fallback = PushPublisher(), PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(upstream).timeout(1.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    assert upstream.cancelled
    upstream.push(1)  # rule 2.8: late, from the cancelled upstream
    upstream.complete()
    fallback.push(2)
    ex.advance_by(0.0)
    assert ts.values == [2]
    assert ts.completions == 0


@pytest.mark.parametrize(("demand", "asked"), [(0, []), (1, [1]), (3, [3])])
def test_timeouts_fallback_is_asked_for_the_outstanding_demand_only(
    ex: ManualExecutor, demand: int, asked: list[int]
) -> None:
    fallback = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, demand)
    Flow(PushPublisher()).timeout(1.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    assert fallback.requested == asked
    ts.assert_no_violations()


def test_timeouts_fallback_is_not_asked_for_an_element_waiting_for_demand(
    ex: ManualExecutor,
) -> None:
    upstream, fallback = PushPublisher(), PushPublisher()
    ts: TimedSubscriber[str] = TimedSubscriber(ex, 0)
    Flow(upstream).timeout(2.0, fallback, scheduler=ex).subscribe(ts)
    upstream.push("a")  # waits for demand
    ex.advance_by(2.0)
    assert fallback.requested == []
    ts.request(2)
    assert ts.values == ["a"]
    assert fallback.requested == [2]  # the request is forwarded as made (one per element)


def test_timeout_cancelled_with_an_event_pending_is_quiet(ex: ManualExecutor) -> None:
    upstream = PushPublisher()

    def push_then_cancel(t: TestSubscriber[int], item: int) -> None:
        upstream.push(item + 1)  # queued behind the running round
        t.cancel()

    ts: TestSubscriber[int] = TestSubscriber(5, on_next_hook=push_then_cancel)
    Flow(upstream).timeout(5.0, scheduler=ex).subscribe(ts)
    upstream.push(1)
    ts.assert_values(1).assert_no_terminal().assert_no_violations()
    assert upstream.cancelled


def test_timeouts_fallback_is_asked_for_the_demand_beyond_the_waiting_elements(
    ex: ManualExecutor,
) -> None:
    # a request made while the switch runs (here: from the fallback's subscribe) counts,
    # minus the element that already waits for demand
    upstream = PushPublisher()
    ts: TimedSubscriber[str] = TimedSubscriber(ex, 0)

    class Fallback(PushPublisher):
        def subscribe(self, subscriber: Any) -> None:
            ts.request(3)
            super().subscribe(subscriber)

    fallback = Fallback()
    Flow(upstream).timeout(2.0, fallback, scheduler=ex).subscribe(ts)
    upstream.push("a")  # waits for demand
    ex.advance_by(2.0)
    assert fallback.requested == [2]  # 3 requested, 1 of them for "a"
    assert ts.values == ["a"]
