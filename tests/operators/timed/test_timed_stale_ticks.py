"""A timed hop tells the tick of its current timer from a stale one by the arming the
tick belongs to, never by the clock.

A scheduler may run a timer a little before its due time by its own ``now()`` (asyncio's
``call_at`` runs a timer up to the clock's resolution early, about 15.6 ms on Windows):
that tick must fire the operator (rule 1.4: the timeout, the debounced element, the
window come eventually). A tick handed to the executor just before its timer was
cancelled, and the hop re-armed since, must still be ignored. All in virtual time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.executors import Cancellable, ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber, marbles

from .._util import PushPublisher

Task = Callable[[], None]
MAX = 2**63 - 1


class SkewedClock(ManualExecutor):
    """A ``ManualExecutor`` whose timers run ``early`` seconds short of their due time by
    its own ``now()`` (the clock reads ``due - early`` while a timed task runs). With
    ``hand_over``, a due timer's task is only handed over (to ``handed``, as the timer
    thread hands it to a pool): a cancel no longer reaches it, the test runs it later."""

    def __init__(self, early: float = 0.005, *, hand_over: bool = False) -> None:
        super().__init__()
        self.early = early
        self.hand_over = hand_over
        self.handed: list[Task] = []
        self._firing = 0

    def now(self) -> float:
        return super().now() - (self.early if self._firing else 0.0)

    def schedule(self, delay: float, task: Task) -> Cancellable:
        return super().schedule(delay - self._skew(), self._skewed(task))  # due: now() + delay

    def schedule_periodic(self, initial_delay: float, period: float, task: Task) -> Cancellable:
        return super().schedule_periodic(initial_delay - self._skew(), period, self._skewed(task))

    def _skew(self) -> float:
        return super().now() - self.now()

    def _skewed(self, task: Task) -> Task:
        def fire() -> None:
            if self.hand_over:
                self.handed.append(task)
                return
            self._firing += 1
            try:
                task()
            finally:
                self._firing -= 1

        return fire

    def run_handed(self) -> None:
        """Run the oldest handed-over tick (at the clock's own time)."""
        self.handed.pop(0)()


def _window_values(ts: TestSubscriber[Any]) -> list[Any]:
    out: list[Any] = []
    for window in ts.values:
        inner: TestSubscriber[Any] = TestSubscriber(MAX)
        window.subscribe(inner)
        out.append(inner.values)
    return out


# ------------------------------------------------------------------ early ticks
def test_timeout_fires_on_a_tick_the_clock_calls_early() -> None:
    clock = SkewedClock()
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).timeout(2.0, scheduler=clock).subscribe(ts)
    clock.advance_by(2.0)  # the timer runs; the clock reads 1.995
    assert ts.errors, "rule 1.4: timeout's early tick was dropped, it never fires"
    [error] = ts.errors
    assert isinstance(error, TimeoutError), error
    assert source.cancelled  # rule 3.12: the late source stops


def test_timeout_rearmed_per_element_fires_on_an_early_tick() -> None:
    clock = SkewedClock()
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).timeout(2.0, scheduler=clock).subscribe(ts)
    clock.advance_by(1.0)
    source.push("a")  # re-armed: due at 3.0
    clock.advance_by(2.0)
    assert ts.values == ["a"]
    assert ts.errors, "rule 1.4: the re-armed timeout's early tick was dropped"
    [error] = ts.errors
    assert isinstance(error, TimeoutError), error


