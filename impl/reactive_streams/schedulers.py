"""The schedulers Python users expect, as the core executors (``observe_on`` and
``subscribe_on`` take any ``Executor``).

========================  ============================================================
``shared_pool()``          the process-wide thread pool (``default_executor()``)
``single(name)``           one worker thread: tasks run in submission order
``new_thread(name)``       a dedicated thread per worker: each subscription's drain
                           runs on a thread of its own (never a thread per task)
``immediate()``            runs each task at once on the calling thread
``manual()``               runs tasks only when told to: deterministic tests
``thread_pool(workers)``   a dedicated pool
========================  ============================================================

Each is also a ``Scheduler`` (the timed operators' ``scheduler=``): ``schedule(delay,
task)``, ``schedule_periodic(initial_delay, period, task)`` and ``now()``; the real ones
share one timer thread, which never runs a task itself (``immediate()``'s timed tasks run
on a hand-off thread of its own, in due order), and ``manual()`` has a virtual clock
(``advance_by``/``advance_to``).
"""

from __future__ import annotations

from .executors import (
    Executor,
    ImmediateExecutor,
    ManualExecutor,
    NewThreadExecutor,
    Scheduler,
    SingleThreadExecutor,
    ThreadPoolExecutor,
    default_executor,
)

__all__ = [
    "Executor",
    "Scheduler",
    "immediate",
    "manual",
    "new_thread",
    "shared_pool",
    "single",
    "thread_pool",
]


def shared_pool() -> ThreadPoolExecutor:
    """The shared pool (created on first use; never close it)."""
    return default_executor()


def single(name: str = "rs-single") -> SingleThreadExecutor:
    """A new single-thread executor (close it when done, or use ``with``)."""
    return SingleThreadExecutor(name=name)


def new_thread(name: str = "rs-thread") -> NewThreadExecutor:
    """An executor with a dedicated daemon thread per worker (per subscription's drain)."""
    return NewThreadExecutor(name=name)


def immediate() -> ImmediateExecutor:
    """Runs each task on the calling thread, at once (a timed task: on its own hand-off
    thread, so a slow one never holds the shared timer thread)."""
    return ImmediateExecutor()


def manual() -> ManualExecutor:
    """A ``ManualExecutor``: tasks wait until ``run``/``run_all``."""
    return ManualExecutor()


def thread_pool(workers: int = 4, name: str = "rs-pool") -> ThreadPoolExecutor:
    """A new pool of ``workers`` threads."""
    return ThreadPoolExecutor(workers, name=name)
