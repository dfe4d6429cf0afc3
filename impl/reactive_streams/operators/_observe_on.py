"""``observe_on`` (an asynchronous boundary) and ``limit_rate`` (the same without a thread).

Upstream elements go into a queue bounded by ``prefetch``: upstream is asked for
``prefetch`` elements first. ``observe_on`` asks again once at least ``limit = prefetch -
prefetch // 4`` of them have been delivered (75 %), for as many as were delivered, when
the drain's delivery stops (the queue ran dry, or no demand): the window stays
``prefetch``, and a producer on another thread is woken once per window, when this drain
no longer holds the GIL for long (bench/README.md, "Thread hops"). ``limit_rate`` asks for
``limit`` each time ``limit`` have been delivered (Reactor's limitRate). A drain loop on
``executor`` (the core ``DrainLoop``: one drainer at a time, rules 1.3 and 2.7) delivers the queued
elements up to the downstream demand. While upstream is faster than the drain, ``on_next``
only appends; the running drain picks the new elements up in the same task, so batches
form by themselves, up to ``DEFAULT_BATCH_SIZE`` elements per task (the drain loop's
budget): then the task re-schedules itself, so an endless stream shares the pool. The
terminal signal follows the queued elements.

Every upstream ``request``/``cancel`` is made from the drain, so they are serial (rule
2.7); ``on_subscribe`` is delivered downstream from the drain too (rule 1.3).

Micro-fusion: a source that answers the fusion protocol is not subscribed to; its
``PulledUpstream`` fills the queue when the drain requests, exactly as the subscribed
source would (a batch per request, ``on_next_batch``), so the one drain below serves both.
"""

from __future__ import annotations

import sys
from collections import deque
from functools import partial
from typing import TYPE_CHECKING, Generic, TypeVar

from .._core.demand import check_request
from .._core.downstream import ACTIVE
from .._core.fusion import subscribe_fused
from .._core.subscribing import subscribe_or_fail
from ..executors import as_executor
from ._base import deliver_subscribe_then_error
from ._drained import DemandDrain

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Executor

T = TypeVar("T")

__all__ = ["ObserveOnPublisher", "replenish_size"]


# on_next reads ``_wip`` without the lock: a plain attribute read, atomic under the GIL
_GIL = getattr(sys, "_is_gil_enabled", lambda: True)()
_BATCH = 256  # elements per drain task: the sources' DEFAULT_BATCH_SIZE