# operator -> (build over a pushed source, elements to push, what the early tick emits)
EARLY: dict[str, tuple[Callable[[Flow[Any], SkewedClock], Flow[Any]], list[Any], Any]] = {
    "debounce": (lambda f, c: f.debounce(1.0, scheduler=c), ["a", "b"], ["b"]),
    "buffer_timeout": (
        lambda f, c: f.buffer_timeout(5, 1.0, scheduler=c),
        ["a", "b"],
        [["a", "b"]],
    ),
    "window_timeout": (lambda f, c: f.window_timeout(5, 1.0, scheduler=c), ["a"], [["a"]]),
    "delay": (lambda f, c: f.delay(1.0, scheduler=c), ["a", "b"], ["a", "b"]),
    "sample": (lambda f, c: f.sample(1.0, scheduler=c), ["a", "b"], ["b"]),
    "timer": (lambda f, c: Flow.timer(1.0, scheduler=c), [], [0]),
    "interval": (lambda f, c: Flow.interval(1.0, scheduler=c).take(2), [], [0]),
    "marbles": (lambda f, c: marbles("-a-b|", scheduler=c), [], ["a"]),
}


@pytest.mark.parametrize("name", sorted(EARLY))
def test_a_timed_operator_fires_on_a_tick_the_clock_calls_early(name: str) -> None:
    build, items, expected = EARLY[name]
    clock = SkewedClock()
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    build(Flow(source), clock).subscribe(ts)
    if items:
        source.push(*items)
    clock.advance_by(1.0)  # the one due timer runs with the clock at 0.995
    got = _window_values(ts) if name == "window_timeout" else ts.values
    assert got == expected, f"rule 1.4: {name}: its live timer's early tick was dropped"
    assert not ts.violations, ts.violations


def test_delay_releases_each_element_on_early_ticks_in_order() -> None:
    clock = SkewedClock()
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).delay(1.0, scheduler=clock).subscribe(ts)
    source.push("a")
    clock.advance_by(0.5)
    source.push("b")  # due at 1.5
    clock.advance_by(0.5)
    assert ts.values == ["a"]  # b is not due at the early tick: the timer is re-armed
    clock.advance_by(0.5)
    assert ts.values == ["a", "b"]
    source.complete()
    assert ts.completions == 1


def test_marbles_play_the_whole_diagram_on_early_ticks() -> None:
    clock = SkewedClock()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    marbles("-a-(bc)-d|", scheduler=clock).subscribe(ts)
    clock.advance_by(10.0)
    assert ts.values == ["a", "b", "c", "d"]
    assert ts.completions == 1


# ------------------------------------------------------------------ stale ticks
def test_a_stale_debounce_tick_handed_over_before_the_rearm_is_ignored() -> None:
    clock = SkewedClock(0.0, hand_over=True)
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).debounce(1.0, scheduler=clock).subscribe(ts)
    source.push("a")
    clock.advance_by(1.0)  # a's tick is handed over ...
    source.push("b")  # ... and b re-arms the timer (the cancel comes too late)
    clock.run_handed()
    assert ts.values == []  # the stale tick emits nothing: b waits its quiet period
    clock.advance_by(1.0)
    clock.run_handed()
    assert ts.values == ["b"]


def test_a_stale_timeout_tick_handed_over_before_an_element_is_ignored() -> None:
    clock = SkewedClock(0.0, hand_over=True)
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).timeout(1.0, scheduler=clock).subscribe(ts)
    clock.advance_by(1.0)  # the subscription's tick is handed over ...
    source.push("a")  # ... and the element re-arms the timer
    clock.run_handed()
    assert ts.values == ["a"]
    assert ts.errors == []  # the element came in time
    clock.advance_by(1.0)
    clock.run_handed()
    [error] = ts.errors
    assert isinstance(error, TimeoutError), error


def test_a_stale_buffer_timeout_tick_does_not_cut_the_next_list() -> None:
    clock = SkewedClock(0.0, hand_over=True)
    source = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow(source).buffer_timeout(2, 1.0, scheduler=clock).subscribe(ts)
    source.push("a")
    clock.advance_by(1.0)  # a's tick is handed over ...
    source.push("b", "c")  # ... [a, b] is full (disarmed), c arms a new timer
    clock.run_handed()
    assert ts.values == [["a", "b"]]  # the stale tick does not cut [c]
    source.push("d")
    assert ts.values == [["a", "b"], ["c", "d"]]
