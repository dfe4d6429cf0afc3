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

In executor mode the drainer does not run inline: ``_submit()`` hands ``_drain`` to
the executor, so exactly one drain task is pending or running at any time. Fairness is
counted in elements per task, not per round: a task may emit ``_batch`` elements in all
(``_budget``, spent by the rounds); once they are spent the task re-schedules itself,
keeping ``_wip``, whatever work is recorded. So no stream holds a pool thread for more
than ``batch_size`` elements, however many rounds nested ``request`` calls start.
Without an executor the budget is unlimited and never checked per element.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .demand import MAX_DEMAND
from .executing import Executor, execute_watched

if TYPE_CHECKING:
    from ..api import Subscription

_log = logging.getLogger("reactive_streams")

M = TypeVar("M")

#: test-only scheduling hook (``_core/schedpoints.py``); None in production
_sched_hook: Any = None


class DrainLoop:
    """Base class: ``_wip`` counter, ``_enter``, ``_drain``; subclasses define the rounds.

    ``_executor``: where the drain runs (None: inline, on the thread that brings work);
    ``_batch``: elements one task may emit; ``_budget``: what the running task has left.
    A round caps its emission at ``_budget`` and spends what it emits (``_spend``).
    """

    __slots__ = ("_batch", "_budget", "_executor", "_lock", "_wip")

    def __init__(self, executor: Executor | None = None, batch: int = MAX_DEMAND) -> None:
        self._lock = threading.Lock()
        self._wip = 0
        self._executor = executor
        self._batch = batch if batch > 0 else 1
        self._budget = MAX_DEMAND

    def _enter(self) -> bool:
        """Record one unit of work; True if the caller must now drain."""
        if _sched_hook is not None:
            _sched_hook("wip.enter", self)
        with self._lock:
            wip = self._wip
            self._wip = wip + 1
        return wip == 0

    def _leave(self, missed: int) -> int:
        """Retire ``missed`` units; returns the units recorded meanwhile (0: drainer leaves)."""
        if _sched_hook is not None:
            _sched_hook("wip.leave", self)
        with self._lock:
            wip = self._wip - missed
            self._wip = wip
        return wip

    def _drain(self, missed: int = 1) -> None:
        """Run rounds until no work is left; never re-entered (rules 1.3, 2.7). ``missed``:
        the units of work the caller holds (one, for the caller that took ``_wip`` from 0).
        A task stops after ``_batch`` elements and continues as a new task (fairness)."""
        self._budget = self._batch if self._executor is not None else MAX_DEMAND
        if _sched_hook is not None:
            _sched_hook("drain.enter", self)
        while True:
            if self._drain_round():
                return  # handed over: a continuation task was scheduled and keeps _wip
            if self._budget <= 0:
                if self._continue():
                    return  # the budget is spent: the next task keeps _wip (fairness)
                self._budget = MAX_DEMAND  # ended, or the executor refused: go on here
            missed = self._leave(missed)
            if missed == 0:
                return

    def _spend(self, emitted: int) -> None:
        """A round emitted ``emitted`` elements: take them from the task's budget."""
        self._budget -= emitted

    def _continue(self) -> bool:
        """The task's budget is spent: schedule ``_drain`` again, keeping ``_wip``; True
        if scheduled. Done, or no executor: False, and the drain goes on as usual."""
        executor = self._executor
        return executor is not None and self._submit(executor)

    def _drain_round(self) -> bool:
        """One round of work. Return True after scheduling a continuation of ``_drain``."""
        raise NotImplementedError

    def _submit(self, executor: Executor) -> bool:
        """Hand ``_drain`` to ``executor`` (the caller holds the drain). A rejected task
        becomes ``_rejected(error)``, run here: the drain is still ours (rule 1.3). A task
        the executor drops later (it never ran) becomes ``_lost(error)``."""
        try:
            execute_watched(executor, self._drain, self._lost)
        except Exception as exc:
            self._rejected(exc)
            return False
        return True

    def _rejected(self, error: Exception) -> None:
        """The executor refused the drain task: signal ``error`` to whoever waits."""
        _log.error("%r: the executor rejected the drain task", self, exc_info=error)

    def _lost(self, error: Exception) -> None:
        """The executor dropped the drain task it had accepted: the drain is still ours
        (rule 1.3). Rejected as if ``execute`` had raised, then drained here, as a refused
        caller does: the stream ends with ``error`` (rules 1.9, 1.4), never stalls."""
        self._rejected(error)
        self._drain()


