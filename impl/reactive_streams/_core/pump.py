"""``IteratorSubscription``: one subscriber fed from an iterator, on demand, serially.

Every publisher in :mod:`reactive_streams.sources` is a factory of iterators. The
protocol work (demand, rule 3.9, cancel, 2.13, 3.13, tracing) is the core
:class:`~reactive_streams._core.downstream.Downstream`; this class adds the iterator
pump, whose per-element loops live here. Demand is taken per round, not per element.

Two modes:

* synchronous (``executor=None``): if nobody is draining, the caller of ``request``
  drains (``on_subscribe`` and the first round run inside ``subscribe``), trampolined
  (rule 3.3).
* asynchronous: ``request``/``cancel`` take effect at once and a drain task is scheduled
  on the executor (``on_subscribe`` too). A task emits at most ``batch_size`` elements
  in all, however many rounds nested requests start, before re-scheduling itself (the
  drain loop's budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from threading import Lock
from typing import TYPE_CHECKING, TypeVar

from . import downstream as _downstream_module
from . import tracer as _tracing
from .demand import MAX_DEMAND, take
from .downstream import ACTIVE, DONE, SUBSCRIBED, Downstream, null_from
from .exact import exact_end
from .executing import Executor

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = ["IteratorSubscription", "ScalarSubscription", "exact_length_types"]

T = TypeVar("T")

# Iterator types whose __length_hint__ is exact: when it says 0 the source is exhausted,
# so completion is signalled without waiting for more demand (rule 1.5, eagerly).
exact_length_types: set[type] = {
    type(iter(range(0))),
    type(iter(range(2**64))),
    type(iter([])),
    type(iter(())),
}


class IteratorSubscription(Downstream[T]):
    """The Subscription handed to ``subscriber``; created and started by a publisher."""

    __slots__ = ("__weakref__", "_exact", "_factory", "_it", "_name")

    def __init__(
        self,
        subscriber: Subscriber[T],
        factory: Callable[[], Iterable[T]],
        executor: Executor | None = None,
        batch_size: int = 256,
        name: str = "publisher",
    ) -> None:
        super().__init__(subscriber, name, queued=executor is not None)
        self._factory: Callable[[], Iterable[T]] | None = factory
        self._it: Iterator[T] | None = None
        self._exact = False
        self._executor = executor
        self._batch = batch_size if batch_size > 0 else 1  # elements per task (fairness)
        self._name = name

    def __repr__(self) -> str:
        return f"<{self._name} subscription {self._sid or hex(id(self))}>"

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Called by the publisher's ``subscribe``: deliver ``on_subscribe`` and drain."""
        if self._executor is None:
            self._wip = 1  # on_subscribe is the first unit of work (rule 1.3)
            self._drain()
        elif self._enter():
            self._submit(self._executor)

    def _wake(self, cancel: bool) -> None:
        executor = self._executor
        if executor is None:
            self._drain()
        else:
            self._submit(executor)

    def _released(self) -> None:
        # rule 3.13: drop references to the subscriber and the source
        self._downstream = None
        self._it = None
        self._factory = None
        if self._inbound is not None:
            self._inbound.clear()

    # --------------------------------------------------------------- the drain
    def _drain_round(self) -> bool:
        self._receive()
        if self._pub is not ACTIVE and not (self._pub is SUBSCRIBED and self._deliver_subscribe()):
            self._released()  # cancelled: a running drain stops at its next check
            return False
        it = self._it
        if it is None:
            factory = self._factory
            if factory is None:
                return False
            self._factory = None
            try:
                it = iter(factory())
            except Exception as exc:  # the source failed before its first element
                self._finish(exc)
                return False
            self._it = it
            self._exact = type(it) in exact_length_types
            if self._pub is not ACTIVE:  # cancelled meanwhile from another thread (3.13)
                self._released()
                return False
        if self._answer_bad_request():
            return False
        if self._requested == 0:
            if self._exact:
                ended, error = exact_end(it)
                if ended:
                    self._finish(error)  # rules 1.4, 1.5: the end is known, no demand needed
            return False
        limit = min(self._requested, self._budget)  # the budget is unlimited when sync
        return self._emit(it, limit)

    def _emit(self, it: Iterator[T], limit: int) -> bool:
        """Emit up to ``limit`` elements (unbounded demand never reaches it: rule 3.17),
        then take them from the demand in one step. The one emit loop: tracing is a
        branch per element (``_next_traced`` records the same delivery), not a loop."""
        downstream = self._downstream
        if downstream is None:
            return False
        tracer = self._tracer
        on_next = downstream.on_next
        sent = 0
        exhausted = False
        # bounded: islice ends the batch (in C); unbounded needs no count (rule 3.17)
        counting = limit != MAX_DEMAND
        batch = islice(it, limit) if counting else it
        try:
            for item in batch:
                if self._pub is not ACTIVE or self._bad is not None:
                    break
                if item is None:
                    self._finish(null_from(it))
                    return False
                if tracer is None:
                    try:
                        on_next(item)
                    except Exception as exc:
                        self._next_raised(exc)  # rule 2.13
                        return False
                elif not self._next_traced(downstream, item):
                    if self._pub is not ACTIVE:
                        return False  # cancelled meanwhile, or the subscriber raised
                    break  # rule 3.9: its error is due instead
                if counting:
                    sent += 1
            else:
                exhausted = sent < limit  # the source ended before the batch did
        except Exception as exc:  # the source failed
            self._finish(exc)
            return False
        return self._after_batch(it, sent, exhausted)

    def _after_batch(self, it: Iterator[T], sent: int, exhausted: bool) -> bool:
        self._spend(sent)  # the drain loop re-schedules the task once it is spent
        with self._lock:
            self._requested = take(self._requested, sent)  # rule 3.17: unbounded stays
        if self._answer_bad_request():  # rule 3.9
            return False
        if exhausted:
            self._finish(None)
        elif self._exact:
            ended, error = exact_end(it)
            if ended:
                self._finish(error)  # rules 1.4, 1.5: completion or the recorded error
        return False


