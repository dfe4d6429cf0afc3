"""The shared timer thread never runs a task: a due task of an executor whose
``execute`` may run it on the calling thread (``ImmediateExecutor``, a third-party
inline executor, a ``concurrent.futures`` executor that runs ``submit`` inline) goes
through that executor's hand-off thread. So a timed task blocked in a slow ``on_next``
delays no other executor's timer.

Every verdict is an event: the blocked task waits on an Event the test holds, and the
other timer must fire while it is still blocked (bounded waits, no timing)."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.executors import ImmediateExecutor, as_scheduler, default_executor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(60)

BOUND = 10.0  # seconds: a verdict never waits longer (a stalled timer fails, never hangs)
HOLD = 40.0  # seconds a blocked task waits for its release at most: longer than any verdict


class _Inline:
    """A third-party executor that runs each task on the calling thread."""

    def execute(self, task: Callable[[], None]) -> None:
        task()


class _InlineFutures(concurrent.futures.Executor):
    """A ``concurrent.futures`` executor whose ``submit`` runs the call at once."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        future.set_result(fn(*args, **kwargs))
        return future


_INLINE: dict[str, Callable[[], object]] = {
    "immediate": ImmediateExecutor,
    "third-party-inline": _Inline,
    "futures-inline": _InlineFutures,
}


@pytest.mark.parametrize("blocked", list(_INLINE))
@pytest.mark.parametrize("other", ["immediate", "shared-pool"])
def test_a_blocked_timed_task_of_an_inline_executor_delays_no_other_timer(
    blocked: str, other: str
) -> None:
    slow = as_scheduler(_INLINE[blocked]())
    started, release, fired = threading.Event(), threading.Event(), threading.Event()
    left = threading.Event()
    threads: list[str] = []

    def hold() -> None:
        threads.append(threading.current_thread().name)
        started.set()
        release.wait(HOLD)  # the slow on_next
        left.set()

    try:
        slow.schedule(0.0, hold)
        assert started.wait(BOUND), "the inline executor's timer never fired"
        fast = as_scheduler(ImmediateExecutor() if other == "immediate" else default_executor())
        fast.schedule(0.0, fired.set)
        assert fired.wait(BOUND), "a timer waited for another executor's blocked task"
        assert not left.is_set()  # it fired while the first task was still blocked
        assert threads != ["rs-timer"]  # never on the shared timer thread
    finally:
        release.set()


def test_the_timed_tasks_of_one_inline_executor_run_in_due_order() -> None:
    """Its hand-off thread runs them one at a time, as the executor's one caller would."""
    scheduler = ImmediateExecutor()
    seen: list[int] = []
    done = threading.Event()
    first_running = threading.Event()
    release = threading.Event()

    def first() -> None:
        first_running.set()
        release.wait(HOLD)
        seen.append(1)

    scheduler.schedule(0.0, first)
    assert first_running.wait(BOUND)

    def last() -> None:
        seen.append(3)
        done.set()

    scheduler.schedule(0.0, lambda: seen.append(2))
    scheduler.schedule(0.0, last)
    release.set()
    assert done.wait(BOUND)
    assert seen == [1, 2, 3]


def test_a_slow_on_next_of_a_timed_flow_on_an_immediate_scheduler_delays_no_other_flow() -> None:
    """The issue's case: ``interval`` on ``ImmediateExecutor`` whose subscriber blocks in
    ``on_next``; a ``timer`` of another pipeline still completes."""
    entered, release, left = threading.Event(), threading.Event(), threading.Event()

    def slow(subscriber: TestSubscriber[int], item: int) -> None:
        entered.set()
        release.wait(HOLD)
        left.set()

    blocked: TestSubscriber[int] = TestSubscriber(1, on_next_hook=slow)
    Flow.interval(0.001, scheduler=ImmediateExecutor()).subscribe(blocked)
    try:
        assert entered.wait(BOUND)
        other: TestSubscriber[int] = TestSubscriber(1)
        Flow.timer(0.001, scheduler=ImmediateExecutor()).subscribe(other)
        other.await_terminal(BOUND).assert_complete()
        assert not left.is_set()  # completed while the slow on_next was still blocked
    finally:
        release.set()
        blocked.cancel()
