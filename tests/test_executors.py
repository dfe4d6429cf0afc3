"""Executors: every task runs once; ManualExecutor runs nothing until told to."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import pytest

from reactive_streams.executors import (
    Executor,
    ImmediateExecutor,
    ManualExecutor,
    NewThreadExecutor,
    SingleThreadExecutor,
    ThreadPoolExecutor,
    default_executor,
)


def test_immediate_runs_on_caller_thread() -> None:
    threads: list[threading.Thread] = []
    ImmediateExecutor().execute(lambda: threads.append(threading.current_thread()))
    assert threads == [threading.current_thread()]


def test_immediate_logs_a_raising_task(caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> None:
        raise RuntimeError("boom")

    ImmediateExecutor().execute(boom)
    assert "boom" in caplog.text


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "make",
    [partial(ThreadPoolExecutor, 3), SingleThreadExecutor, NewThreadExecutor],
    ids=["pool", "single", "new-thread"],
)
def test_threaded_executors_run_every_task_once_off_caller_thread(
    make: Callable[[], ThreadPoolExecutor | NewThreadExecutor],
) -> None:
    executor = make()
    assert isinstance(executor, Executor)
    ran: list[int] = []
    lock = threading.Lock()
    done = threading.Semaphore(0)
    caller = threading.get_ident()
    off_thread: list[bool] = []

    def task(i: int) -> None:
        with lock:
            ran.append(i)
            off_thread.append(threading.get_ident() != caller)
        done.release()

    for i in range(200):
        executor.execute(partial(task, i))
    for _ in range(200):
        assert done.acquire(timeout=10)
    executor.close()
    assert sorted(ran) == list(range(200))
    assert all(off_thread)
    with pytest.raises(RuntimeError, match="closed"):
        executor.execute(lambda: None)


@pytest.mark.timeout(30)
def test_single_thread_executor_keeps_order_on_one_thread() -> None:
    executor = SingleThreadExecutor()
    seen: list[tuple[int, int]] = []
    finished = threading.Event()

    def record(i: int) -> None:
        seen.append((i, threading.get_ident()))

    for i in range(100):
        executor.execute(partial(record, i))
    executor.execute(finished.set)
    assert finished.wait(10)
    executor.close()
    assert [i for i, _ in seen] == list(range(100))
    assert len({t for _, t in seen}) == 1


@pytest.mark.timeout(30)
def test_pool_survives_a_raising_task() -> None:
    with ThreadPoolExecutor(1) as executor:
        finished = threading.Event()

        def boom() -> None:
            raise RuntimeError("task failure")

        executor.execute(boom)
        executor.execute(finished.set)
        assert finished.wait(10)


def test_default_executor_is_shared() -> None:
    assert default_executor() is default_executor()
    assert default_executor().workers >= 2


def test_manual_runs_nothing_until_asked() -> None:
    manual = ManualExecutor()
    ran: list[str] = []
    manual.execute(lambda: ran.append("a"), label="a")
    manual.execute(lambda: ran.append("b"), label="b")
    assert ran == []
    assert [t.label for t in manual.pending] == ["a", "b"]
    assert len(manual) == 2
    assert manual.run(1) == "b"
    assert ran == ["b"]
    assert manual.run_next() == "a"
    assert ran == ["b", "a"]
    assert len(manual) == 0
    with pytest.raises(IndexError):
        manual.run_next()


def test_manual_appends_tasks_scheduled_by_running_tasks() -> None:
    manual = ManualExecutor()
    order: list[str] = []

    def parent() -> None:
        order.append("parent")
        manual.execute(lambda: order.append("child"), label="child")

    manual.execute(parent, label="parent")
    manual.execute(lambda: order.append("sibling"), label="sibling")
    manual.run_next()
    assert [t.label for t in manual.pending] == ["sibling", "child"]
    assert manual.run_all() == 2
    assert order == ["parent", "sibling", "child"]


def test_manual_run_all_raises_when_it_does_not_quiesce() -> None:
    manual = ManualExecutor()

    def forever() -> None:
        manual.execute(forever, label="forever")

    manual.execute(forever, label="forever")
    with pytest.raises(RuntimeError, match="did not quiesce within 50 steps"):
        manual.run_all(max_steps=50)


def test_manual_labels_bound_methods_by_owner() -> None:
    class Owner:
        def __repr__(self) -> str:
            return "<owner>"

        def work(self) -> None:
            pass

    manual = ManualExecutor()
    manual.execute(Owner().work)
    assert manual.pending[0].label == "<owner>.work"
