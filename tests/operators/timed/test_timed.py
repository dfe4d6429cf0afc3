"""The timed operators in virtual time (a ``ManualExecutor`` clock, marble diagrams, no
sleeping), their answers to "a tick finds no demand", and cancellation of their timers."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.executors import AsyncioExecutor, ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import BufferOverflowError
from reactive_streams.testing import TestSubscriber, TimedSubscriber, expect_marbles, marbles

MAX = 2**63 - 1


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


# ------------------------------------------------------------------ marbles
def test_marbles_replay_their_diagram_in_virtual_time(ex: ManualExecutor) -> None:
    expect_marbles(marbles("-a-(bc)--#", scheduler=ex), "-a-(bc)--#", scheduler=ex)
    ts = expect_marbles(
        marbles("--x|", scheduler=ex, values={"x": 42}), "--x|", scheduler=ex, values={"x": 42}
    )
    assert ts.values == [42]


def test_marbles_wait_for_demand(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 1)
    marbles("-ab|", scheduler=ex).subscribe(ts)
    ex.advance_by(10.0)
    assert ts.values == ["a"]
    ts.request(1)
    ex.advance_by(0.0)
    assert ts.timeline == [
        (1.0, "on_next", "a"),
        (10.0, "on_next", "b"),
        (10.0, "on_complete", None),
    ]
    assert not ts.violations


def test_expect_marbles_reports_a_different_diagram(ex: ManualExecutor) -> None:
    with pytest.raises(AssertionError, match="expected '-b', got '-a'"):
        expect_marbles(marbles("-a", scheduler=ex), "-b", scheduler=ex)


# ------------------------------------------------------------ interval, timer
def test_interval_ticks_every_period(ex: ManualExecutor) -> None:
    expect_marbles(Flow.interval(1.0, scheduler=ex).take(4), "-012(3|)", scheduler=ex)
    expect_marbles(Flow.interval(2.0, 0.0, scheduler=ex).take(3), "0-1-(2|)", scheduler=ex)


def test_interval_runs_hours_of_ticks_in_virtual_time(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex)
    Flow.interval(1.0, scheduler=ex).take(3 * 3600).subscribe(ts)
    ex.advance_by(3 * 3600.0)
    assert len(ts.values) == 3 * 3600
    assert ts.completions == 1
    assert ts.timeline[-1][0] == 3 * 3600.0


def test_interval_tick_without_demand_fails_naming_rule_1_1(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 2)
    Flow.interval(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(10.0)
    assert ts.values == [0, 1]
    [error] = ts.errors
    assert isinstance(error, BufferOverflowError)
    assert "rule 1.1" in str(error)
    assert ts.timeline[-1][0] == 3.0  # the third tick found no demand
    assert ex.scheduled == 0  # the periodic timer is cancelled
    assert not ts.violations


def test_interval_with_on_backpressure_drop_drops_ticks(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 1)
    Flow.interval(1.0, scheduler=ex).on_backpressure_drop().subscribe(ts)
    ex.advance_by(5.0)
    ts.request(1)
    ex.advance_by(1.0)
    assert ts.values == [0, 5]
    assert ts.errors == []


def test_timer_emits_zero_then_completes_and_waits_for_demand(ex: ManualExecutor) -> None:
    expect_marbles(Flow.timer(3.0, scheduler=ex), "---(0|)", scheduler=ex)
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 0)
    Flow.timer(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(5.0)
    assert ts.values == []
    ts.request(1)
    assert ts.timeline == [(5.0, "on_next", 0), (5.0, "on_complete", None)]


# ---------------------------------------------------------------------- delay
def test_delay_shifts_each_element_and_the_completion_follows(ex: ManualExecutor) -> None:
    expect_marbles(
        marbles("-a-b--c|", scheduler=ex).delay(2.0, scheduler=ex), "---a-b--(c|)", scheduler=ex
    )
    expect_marbles(marbles("-a-b|", scheduler=ex).delay(0.0, scheduler=ex), "-a-b|", scheduler=ex)


def test_delay_signals_an_error_at_once(ex: ManualExecutor) -> None:
    expect_marbles(marbles("-ab#", scheduler=ex).delay(5.0, scheduler=ex), "---#", scheduler=ex)


def test_delay_asks_upstream_for_what_downstream_asks(ex: ManualExecutor) -> None:
    asked: list[int] = []
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 2)
    Flow.range(0, 10).do_on_request(asked.append).delay(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(5.0)
    assert asked == [2]
    assert ts.values == [0, 1]
    ts.request(3)
    ex.advance_by(1.0)
    assert asked == [2, 3]
    assert ts.values == [0, 1, 2, 3, 4]
    assert not ts.violations


def test_delay_subscription_subscribes_upstream_later(ex: ManualExecutor) -> None:
    subscribed: list[float] = []

    class Probe:
        def subscribe(self, subscriber: Subscriber[Any]) -> None:
            subscribed.append(ex.now())
            marbles("-a|", scheduler=ex).subscribe(subscriber)

    ts = expect_marbles(
        Flow.from_publisher(Probe()).delay_subscription(3.0, scheduler=ex), "----a|", scheduler=ex
    )
    assert subscribed == [3.0]
    assert ts.signals[0].kind == "on_subscribe"


def test_delay_subscription_cancelled_never_subscribes(ex: ManualExecutor) -> None:
    subscribed: list[float] = []

    class Probe:
        def subscribe(self, subscriber: Subscriber[Any]) -> None:
            subscribed.append(ex.now())

    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 5)
    Flow.from_publisher(Probe()).delay_subscription(3.0, scheduler=ex).subscribe(ts)
    ts.cancel()
    assert ex.scheduled == 0
    ex.advance_by(10.0)
    assert subscribed == []


# -------------------------------------------------------------------- timeout
def test_timeout_is_rearmed_by_every_element(ex: ManualExecutor) -> None:
    ts = expect_marbles(
        marbles("-abc----d|", scheduler=ex).timeout(2.0, scheduler=ex), "-abc-#", scheduler=ex
    )
    [error] = ts.errors
    assert isinstance(error, TimeoutError)
    assert "timeout(2.0)" in str(error)


def test_timeout_counts_the_first_element_from_the_subscription(ex: ManualExecutor) -> None:
    expect_marbles(marbles("---a|", scheduler=ex).timeout(2.0, scheduler=ex), "--#", scheduler=ex)
    expect_marbles(marbles("-a|", scheduler=ex).timeout(2.0, scheduler=ex), "-a|", scheduler=ex)


def test_timeout_first_only_times_the_first_element_alone(ex: ManualExecutor) -> None:
    source = marbles("-a-----b|", scheduler=ex)
    expect_marbles(source.timeout(2.0, first_only=True, scheduler=ex), "-a-----b|", scheduler=ex)
    late = marbles("---a|", scheduler=ex)
    expect_marbles(late.timeout(2.0, first_only=True, scheduler=ex), "--#", scheduler=ex)


def test_timeout_cancels_upstream_and_switches_to_the_fallback(ex: ManualExecutor) -> None:
    cancelled: list[float] = []
    source = marbles("-a----b|", scheduler=ex).do_on_cancel(lambda: cancelled.append(ex.now()))
    fallback = marbles("xy|", scheduler=ex)
    expect_marbles(source.timeout(2.0, fallback, scheduler=ex), "-a-xy|", scheduler=ex)
    assert cancelled == [3.0]


def test_timeout_fallback_gets_the_outstanding_demand(ex: ManualExecutor) -> None:
    asked: list[int] = []
    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 5)
    fallback = Flow.range(10, 100).do_on_request(asked.append)
    marbles("-ab-------c|", scheduler=ex).timeout(2.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(20.0)
    assert asked == [3]
    assert ts.values == ["a", "b", 10, 11, 12]
    ts.request(2)
    assert asked == [3, 2]
    assert ts.values[-2:] == [13, 14]
    assert not ts.violations


# ------------------------------------------------------------ debounce & co
def test_debounce_emits_the_last_of_each_burst(ex: ManualExecutor) -> None:
    expect_marbles(
        marbles("-ab----cd---|", scheduler=ex).debounce(2.0, scheduler=ex),
        "----b-----d-|",
        scheduler=ex,
    )
    expect_marbles(
        marbles("-ab|", scheduler=ex).debounce(5.0, scheduler=ex), "---(b|)", scheduler=ex
    )


def test_debounce_value_without_demand_waits_and_the_latest_wins(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 0)
    marbles("-a---b----", scheduler=ex).debounce(1.0, scheduler=ex).subscribe(ts)
    ex.advance_by(20.0)
    assert ts.values == []
    ts.request(5)
    assert ts.values == ["b"]


def test_sample_emits_the_latest_per_period(ex: ManualExecutor) -> None:
    expect_marbles(
        marbles("-ab-c--d|", scheduler=ex).sample(3.0, scheduler=ex), "---b--c-(d|)", scheduler=ex
    )
    expect_marbles(
        marbles("-ab-c--d|", scheduler=ex).throttle_latest(3.0, scheduler=ex),
        "---b--c-(d|)",
        scheduler=ex,
    )


def test_throttle_first_passes_the_first_then_drops_for_dt(ex: ManualExecutor) -> None:
    expect_marbles(
        marbles("-abc-d-ef|", scheduler=ex).throttle_first(3.0, scheduler=ex),
        "-a---d--f|",
        scheduler=ex,
    )


def test_throttle_first_without_demand_drops_and_opens_no_window(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 0)
    marbles("-a-b-c", scheduler=ex).throttle_first(10.0, scheduler=ex).subscribe(ts)
    ex.advance_by(2.0)
    ts.request(1)
    ex.advance_by(10.0)
    assert ts.values == ["b"]


def test_buffer_timeout_emits_full_or_timed_lists(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex)
    marbles("-abc-d----ef|", scheduler=ex).buffer_timeout(3, 3.0, scheduler=ex).subscribe(ts)
    ex.advance_by(20.0)
    assert ts.timeline == [
        (3.0, "on_next", ["a", "b", "c"]),
        (8.0, "on_next", ["d"]),
        (12.0, "on_next", ["e", "f"]),
        (12.0, "on_complete", None),
    ]


def test_buffer_timeout_asks_n_per_list_and_a_due_list_waits_for_demand(ex: ManualExecutor) -> None:
    asked: list[int] = []
    ts: TimedSubscriber[Any] = TimedSubscriber(ex, 1)
    marbles("-a---bcd", scheduler=ex).do_on_request(asked.append).buffer_timeout(
        3, 2.0, scheduler=ex
    ).subscribe(ts)
    ex.advance_by(20.0)
    assert asked == [3]
    assert ts.values == [["a"]]  # then b, c (asked for), d never asked for
    ts.request(1)
    assert ts.values == [["a"], ["b", "c"]]
    assert asked == [3, 3]
    assert not ts.violations


# ----------------------------------------------------- cancel and arguments
TIMED: dict[str, Callable[[Flow[Any], ManualExecutor], Flow[Any]]] = {
    "interval": lambda f, ex: Flow.interval(1.0, scheduler=ex),
    "timer": lambda f, ex: Flow.timer(5.0, scheduler=ex),
    "delay": lambda f, ex: f.delay(5.0, scheduler=ex),
    "delay_subscription": lambda f, ex: f.delay_subscription(5.0, scheduler=ex),
    "timeout": lambda f, ex: f.timeout(5.0, scheduler=ex),
    "debounce": lambda f, ex: f.debounce(5.0, scheduler=ex),
    "sample": lambda f, ex: f.sample(5.0, scheduler=ex),
    "buffer_timeout": lambda f, ex: f.buffer_timeout(10, 5.0, scheduler=ex),
}


@pytest.mark.parametrize("name", sorted(TIMED))
def test_cancel_cancels_the_timer_and_drops_the_subscriber(name: str, ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex)
    TIMED[name](marbles("-a-------", scheduler=ex), ex).subscribe(ts)
    ex.advance_by(1.0)
    assert ex.scheduled >= 1
    subscription = ts.subscription
    assert subscription is not None
    subscription.cancel()
    ex.advance_by(0.0)
    assert ex.scheduled == 0  # rules 3.12, 3.13: no timer is left to keep the subscriber
    ref = weakref.ref(ts)
    del ts
    gc.collect()
    assert ref() is None
    ex.advance_by(100.0)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Flow.interval(0.0), "seconds must be > 0"),
        (lambda: Flow.timer(-1.0), "seconds must be >= 0"),
        (lambda: Flow.range(0, 1).delay(float("nan")), "seconds must be a number"),
        (lambda: Flow.range(0, 1).buffer_timeout(0, 1.0), "size must be an int > 0"),
    ],
)
def test_durations_are_checked(build: Callable[[], object], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        build()


# ------------------------------------------- rule 1.3 with a timer and upstream
class _Upstream:
    """A publisher the test drives by hand."""

    subscriber: Subscriber[Any] | None = None

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber

        class Sub:
            def request(self, n: int) -> None:
                pass

            def cancel(self) -> None:
                pass

        subscription: Subscription = Sub()
        subscriber.on_subscribe(subscription)


def test_a_tick_and_an_upstream_element_never_signal_downstream_together(
    ex: ManualExecutor,
) -> None:
    """Rule 1.3, forced: the tick's on_next blocks; an element arriving meanwhile on
    another thread is recorded and delivered by the drain after it, not concurrently."""
    inside = threading.Event()
    release = threading.Event()

    def hook(ts: TestSubscriber[Any], item: Any) -> None:
        if item == ["a"]:
            inside.set()
            assert release.wait(10.0)

    ts: TimedSubscriber[Any] = TimedSubscriber(ex, on_next_hook=hook)
    upstream = _Upstream()
    Flow.from_publisher(upstream).buffer_timeout(2, 1.0, scheduler=ex).subscribe(ts)
    subscriber = upstream.subscriber
    assert subscriber is not None
    subscriber.on_next("a")
    ticker = threading.Thread(target=ex.advance_by, args=(1.0,))
    ticker.start()
    assert inside.wait(10.0)  # the tick's on_next(["a"]) is running on the ticker thread
    subscriber.on_next("b")
    subscriber.on_next("c")  # a full list, due now: recorded, the running drain sends it
    subscriber.on_complete()
    release.set()
    ticker.join(10.0)
    assert not ticker.is_alive()
    assert ts.values == [["a"], ["b", "c"]]
    assert ts.completions == 1
    assert not ts.violations  # no overlapping on_next (rule 1.3)


# ------------------------------------------------------ a real scheduler, once
def test_timed_operators_on_the_shared_pool() -> None:
    assert Flow.range(0, 5).delay(0.001).timeout(30.0).to_list(timeout=30.0) == [0, 1, 2, 3, 4]
    assert Flow.interval(0.001).take(3).buffer_timeout(2, 30.0).to_list(timeout=30.0) == [
        [0, 1],
        [2],
    ]


def test_timed_operators_on_an_asyncio_loop() -> None:
    import asyncio

    async def main() -> list[tuple[int, bool]]:
        loop = AsyncioExecutor(asyncio.get_running_loop())  # the loop's call_at
        here = threading.current_thread()
        flow = Flow.interval(0.001, scheduler=loop).take(3).debounce(0.0001, scheduler=loop)
        return [(x, threading.current_thread() is here) async for x in flow]

    got = asyncio.run(asyncio.wait_for(main(), 30.0))
    values = [x for x, _ in got]
    assert values[-1] == 2  # debounce keeps the last (jitter may merge ticks)
    assert values == sorted(set(values))
    assert all(on_loop for _, on_loop in got)  # delivered on the loop's thread


class _RefusingClock(ManualExecutor):
    """A scheduler whose timers cannot be set (a closed loop, a shut-down timer)."""

    def schedule(self, delay: float, task: Any) -> Any:
        raise RuntimeError("the scheduler is closed")

    def schedule_periodic(self, initial_delay: float, period: float, task: Any) -> Any:
        raise RuntimeError("the scheduler is closed")


class _RaisingSource:
    def subscribe(self, subscriber: Any) -> None:
        raise RuntimeError("subscribe raised")


@pytest.mark.parametrize(
    "build",
    [
        lambda c: Flow.interval(1.0, scheduler=c),
        lambda c: Flow.timer(1.0, scheduler=c),
        lambda c: Flow.range(0, 3).delay(1.0, scheduler=c),
        lambda c: Flow.range(0, 3).delay_subscription(1.0, scheduler=c),
        lambda c: Flow.range(0, 3).debounce(1.0, scheduler=c),
    ],
    ids=["interval", "timer", "delay", "delay_subscription", "debounce"],
)
def test_spec109_a_refusing_scheduler_is_on_error(build: Callable[[Any], Flow[Any]]) -> None:
    """Rules 1.9, 1.4: on_subscribe, then the scheduler's error; nothing escapes subscribe."""
    clock = _RefusingClock()
    probe: TimedSubscriber[Any] = TimedSubscriber(clock, 10)
    build(clock).subscribe(probe)
    clock.run_all()
    assert [k for _, k, _ in probe.timeline] == ["on_error"], probe.timeline
    assert isinstance(probe.timeline[-1][2], RuntimeError)


def test_spec109_delay_subscription_of_a_raising_source_is_on_error() -> None:
    clock = ManualExecutor()
    probe: TimedSubscriber[Any] = TimedSubscriber(clock, 10)
    source: Flow[Any] = Flow.from_publisher(_RaisingSource())
    source.delay_subscription(1.0, scheduler=clock).subscribe(probe)
    clock.advance_by(1.0)
    assert [k for _, k, _ in probe.timeline] == ["on_error"], probe.timeline
