"""Time in the executors: the virtual clock of ``ManualExecutor`` (no sleeping) and the
one shared timer thread of the real executors (bounded waits only)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable

import pytest

from reactive_streams.executors import (
    AsyncioExecutor,
    Executor,
    ImmediateExecutor,
    ManualExecutor,
    NewThreadExecutor,
    Scheduler,
    SingleThreadExecutor,
    ThreadPoolExecutor,
    as_executor,
    as_scheduler,
    default_executor,
)


def test_virtual_clock_runs_due_tasks_in_time_order_with_ties_in_scheduling_order() -> None:
    ex = ManualExecutor()
    seen: list[tuple[str, float]] = []

    def at(label: str) -> Callable[[], None]:
        return lambda: seen.append((label, ex.now()))

    ex.schedule(2.0, at("c"))
    ex.schedule(1.0, at("a"))
    ex.schedule(1.0, at("b"))  # a tie: after "a", scheduled first
    ex.schedule(5.0, at("late"))
    assert ex.advance_by(3.0) == 3
    assert seen == [("a", 1.0), ("b", 1.0), ("c", 2.0)]
    assert ex.now() == 3.0
    assert ex.scheduled == 1
    assert ex.next_due() == 5.0


def test_virtual_clock_runs_what_a_due_task_queues_before_moving_on() -> None:
    ex = ManualExecutor()
    seen: list[tuple[str, float]] = []
    ex.schedule(1.0, lambda: ex.execute(lambda: seen.append(("queued", ex.now()))))
    ex.schedule(2.0, lambda: seen.append(("next", ex.now())))
    ex.advance_to(10.0)
    assert seen == [("queued", 1.0), ("next", 2.0)]


def test_virtual_clock_runs_hours_of_periodic_ticks_and_cancel_stops_them() -> None:
    ex = ManualExecutor()
    ticks: list[float] = []
    handle = ex.schedule_periodic(0.5, 1.0, lambda: ticks.append(ex.now()))
    ex.advance_by(3 * 3600.0)
    assert len(ticks) == 3 * 3600
    assert ticks[:3] == [0.5, 1.5, 2.5]
    assert handle.cancel() is True
    assert handle.cancel() is False
    ex.advance_by(10.0)
    assert len(ticks) == 3 * 3600


def test_virtual_cancel_prevents_the_run_and_drops_the_task() -> None:
    ex = ManualExecutor()
    ran: list[int] = []
    handle = ex.schedule(1.0, lambda: ran.append(1))
    assert handle.cancel() is True
    ex.advance_by(2.0)
    assert ran == []
    assert ex.scheduled == 0


def test_manual_run_all_ignores_timed_tasks_and_the_clock_cannot_go_back() -> None:
    ex = ManualExecutor()
    ex.schedule(1.0, lambda: None)
    assert ex.run_all() == 0
    assert ex.pending == []
    assert ex.now() == 0.0
    ex.advance_to(1.0)
    with pytest.raises(ValueError, match="cannot go back"):
        ex.advance_to(0.5)
    with pytest.raises(ValueError, match="period must be > 0"):
        ex.schedule_periodic(0.0, 0.0, lambda: None)


def test_every_executor_is_a_scheduler() -> None:
    loop = asyncio.new_event_loop()
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        for ex in (
            ImmediateExecutor(),
            default_executor(),
            NewThreadExecutor(),
            ManualExecutor(),
            AsyncioExecutor(loop),
            as_executor(pool),
        ):
            assert isinstance(ex, Scheduler), ex
    finally:
        loop.close()
        pool.shutdown()


@pytest.mark.parametrize("kind", ["pool", "single", "new_thread", "immediate", "futures", "plain"])
def test_the_timer_thread_fires_on_the_target_executor_and_cancel_prevents_a_fire(
    kind: str,
) -> None:
    closers: list[Callable[[], object]] = []
    ex: Executor
    if kind == "pool":
        ex = ThreadPoolExecutor(2)
        closers.append(ex.close)
    elif kind == "single":
        ex = SingleThreadExecutor()
        closers.append(ex.close)
    elif kind == "new_thread":
        ex = NewThreadExecutor()
        closers.append(ex.close)
    elif kind == "immediate":
        ex = ImmediateExecutor()
    elif kind == "futures":
        futures = concurrent.futures.ThreadPoolExecutor(1)
        closers.append(futures.shutdown)
        ex = as_executor(futures)
    else:

        class Plain:
            def execute(self, task: Callable[[], None]) -> None:
                threading.Thread(target=task, daemon=True).start()

        ex = Plain()
    try:
        scheduler = as_scheduler(ex)
        fired = threading.Event()
        cancelled_fired = threading.Event()
        handle = scheduler.schedule(30.0, cancelled_fired.set)
        start = scheduler.now()
        scheduler.schedule(0.01, fired.set)
        assert fired.wait(10.0)
        assert scheduler.now() >= start + 0.01
        assert handle.cancel() is True
        # the cancelled entry left the timer: a later one fires, the cancelled one never
        after = threading.Event()
        scheduler.schedule(0.0, after.set)
        assert after.wait(10.0)
        assert not cancelled_fired.is_set()
    finally:
        for close in closers:
            close()


def test_periodic_on_a_real_executor_repeats_until_cancelled() -> None:
    count = 0
    three = threading.Event()
    lock = threading.Lock()

    def tick() -> None:
        nonlocal count
        with lock:
            count += 1
            if count == 3:
                three.set()

    handle = default_executor().schedule_periodic(0.0, 0.005, tick)
    assert three.wait(10.0)
    assert handle.cancel() is True


def test_asyncio_executor_uses_the_loop_timer() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        ex = AsyncioExecutor(loop)
        fired = threading.Event()
        on_loop: list[bool] = []
        never = threading.Event()
        handle = ex.schedule(30.0, never.set)

        def fire() -> None:
            on_loop.append(threading.current_thread() is thread)
            fired.set()

        ex.schedule(0.01, fire)
        assert fired.wait(10.0)
        assert on_loop == [True]
        assert handle.cancel() is True
        ticks = threading.Event()
        seen: list[int] = []

        def tick() -> None:
            seen.append(1)
            if len(seen) >= 2:
                ticks.set()

        periodic = ex.schedule_periodic(0.0, 0.005, tick)
        assert ticks.wait(10.0)
        assert periodic.cancel() is True
        assert not never.is_set()
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10.0)
        loop.close()


def test_timer_compacts_cancelled_entries() -> None:
    from reactive_streams import executors

    timer = executors._timer
    for _ in range(3000):  # a debounce re-arms per element: the heap must not grow
        assert default_executor().schedule(3600.0, lambda: None).cancel()
    assert len(timer._heap) <= 1024
