"""Executors: where asynchronous publishers and subscribers run their drain tasks.

An executor runs each task it is given exactly once, on some thread. A task that
raises is logged (it never kills a worker). ``ManualExecutor`` runs nothing until
the caller says so, which makes every interleaving of tasks reproducible.

An executor refuses a task by raising from ``execute``. One that may still lose a task
after accepting it (a ``concurrent.futures`` pool: ``shutdown(cancel_futures=True)``, a
broken pool) is a ``WatchedExecutor``: ``execute_watched(task, lost)`` calls
``lost(error)`` instead of the task, later. ``execute_watched(executor, task, lost)`` is
the one way the library hands its drains to any executor.

Time: every executor here is a ``Scheduler``: ``schedule(delay, task)`` and
``schedule_periodic(initial_delay, period, task)`` return a ``Cancellable``; ``now()`` is
its clock (``time.monotonic``, or the virtual clock of a ``ManualExecutor``). One daemon
timer thread with a heap serves every real executor (never a thread per timer): when a
task is due it is handed to its executor, and the timer thread never runs a task, nor
code that may run one: the pools' ``execute`` only queues, so the timer thread calls it;
any other executor (``ImmediateExecutor``, a third-party one: its ``execute`` may run the
task on the calling thread) gets its due tasks through a hand-off thread of its own, in
due order, so one slow task delays only that executor's later timers. ``as_scheduler``
gives a plain third-party ``Executor`` the same timer.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import os
import queue
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, Union, runtime_checkable

from ._core.executing import Executor, Lost, Task, WatchedExecutor, execute_watched

if TYPE_CHECKING:  # neither is imported at runtime unless the caller already did
    import asyncio
    import concurrent.futures

__all__ = [
    "AsyncioExecutor",
    "Cancellable",
    "Executor",
    "ExecutorLike",
    "ImmediateExecutor",
    "ManualExecutor",
    "NewThreadExecutor",
    "PendingTask",
    "Scheduler",
    "SingleThreadExecutor",
    "ThreadPoolExecutor",
    "WatchedExecutor",
    "as_executor",
    "as_scheduler",
    "default_executor",
    "execute_watched",
]

_log = logging.getLogger("reactive_streams")

ExecutorLike = Union[Executor, "concurrent.futures.Executor", "asyncio.AbstractEventLoop"]
"""What every ``executor=``/``scheduler=`` parameter accepts: this library's executors
(anything with ``execute(task)``), a ``concurrent.futures.Executor`` (a thread pool) and
an asyncio event loop; ``as_executor`` adapts the other two (a string-free ``Union``
would import asyncio at run time)."""


@runtime_checkable
class Cancellable(Protocol):
    """A scheduled task's handle."""

    def cancel(self) -> bool:
        """Stop the task from running (again); True if this call stopped a future run."""
        ...


@runtime_checkable
class Scheduler(Executor, Protocol):
    """An executor with a clock: runs tasks later, once or periodically."""

    def now(self) -> float:
        """The scheduler's clock, in seconds (monotonic, or virtual)."""
        ...

    def schedule(self, delay: float, task: Task) -> Cancellable:
        """Run ``task`` on this executor ``delay`` seconds from now (at once if <= 0)."""
        ...

    def schedule_periodic(self, initial_delay: float, period: float, task: Task) -> Cancellable:
        """Run ``task`` after ``initial_delay``, then every ``period`` (fixed rate)."""
        ...


def _check_period(period: float) -> None:
    if not period > 0:
        raise ValueError(f"schedule_periodic: period must be > 0 seconds, got {period!r}")


class _Timed:
    """One scheduled task: ``cancel`` drops the task, so no timer keeps its owner (3.13)."""

    __slots__ = ("due", "period", "task")

    def __init__(self, task: Task, due: float, period: float | None) -> None:
        self.task: Task | None = task
        self.due = due
        self.period = period

    def cancel(self) -> bool:
        with _timed_lock:  # atomic with ``fired``: a one-shot is cancelled or fired, once
            cancelled = self.task is not None
            self.task = None
        return cancelled

    def fired(self) -> Task | None:
        """The task to run now; a one-shot entry is spent, a periodic one re-armed."""
        with _timed_lock:
            task = self.task
            if self.period is None:
                self.task = None
            else:
                self.due += self.period
        return task


_timed_lock = threading.Lock()