class SerialQueue(DrainLoop, Generic[M]):
    """Messages handed to ``handler`` one at a time, in order, on ``executor``.

    ``offer`` is thread-safe and never runs ``handler`` on the caller's thread (unless
    the executor is an ``ImmediateExecutor``). At most ``batch`` messages are handled
    per task before the drain re-schedules itself, so one busy queue cannot hog a pool.
    """

    __slots__ = ("_handler", "_on_reject", "_queue")

    def __init__(
        self,
        executor: Executor,
        handler: Callable[[M], None],
        batch: int = 256,
        on_reject: Callable[[Exception], None] | None = None,
    ) -> None:
        super().__init__(executor, batch)
        self._handler = handler
        self._queue: deque[M] = deque()
        self._on_reject = on_reject

    def offer(self, message: M) -> None:
        """Queue ``message`` and make sure a drain task is scheduled."""
        if _sched_hook is not None:
            _sched_hook("queue.offer", self)
        self._queue.append(message)
        if self._enter():
            self._submit(self._executor)  # type: ignore[arg-type]  # never None here

    def _rejected(self, error: Exception) -> None:
        self._queue.clear()
        if self._on_reject is None:
            super()._rejected(error)
        else:
            self._on_reject(error)

    def _drain_round(self) -> bool:
        queue = self._queue
        handler = self._handler
        handled = 0
        budget = self._budget
        while queue and handled < budget:
            message = queue.popleft()
            handled += 1
            try:
                handler(message)
            except Exception:
                _log.exception("serial queue handler raised")
        self._spend(handled)  # the loop re-schedules the rest once it is spent
        return False

    def __len__(self) -> int:
        return len(self._queue)


class SerialSubscription:
    """Calls on an upstream Subscription made serial (rule 2.7).

    An operator's own calls (filter's replacement ``request(1)``, take's ``cancel``, a
    fault's ``cancel``) and the requests it forwards from downstream may come from
    different threads. A caller that holds ``_busy`` (a re-entrant lock, taken without
    waiting) calls upstream; a call from another thread meanwhile is queued, and whoever
    next holds ``_busy`` makes the queued calls, in order. Calls on the holding thread from
    inside a signal are legal nesting and go straight through (rule 3.3 bounds them
    upstream). A queued ``cancel`` makes later requests no-ops at once, and it is made as
    soon as the holding thread calls in again: an operator that receives an element after
    its downstream cancelled calls ``cancel`` from inside that emission, so an endless
    synchronous emission stops (rule 3.12).
    """

    __slots__ = ("_busy", "_calls", "_cancel", "_upstream")

    def __init__(self, upstream: Subscription) -> None:
        self._upstream = upstream
        self._busy = threading.RLock()
        self._calls: deque[int] = deque()
        self._cancel = 0  # 1: cancel queued, 2: cancel made

    def request(self, n: int) -> None:
        hook = _sched_hook
        if hook is not None:
            hook("request.enter", self)
        if self._cancel:
            return  # rule 3.6
        busy = self._busy
        if hook is not None:
            hook("serial.acquire", self)
        if busy.acquire(False):
            try:
                self._upstream.request(n)
            finally:
                if hook is not None:
                    hook("serial.release", self)
                busy.release()
        else:
            if hook is not None:
                hook("serial.queue", self)
            self._calls.append(n)
        if hook is not None:
            hook("serial.pending", self)
        if self._pending():
            self._run_queued()  # queued by another thread meanwhile (no lost wake-up)
        if hook is not None:
            hook("request.exit", self)

    def cancel(self) -> None:
        hook = _sched_hook
        if hook is not None:
            hook("cancel.enter", self)
        if self._cancel == 2:
            return  # rule 3.7
        busy = self._busy
        if hook is not None:
            hook("serial.acquire", self)
        if busy.acquire(False):
            try:
                if self._cancel == 2:
                    return
                self._cancel = 2
                self._calls.clear()
                self._upstream.cancel()
            finally:
                if hook is not None:
                    hook("serial.release", self)
                busy.release()
        else:
            if hook is not None:
                hook("serial.queue", self)
            self._cancel = 1
            self._run_queued()
        if hook is not None:
            hook("cancel.exit", self)

    def _pending(self) -> bool:
        return bool(self._calls) or self._cancel == 1  # (written by other threads)

    def _run_queued(self) -> None:
        busy = self._busy
        calls = self._calls
        while calls or self._cancel == 1:
            if _sched_hook is not None:
                _sched_hook("serial.acquire", self)
            if not busy.acquire(False):
                return
            try:
                while True:
                    if self._cancel == 1:
                        self._cancel = 2
                        calls.clear()
                        self._upstream.cancel()
                        break
                    if not calls or self._cancel:
                        calls.clear()
                        break
                    self._upstream.request(calls.popleft())  # rule 3.9 is upstream's
            finally:
                if _sched_hook is not None:
                    _sched_hook("serial.release", self)
                busy.release()
