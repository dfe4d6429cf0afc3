"""The executor protocol the core hands its drains to (rule 1.9, 1.4: a refused or
dropped task is said, never waited for). ``reactive_streams.executors`` re-exports it
with the executors themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

__all__ = ["Executor", "Lost", "Task", "WatchedExecutor", "execute_watched"]

Task = Callable[[], None]
Lost = Callable[[Exception], None]


@runtime_checkable
class Executor(Protocol):
    """Runs tasks, each exactly once, possibly on another thread."""

    def execute(self, task: Task) -> None:
        """Schedule ``task``. Raises ``RuntimeError`` if the executor is closed."""
        ...


@runtime_checkable
class WatchedExecutor(Executor, Protocol):
    """An executor that can drop a task it has accepted, and says so."""

    def execute_watched(self, task: Task, lost: Lost) -> None:
        """``execute(task)``; if the task is then dropped before it starts, call
        ``lost(error)`` instead (once, on any thread, maybe before this returns)."""
        ...


def execute_watched(executor: Executor, task: Task, lost: Lost) -> None:
    """Hand ``task`` to ``executor``: raises if it is refused now; ``lost(error)`` runs
    instead of ``task`` if a ``WatchedExecutor`` drops it later (rules 1.9, 1.4: the
    caller can still signal, never wait for a task that will not run)."""
    watched = getattr(executor, "execute_watched", None)
    if watched is None:
        executor.execute(task)
    else:
        watched(task, lost)