class _TimerThread:
    """The one timer thread: a heap of (due, seq, entry, executor) behind a condition."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, _Timed, Executor]] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._compact_at = 1024
        self._handoff: NewThreadExecutor | None = None  # the other executors' due tasks

    def add(self, executor: Executor, entry: _Timed) -> _Timed:
        with self._cond:
            heap = self._heap
            if len(heap) >= self._compact_at:  # drop cancelled entries: amortized O(1)
                heap[:] = [item for item in heap if item[2].task is not None]
                heapq.heapify(heap)
                self._compact_at = max(1024, 2 * len(heap))
            heapq.heappush(heap, (entry.due, next(self._seq), entry, executor))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rs-timer", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is entry:
                self._cond.notify()  # an earlier deadline than the one waited for
        return entry

    def _run(self) -> None:
        heap = self._heap
        while True:
            with self._cond:
                while True:
                    while heap and heap[0][2].task is None:
                        heapq.heappop(heap)  # cancelled
                    wait = heap[0][0] - time.monotonic() if heap else None
                    if wait is not None and wait <= 0:
                        break
                    self._cond.wait(wait)
                _, _, entry, executor = heapq.heappop(heap)
                task = entry.fired()
                if entry.task is not None:  # periodic: next run
                    heapq.heappush(heap, (entry.due, next(self._seq), entry, executor))
            if task is None:
                continue
            if type(executor).execute in _QUEUEING:
                _hand(executor, task)  # the library's pools: execute only queues the task
            else:  # an execute that may run the task here: never on the timer thread
                handoff = self._handoff
                if handoff is None:
                    handoff = self._handoff = NewThreadExecutor(name="rs-timer-handoff")
                handoff._execute_for(executor, partial(_hand, executor, task))


def _hand(executor: Executor, task: Task) -> None:
    """A due task handed to its executor (on the timer thread only if that only queues)."""
    try:  # rule 1.4: a refused or dropped timed task is reported, never silent
        execute_watched(executor, task, _log_lost)
    except Exception:
        _log.exception("%r refused the timed task %r", executor, task)


def _log_lost(error: Exception) -> None:
    """A task (a timer's, or one given to plain ``execute``) was dropped before it ran."""
    _log.error("an executor dropped a task before it ran", exc_info=error)


_timer = _TimerThread()


class _Clock:
    """The real executors' clock and timer: ``time.monotonic`` and the shared thread."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()

    def schedule(self, delay: float, task: Task) -> Cancellable:
        entry = _Timed(task, time.monotonic() + max(0.0, delay), None)
        return _timer.add(self, entry)  # type: ignore[arg-type]  # subclasses execute

    def schedule_periodic(self, initial_delay: float, period: float, task: Task) -> Cancellable:
        _check_period(period)
        entry = _Timed(task, time.monotonic() + max(0.0, initial_delay), period)
        return _timer.add(self, entry)  # type: ignore[arg-type]


def _run_logged(task: Task) -> None:
    try:
        task()
    except Exception:
        _log.exception("executor task %r raised", task)


class ImmediateExecutor(_Clock):
    """Runs each task at once on the calling thread (a timed task: on this executor's
    hand-off thread, in due order; never on the shared timer thread)."""

    __slots__ = ()

    def execute(self, task: Task) -> None:
        _run_logged(task)


_STOP = object()


class ThreadPoolExecutor(_Clock):
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


class NewThreadExecutor(_Clock):
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
        self._execute_for(getattr(task, "__self__", task), task)

    def _execute_for(self, owner: object, task: Task) -> None:
        """``execute(task)`` on the worker of ``owner`` (after its earlier tasks)."""
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


_QUEUEING = frozenset((ThreadPoolExecutor.execute, NewThreadExecutor.execute))
"""The ``execute`` methods that only queue the task (never run it on the caller)."""


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


class _FuturesExecutor(_Clock):
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

    def now(self) -> float:
        return self._loop.time()

    def schedule(self, delay: float, task: Task) -> Cancellable:
        return _LoopTimer(self._loop, delay, None, task)

    def schedule_periodic(self, initial_delay: float, period: float, task: Task) -> Cancellable:
        _check_period(period)
        return _LoopTimer(self._loop, initial_delay, period, task)


class _LoopTimer:
    """A task on the loop's own timer (``call_at``), armed from any thread; a periodic
    one at a fixed rate, as the timer thread."""

    __slots__ = ("_due", "_handle", "_lock", "_loop", "_period", "_task")

    def __init__(
        self, loop: asyncio.AbstractEventLoop, delay: float, period: float | None, task: Task
    ) -> None:
        self._loop = loop
        self._period = period
        self._task: Task | None = task
        self._lock = threading.Lock()
        self._handle: asyncio.TimerHandle | None = None
        self._due = loop.time() + max(0.0, delay)  # the loop's monotonic clock
        loop.call_soon_threadsafe(self._arm)  # RuntimeError once closed

    def _arm(self) -> None:  # on the loop
        with self._lock:
            if self._task is not None:
                self._handle = self._loop.call_at(self._due, self._fire)

    def _fire(self) -> None:  # on the loop
        with self._lock:
            task = self._task
            if self._period is None:
                self._task = None
            elif task is not None:
                self._due += self._period
                self._handle = self._loop.call_at(self._due, self._fire)
        if task is not None:
            _run_logged(task)

    def cancel(self) -> bool:
        with self._lock:
            cancelled = self._task is not None
            self._task = None
            handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(RuntimeError):  # a closed loop runs nothing
                self._loop.call_soon_threadsafe(handle.cancel)
        return cancelled


class _TimedExecutor(_Clock):
    """A plain third-party ``Executor`` given the shared timer (``as_scheduler``)."""

    __slots__ = ("_executor",)

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def __repr__(self) -> str:
        return f"<{self._executor!r} with the shared timer>"

    def execute(self, task: Task) -> None:
        self._executor.execute(task)

    def execute_watched(self, task: Task, lost: Lost) -> None:
        execute_watched(self._executor, task, lost)


def as_scheduler(executor: object) -> Scheduler:
    """``as_executor(executor)``, given the shared timer if it has no ``schedule``."""
    adapted = as_executor(executor)
    if callable(getattr(adapted, "schedule", None)) and callable(getattr(adapted, "now", None)):
        return adapted  # type: ignore[return-value]
    return _TimedExecutor(adapted)


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

    Virtual time: ``now()`` starts at 0.0 and moves only in ``advance_by``/``advance_to``,
    which run the timed tasks due by then in time order (ties: scheduling order), each
    at its due time, and the immediate queue before each of them and at the end (what a
    due task queues runs before the clock moves on). Hours of stream time run at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[PendingTask] = []
        self.executed = 0
        self._now = 0.0
        self._timed: list[tuple[float, int, _Timed]] = []
        self._seq = itertools.count()

    # ------------------------------------------------------------ virtual time
    def now(self) -> float:
        """The virtual clock, in seconds."""
        return self._now

    def schedule(self, delay: float, task: Task) -> Cancellable:
        return self._add(_Timed(task, self._now + max(0.0, delay), None))

    def schedule_periodic(self, initial_delay: float, period: float, task: Task) -> Cancellable:
        _check_period(period)
        return self._add(_Timed(task, self._now + max(0.0, initial_delay), period))

    def _add(self, entry: _Timed) -> _Timed:
        with self._lock:
            heapq.heappush(self._timed, (entry.due, next(self._seq), entry))
        return entry

    @property
    def scheduled(self) -> int:
        """How many timed tasks wait for the clock (cancelled ones excluded)."""
        with self._lock:
            return sum(1 for _, _, entry in self._timed if entry.task is not None)

    def next_due(self) -> float | None:
        """The due time of the earliest live timed task, None if there is none."""
        with self._lock:
            live = [due for due, _, entry in self._timed if entry.task is not None]
        return min(live) if live else None

    def advance_by(self, dt: float, max_steps: int = 100_000) -> int:
        """Move the clock ``dt`` seconds on (see ``advance_to``)."""
        if dt < 0:
            raise ValueError(f"advance_by: dt must be >= 0, got {dt!r}")
        return self.advance_to(self._now + dt, max_steps)

    def advance_to(self, t: float, max_steps: int = 100_000) -> int:
        """Run everything due up to time ``t``, in time order; then ``now() == t``.
        Returns how many tasks ran (immediate and timed)."""
        if t < self._now:
            raise ValueError(f"advance_to: the clock is at {self._now}, cannot go back to {t}")
        steps = 0
        while True:
            steps += self._run_queued(max_steps)
            with self._lock:
                timed = self._timed
                while timed and timed[0][2].task is None:
                    heapq.heappop(timed)  # cancelled
                if not timed or timed[0][0] > t:
                    break
                due, _, entry = heapq.heappop(timed)
                task = entry.fired()
                if entry.task is not None:  # periodic: the next run, after later ties
                    heapq.heappush(timed, (entry.due, next(self._seq), entry))
            if steps >= max_steps:
                raise RuntimeError(f"ManualExecutor: more than {max_steps} tasks before t={t}")
            self._now = max(self._now, due)
            if task is not None:
                self.executed += 1
                steps += 1
                _run_logged(task)
        self._now = t
        return steps

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

    def _run_queued(self, max_steps: int) -> int:
        """Run the immediate queue to empty (the clock does not move)."""
        steps = 0
        while True:
            with self._lock:
                if not self._pending:
                    return steps
                entry = self._pending.pop(0)
            if steps >= max_steps:
                raise RuntimeError(f"ManualExecutor did not quiesce within {max_steps} steps")
            steps += 1
            self.executed += 1
            _run_logged(entry.task)

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