class ScalarSubscription(Downstream[T]):
    """One known element, then completion, synchronously: ``just(x)`` and a range of
    one. The core's protocol (rule 3.9, cancel, 2.13, the trace) without an iterator,
    a batch or the demand arithmetic: the first valid demand sends it (rule 1.1).

    One-shot and cheap (the subscribe overhead): built in one frame, ``start`` runs the
    drain itself, and a valid untraced ``request`` records its demand and work in one
    lock hold. Everything else (tracing, a bad ``n``, the test hooks) takes the core's
    path; tracing is a branch in the same rounds, not a second loop."""

    __slots__ = ("_name", "_value")

    def __init__(self, subscriber: Subscriber[T], value: T, name: str) -> None:
        # Downstream.__init__ and DrainLoop.__init__ in one frame (no executor, no queue)
        self._lock = Lock()
        self._wip = 0
        self._executor = None
        self._batch = self._budget = MAX_DEMAND
        self._downstream: Subscriber[T] | None = subscriber
        self._inbound = None
        self._pub = SUBSCRIBED
        self._requested = 0
        self._bad = None  # rule 3.9: the first invalid request's message
        self._cancel_called = False  # rule 2.13: a raise after a cancel owes no cancel
        self._seq = 0
        self._sid = 0
        tracer = self._tracer = _tracing._tracer
        if tracer is not None:
            self._sid = tracer.new_subscription_id()
            tracer.emit(self._sid, "subscribe", hop=name)
        self._value: T | None = value
        self._name = name

    def __repr__(self) -> str:
        return f"<{self._name} subscription {self._sid or hex(id(self))}>"

    def request(self, n: int) -> None:
        if (
            self._tracer is not None
            or type(n) is not int
            or n <= 0
            or _downstream_module._sched_hook is not None
        ):
            super().request(n)  # traced, rule 3.9's latch, or a test hook: the core's path
            return
        with self._lock:  # the demand and the unit of work, recorded atomically (rule 1.3)
            if self._pub in DONE:
                return  # rule 3.6
            self._requested = n  # one-shot: any valid demand sends the element (rule 1.1)
            wip = self._wip
            self._wip = wip + 1
        if wip == 0:
            self._drain()

    def _drain(self, missed: int = 1) -> None:
        # one-shot: once it ended, the work recorded meanwhile is void (requests after
        # the end are not recorded at all, rule 3.6): no second round to release it
        while True:
            self._drain_round()
            if self._pub in DONE:
                # no lock: after the end no request or cancel records work (both look
                # at ``_pub`` under the lock first), so nothing else writes ``_wip``
                self._wip = 0
                return
            missed = self._leave(missed)
            if missed == 0:
                return

    def start(self) -> None:
        """Called by ``subscribe``: ``on_subscribe``, then the element if it was asked for
        meanwhile (the first round of ``_drain``, inline: the subscribe overhead)."""
        self._wip = 1  # on_subscribe is the first unit of work (rule 1.3)
        self._drain_round()
        if self._pub in DONE:
            self._wip = 0  # as in _drain: nothing else writes it after the end
            return
        missed = self._leave(1)
        if missed:
            self._drain(missed)

    def _released(self) -> None:
        self._downstream = None  # rule 3.13
        self._value = None

    def _drain_round(self) -> bool:
        if self._pub is not ACTIVE and not (self._pub is SUBSCRIBED and self._deliver_subscribe()):
            self._released()  # cancelled
            return False
        if (self._bad is not None and self._answer_bad_request()) or self._requested == 0:
            return False  # rule 3.9's error was sent, or no demand yet
        value, self._value = self._value, None
        downstream = self._downstream
        if value is None or downstream is None:
            return False
        if self._tracer is None:
            try:
                downstream.on_next(value)  # _send, untraced, inline
            except Exception as exc:
                self._next_raised(exc)  # rule 2.13
                return False
        elif not self._next_traced(downstream, value):
            return False
        self._finish(None)  # rule 1.5; rule 3.9's error instead if asked meanwhile
        return False
