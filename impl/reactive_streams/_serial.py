"""The one serialization mechanism: a work-in-progress counter with a drain loop.

Rules 1.3 and 2.7 ask that signals to one party never overlap. Every caller that has
work for the party first records it (adds demand, queues a message) and then calls
``_enter()``, which increments ``_wip`` under a tiny lock. Only the caller that moved
``_wip`` from 0 to 1 becomes the drainer; the others return at once. The drainer runs
rounds (``_drain_round``) until a decrement brings ``_wip`` back to 0, so work recorded
while it was busy is picked up by its next round (queue-drain, "missed" accounting).

The lock is held only for the increment and the decrement, never while user code runs.
A recursive call (``request`` from inside ``on_next``) finds ``_wip > 0`` and returns:
this trampolining bounds recursion to one level (rule 3.3).

In executor mode the drainer does not run inline: ``_schedule()`` hands ``_drain`` to
the executor, so exactly one drain task is pending or running at any time.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from .executors import Executor

_log = logging.getLogger("reactive_streams")

M = TypeVar("M")


class DrainLoop:
    """Base class: ``_wip`` counter, ``_enter``, ``_drain``; subclasses define the rounds."""

    __slots__ = ("_lock", "_wip")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wip = 0

    def _enter(self) -> bool:
        """Record one unit of work; True if the caller must now drain."""
        with self._lock:
            wip = self._wip
            self._wip = wip + 1
        return wip == 0

    def _leave(self, missed: int) -> int:
        """Retire ``missed`` units; returns the units recorded meanwhile (0: drainer leaves)."""
        with self._lock:
            wip = self._wip - missed
            self._wip = wip
        return wip

    def _drain(self) -> None:
        """Run rounds until no work is left; never re-entered (rules 1.3, 2.7)."""
        missed = 1
        while True:
            if self._drain_round():
                return  # handed over: a continuation task was scheduled and keeps _wip
            missed = self._leave(missed)
            if missed == 0:
                return

    def _drain_round(self) -> bool:
        """One round of work. Return True after scheduling a continuation of ``_drain``."""
        raise NotImplementedError


class SerialQueue(DrainLoop, Generic[M]):
    """Messages handed to ``handler`` one at a time, in order, on ``executor``.

    ``offer`` is thread-safe and never runs ``handler`` on the caller's thread (unless
    the executor is an ``ImmediateExecutor``). At most ``batch`` messages are handled
    per task before the drain re-schedules itself, so one busy queue cannot hog a pool.
    """

    __slots__ = ("_batch", "_executor", "_handler", "_queue")

    def __init__(self, executor: Executor, handler: Callable[[M], None], batch: int = 256) -> None:
        super().__init__()
        self._executor = executor
        self._handler = handler
        self._queue: deque[M] = deque()
        self._batch = batch

    def offer(self, message: M) -> None:
        """Queue ``message`` and make sure a drain task is scheduled."""
        self._queue.append(message)
        if self._enter():
            self._executor.execute(self._drain)

    def _drain_round(self) -> bool:
        queue = self._queue
        handler = self._handler
        for _ in range(self._batch):
            if not queue:
                return False
            message = queue.popleft()
            try:
                handler(message)
            except Exception:
                _log.exception("serial queue handler raised")
        if queue:
            self._executor.execute(self._drain)
            return True
        return False

    def __len__(self) -> int:
        return len(self._queue)
