"""Executors: where asynchronous publishers and subscribers run their drain tasks.

An executor runs each task it is given exactly once, on some thread. A task that
raises is logged (it never kills a worker). ``ManualExecutor`` runs nothing until
the caller says so, which makes every interleaving of tasks reproducible.

An executor refuses a task by raising from ``execute``. One that may still lose a task
after accepting it (a ``concurrent.futures`` pool: ``shutdown(cancel_futures=True)``, a
broken pool) is a ``WatchedExecutor``: ``execute_watched(task, lost)`` calls
``lost(error)`` instead of the task, later. ``execute_watched(executor, task, lost)`` is
the one way the library hands its drains to any executor.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # neither is imported at runtime unless the caller already did
    import asyncio
    import concurrent.futures

__all__ = [
    "AsyncioExecutor",
    "Executor",
    "ImmediateExecutor",
    "ManualExecutor",
    "NewThreadExecutor",
    "PendingTask",
    "SingleThreadExecutor",
    "ThreadPoolExecutor",
    "WatchedExecutor",
    "as_executor",
    "default_executor",
    "execute_watched",
]

_log = logging.getLogger("reactive_streams")

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


def _run_logged(task: Task) -> None:
    try:
        task()
    except Exception:
        _log.exception("executor task %r raised", task)


class ImmediateExecutor:
    """Runs each task at once on the calling thread."""

    def execute(self, task: Task) -> None:
        _run_logged(task)


_STOP = object()


class ThreadPoolExecutor:
    """A fixed pool of daemon worker threads fed by one unbounded FIFO queue."""

    def __init__(self, workers: int = 4, *, name: str = "rs-pool") -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    @property
    def workers(self) -> int:
        return len(self._threads)

    def execute(self, task: Task) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("executor is closed")
            self._queue.put(task)

    def _work(self) -> None:
        get = self._queue.get
        while True:
            task = get()
            if task is _STOP:
                return
            _run_logged(task)  # type: ignore[arg-type]

    def close(self, timeout: float | None = 10.0) -> None:
        """Stop accepting tasks, let queued ones finish, join the workers."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for _ in self._threads:
                self._queue.put(_STOP)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout)

    def __enter__(self) -> ThreadPoolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SingleThreadExecutor(ThreadPoolExecutor):
    """One worker thread: tasks run one after another, in submission order."""

    def __init__(self, *, name: str = "rs-single") -> None:
        super().__init__(1, name=name)


class _Worker:
    """One thread that runs one owner's tasks in order; it ends after ``keep_alive``
    idle seconds (a later task starts a new one) or once its executor closes."""

    __slots__ = ("_executor", "_key", "_tasks", "_thread")

    def __init__(self, executor: NewThreadExecutor, key: int) -> None:
        self._executor = executor
        self._key = key
        self._tasks: deque[Task] = deque()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        executor = self._executor
        tasks = self._tasks
        while True:
            with executor._idle:
                if not tasks and not executor._closed:
                    executor._idle.wait_for(
                        lambda: bool(tasks) or executor._closed, executor._keep_alive
                    )
                if not tasks:
                    self._thread = None
                    if executor._workers.get(self._key) is self:
                        del executor._workers[self._key]
                    return
                task = tasks.popleft()
            _run_logged(task)


class NewThreadExecutor:
    """A dedicated thread per worker: the tasks of one owner (one subscription's drain,
    the bound method's ``__self__``) run in order on one thread of their own, never a
    thread per task. An idle worker thread ends after ``keep_alive`` seconds."""

    def __init__(self, *, name: str = "rs-thread", keep_alive: float = 5.0) -> None:
        self._name = name
        self._keep_alive = keep_alive
        self._idle = threading.Condition()
        self._workers: dict[int, _Worker] = {}
        self._threads: list[threading.Thread] = []
        self._closed = False

    def execute(self, task: Task) -> None:
        owner = getattr(task, "__self__", task)
        key = id(owner)
        with self._idle:
            if self._closed:
                raise RuntimeError("executor is closed")
            worker = self._workers.get(key)
            if worker is None:
                worker = self._workers[key] = _Worker(self, key)
            worker._tasks.append(task)
            thread = worker._thread
            if thread is None:
                thread = worker._thread = threading.Thread(
                    target=worker._run, name=self._name, daemon=True
                )
                self._threads = [t for t in self._threads if t.is_alive()]
                self._threads.append(thread)
                thread.start()
            else:
                self._idle.notify_all()

    def close(self, timeout: float | None = 10.0) -> None:
        """Stop accepting tasks; the workers finish their queued tasks; join them."""
        with self._idle:
            self._closed = True
            self._idle.notify_all()
            threads = list(self._threads)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(timeout)

    def __enter__(self) -> NewThreadExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Submitted:
    """One task submitted to a ``concurrent.futures`` pool, and its Future's outcome."""

    __slots__ = ("lost", "owner", "started", "task")

    def __init__(self, owner: _FuturesExecutor, task: Task, lost: Lost) -> None:
        self.owner = owner
        self.task = task
        self.lost = lost
        self.started = False

    def __call__(self) -> None:
        self.started = True
        _run_logged(self.task)

    def done(self, future: concurrent.futures.Future[None]) -> None:
        """The Future's callback: a task dropped before it started is ``lost``, on the
        shared pool: the pool that cancels the Future holds its lock, and ``lost`` may
        submit to that pool again (a lost drain's on_error reaches the next hop)."""
        if self.started:
            return  # it ran; its own failure was logged
        if future.cancelled():
            error: Exception = RuntimeError(
                f"rule 1.4: {self.owner!r} cancelled the task before it ran "
                "(shutdown(cancel_futures=True)): the stream fails instead of stalling"
            )
        else:
            failure = future.exception()
            if failure is None:
                return
            if isinstance(failure, Exception):
                error = failure  # e.g. BrokenExecutor
            else:
                error = RuntimeError(f"rule 1.4: {self.owner!r} dropped the task: {failure!r}")
        default_executor().execute(partial(self.lost, error))