def replenish_size(prefetch: int) -> int:
    """Elements consumed between two upstream requests: 75 % of ``prefetch``."""
    return max(1, prefetch - prefetch // 4)


class _ObserveOn(DemandDrain[T]):
    __slots__ = ("_consumed", "_done", "_limit", "_prefetch", "_queue")

    def __init__(self, downstream: Subscriber[T], executor: Executor | None, prefetch: int) -> None:
        super().__init__(downstream, "observe_on" if executor is not None else "limit_rate")
        self._executor = executor
        self._batch = _BATCH  # elements per task (fairness)
        self._prefetch = prefetch
        self._limit = replenish_size(prefetch)
        self._queue: deque[T] = deque()
        self._consumed = 0
        self._done = False  # upstream terminated (error in _error)

    # ----------------------------------------------------------- scheduling
    def _drain(self, missed: int = 1) -> None:
        while True:
            super()._drain(missed)
            # an element appended while the drain was leaving did not wake it (on_next
            # signals only an idle drain): deliver it if there is demand for it
            if not (self._queue and self._requested and self._pub is ACTIVE and self._enter()):
                return
            executor = self._executor
            if executor is not None and self._submit(executor):
                return
            missed = 1

    def _wake(self, cancel: bool) -> None:
        """We took ``_wip`` from 0: drain here (limit_rate) or on the executor."""
        executor = self._executor
        if executor is None or not self._submit(executor):
            self._drain()  # limit_rate, or the executor refused: on the calling thread

    def _rejected(self, error: Exception) -> None:
        self._executor = None  # the drain is ours: from now on it runs here
        super()._rejected(error)  # rules 1.9, 1.4: on_subscribe if due, then on_error

    # ------------------------------------------------------- upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def on_next(self, item: T) -> None:
        self._queue.append(item)
        if self._wip == 0 or not _GIL:
            self._signal()  # the drain is idle: wake it
        # else the running drain takes the element: its rounds pop until the queue is
        # empty, and ``_drain`` looks again after it left (no lost wake-up)

    def on_next_batch(self, items: list[T]) -> None:
        """A fused upstream's batch (``PulledUpstream``): ``on_next`` for each, at once."""
        self._queue.extend(items)
        if self._wip == 0 or not _GIL:
            self._signal()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._error = error
        self._done = True
        self._signal()

    def on_complete(self) -> None:
        self._done = True
        self._signal()

    # ------------------------------------------------------------ the drain
    def _opened(self) -> None:
        self._upstream.request(self._prefetch)

    def _clear(self) -> None:
        self._queue.clear()

    def _round(self) -> bool:
        downstream = self._downstream
        if downstream is None:
            return False
        queue = self._queue
        popleft = queue.popleft
        on_next = self._sender(downstream)
        limit = self._limit
        consumed = self._consumed
        # rule 3.17: unbounded demand is not counted down; the task's budget bounds both
        cap = min(self._requested, self._budget)
        emitted = 0
        # limit_rate asks for exactly 75 % batches at once (as Reactor's limitRate): its
        # requests are what it is for; observe_on asks in bulk (below)
        eager = self._executor is None
        try:
            while True:
                while emitted != cap:
                    # a run up to the cap or the queue's end; elements appended meanwhile
                    # (by the producer's thread) join the next run
                    run = min(cap - emitted, len(queue))
                    if eager:
                        run = min(run, limit - consumed)
                    if run <= 0:
                        break
                    sent = run
                    for index in range(run):
                        on_next(popleft())
                        if self._pub is not ACTIVE:
                            sent = index + 1
                            break
                    emitted += sent
                    consumed += sent
                    if self._pub is not ACTIVE:
                        break
                if consumed < limit or self._pub is not ACTIVE:
                    break
                # observe_on: in bulk once the delivery stops (the queue ran dry, or no
                # demand), for all consumed: the window stays ``prefetch``. Under the GIL an
                # earlier request only wakes the producer to wait for the GIL this drain
                # holds (bench/README.md, "Thread hops")
                self._upstream.request(consumed)
                consumed = 0
                if not queue or emitted == cap:
                    break  # else a synchronous upstream refilled the queue: deliver on
        except Exception as exc:
            self._consumed = consumed  # the stream is cancelled: no more replenishing
            self._next_raised(exc)
            return False
        self._consumed = consumed
        self._delivered(emitted)
        if self._done and not queue:
            self._finish(self._error)  # rule 3.9's error instead, if one is due
        return False


class ObserveOnPublisher(Generic[T]):
    """``observe_on`` / ``limit_rate`` for every subscriber of ``source``."""

    __slots__ = ("_executor", "_fuse", "_prefetch", "_source")

    def __init__(
        self, source: Publisher[T], executor: Executor | None, prefetch: int, fuse: bool = False
    ) -> None:
        message = check_request(prefetch)
        if message is not None:
            raise ValueError(message.replace("request(n)", "prefetch"))
        self._source = source
        self._executor = as_executor(executor) if executor is not None else None
        self._prefetch = prefetch
        self._fuse = fuse  # the pipeline's fusion switch, read when it was built

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        op: _ObserveOn[T] = _ObserveOn(subscriber, self._executor, self._prefetch)
        if not subscribe_fused(self._source, op, self._fuse):
            # rule 1.9: a raising source is on_subscribe then on_error to the hop
            subscribe_or_fail(self._source, op, partial(deliver_subscribe_then_error, op))