def _log_lost(error: Exception) -> None:
    _log.error("a concurrent.futures executor dropped a task before it ran", exc_info=error)


class _FuturesExecutor:
    """A ``concurrent.futures.Executor`` adapted: ``execute`` is ``submit``, and the
    Future is watched, so a task dropped after ``submit`` returned is never silent."""

    __slots__ = ("_executor",)

    def __init__(self, executor: concurrent.futures.Executor) -> None:
        self._executor = executor

    def __repr__(self) -> str:
        return f"<{self._executor!r} adapted>"

    def execute(self, task: Task) -> None:
        self.execute_watched(task, _log_lost)

    def execute_watched(self, task: Task, lost: Lost) -> None:
        submitted = _Submitted(self, task, lost)
        future = self._executor.submit(submitted)  # RuntimeError after shutdown
        future.add_done_callback(submitted.done)


class AsyncioExecutor:
    """Runs each task on an asyncio event loop (``call_soon_threadsafe``): the signals
    of an ``observe_on(AsyncioExecutor(loop))`` stage arrive on the loop's thread."""

    __slots__ = ("_loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        import asyncio

        if not isinstance(loop, asyncio.AbstractEventLoop):
            raise TypeError(f"AsyncioExecutor needs an asyncio event loop, got {loop!r}")
        self._loop = loop

    def execute(self, task: Task) -> None:
        self._loop.call_soon_threadsafe(_run_logged, task)  # RuntimeError once closed


def as_executor(executor: object) -> Executor:
    """The library's executors as they are; a ``concurrent.futures.Executor`` adapted to
    ``submit``; an asyncio event loop wrapped in ``AsyncioExecutor``; else TypeError."""
    futures: Any = sys.modules.get("concurrent.futures")  # an instance implies the import
    if futures is not None and isinstance(executor, futures.Executor):
        process: Any = sys.modules.get("concurrent.futures.process")
        if process is not None and isinstance(executor, process.ProcessPoolExecutor):
            raise TypeError(
                "executor: a ProcessPoolExecutor runs tasks in other processes, but a drain "
                "task is a closure over this process's subscribers and locks (it cannot be "
                "pickled, and a copy would signal nobody); use a ThreadPoolExecutor"
            )
        return _FuturesExecutor(executor)
    aio: Any = sys.modules.get("asyncio")
    if aio is not None and isinstance(executor, aio.AbstractEventLoop):
        return AsyncioExecutor(executor)
    if callable(getattr(executor, "execute", None)):
        return executor  # type: ignore[return-value]
    raise TypeError(
        "executor must be a reactive_streams Executor (with execute(task)), a "
        f"concurrent.futures.Executor or an asyncio event loop, got {type(executor).__name__}"
    )


_default_lock = threading.Lock()
_default: ThreadPoolExecutor | None = None


def default_executor() -> ThreadPoolExecutor:
    """The shared pool (``os.cpu_count()`` workers, at least 2), created on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = ThreadPoolExecutor(max(2, os.cpu_count() or 2), name="rs-default")
        return _default


@dataclass(frozen=True)
class PendingTask:
    """A task waiting in a ``ManualExecutor``; ``label`` names it in test output."""

    label: str
    task: Task

    def __repr__(self) -> str:
        return self.label


def _label_of(task: Task) -> str:
    owner = getattr(task, "__self__", None)
    name = getattr(task, "__name__", None) or type(task).__name__
    return f"{owner!r}.{name}" if owner is not None else name


class ManualExecutor:
    """Queues tasks and runs them only when told to: deterministic interleavings.

    ``execute`` appends; ``run(i)`` runs the i-th pending task on the calling thread;
    tasks scheduled while a task runs are appended to the end of ``pending``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[PendingTask] = []
        self.executed = 0

    def execute(self, task: Task, label: str | None = None) -> None:
        entry = PendingTask(label if label is not None else _label_of(task), task)
        with self._lock:
            self._pending.append(entry)

    @property
    def pending(self) -> list[PendingTask]:
        """A snapshot of the tasks not yet run, oldest first."""
        with self._lock:
            return list(self._pending)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def run(self, index: int = 0) -> str:
        """Run the task at ``index`` in ``pending``; returns its label."""
        with self._lock:
            if not self._pending:
                raise IndexError("no pending task")
            entry = self._pending.pop(index)
        self.executed += 1
        _run_logged(entry.task)
        return entry.label

    def run_next(self) -> str:
        """Run the oldest pending task."""
        return self.run(0)

    def run_all(self, max_steps: int = 100_000) -> int:
        """Run tasks until none is pending; returns how many ran.

        Raises ``RuntimeError`` if tasks are still pending after ``max_steps``.
        """
        steps = 0
        while len(self):
            if steps >= max_steps:
                raise RuntimeError(
                    f"ManualExecutor did not quiesce within {max_steps} steps: {self.pending[:5]}"
                )
            self.run(0)
            steps += 1
        return steps
