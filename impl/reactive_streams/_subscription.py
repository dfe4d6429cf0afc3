"""``IteratorSubscription``: one subscriber fed from an iterator, on demand, serially.

Every publisher in :mod:`reactive_streams.sources` is a factory of iterators; this
class does the protocol work: demand (rules 3.9, 3.17), serial signals (1.3, via
:class:`~reactive_streams._serial.DrainLoop`), trampolined ``request`` (3.3),
idempotent thread-safe ``cancel`` (3.5, 3.7), no-ops after the end (3.6), dropping
references (3.13), faulty subscribers cancelled and logged (2.13), tracing.

Two modes:

* synchronous (``executor=None``): ``request`` adds demand under the lock; if nobody is
  draining, the caller drains (``on_subscribe`` and the first round run inside
  ``subscribe``). Demand is taken per round, not per element: no lock per element.
* asynchronous: ``request``/``cancel`` become messages in an inbound queue and a drain
  task is scheduled on the executor (``on_subscribe`` too). A task emits at most
  ``batch_size`` elements before re-scheduling itself.
"""

from __future__ import annotations

import logging
import operator
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from . import tracing as _tracing
from ._demand import MAX_DEMAND, add_demand, check_request, take
from ._serial import DrainLoop
from .executors import Executor

if TYPE_CHECKING:
    from .api import Subscriber

__all__ = ["IteratorSubscription", "exact_length_types"]

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")

_CANCEL: Final = object()


class _BadRequest:
    __slots__ = ("message", "n")

    def __init__(self, n: object, message: str) -> None:
        self.n = n
        self.message = message


# Iterator types whose __length_hint__ is exact: when it says 0 the source is exhausted,
# so completion is signalled without waiting for more demand (rule 1.5, eagerly).
exact_length_types: set[type] = {
    type(iter(range(0))),
    type(iter(range(2**64))),
    type(iter([])),
    type(iter(())),
}


def _traced_n(n: object) -> int | None:
    return n if type(n) is int else None


def _null_error() -> TypeError:
    return TypeError("rule 2.13: a publisher must not signal on_next(None)")


class IteratorSubscription(DrainLoop, Generic[T]):
    """The Subscription handed to ``subscriber``; created and started by a publisher."""

    __slots__ = (
        "__weakref__",
        "_bad_request",
        "_batch",
        "_cancelled",
        "_done",
        "_exact",
        "_executor",
        "_factory",
        "_halt",
        "_id",
        "_inbound",
        "_it",
        "_name",
        "_requested",
        "_seq",
        "_subscribed",
        "_subscriber",
        "_tracer",
    )

    def __init__(
        self,
        subscriber: Subscriber[T],
        factory: Callable[[], Iterable[T]],
        executor: Executor | None = None,
        batch_size: int = 256,
        name: str = "publisher",
    ) -> None:
        super().__init__()
        self._subscriber: Subscriber[T] | None = subscriber
        self._factory: Callable[[], Iterable[T]] | None = factory
        self._it: Iterator[T] | None = None
        self._exact = False
        self._executor = executor
        self._batch = batch_size if batch_size > 0 else 1
        self._name = name
        self._requested = 0
        self._cancelled = False  # the subscriber called cancel (or a fault cancelled it)
        self._halt = False  # the emission loops stop: cancelled or an invalid request
        self._done = False  # publisher side finished: terminal sent or cancel received
        self._subscribed = False
        self._bad_request: _BadRequest | None = None
        self._inbound: deque[object] | None = deque() if executor is not None else None
        self._seq = 0
        tracer = _tracing._tracer
        self._tracer = tracer
        self._id = tracer.new_subscription_id() if tracer is not None else 0

    def __repr__(self) -> str:
        return f"<{self._name} subscription {self._id or hex(id(self))}>"

    @property
    def subscription_id(self) -> int:
        """The id used in trace events (0 when tracing was off at creation)."""
        return self._id

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Called by the publisher's ``subscribe``: deliver ``on_subscribe`` and drain."""
        tracer = self._tracer
        if tracer is not None:
            tracer.emit(self._id, "subscribe")
        if self._executor is None:
            self._wip = 1  # on_subscribe is the first unit of work (rule 1.3)
            self._drain()
        else:
            self._schedule()

    def _schedule(self) -> None:
        if self._enter():
            executor = self._executor
            assert executor is not None
            self._submit(executor)

    def _rejected(self, error: Exception) -> None:
        # rule 1.9 then 1.4: the drain is ours, so signal here, on the caller's thread
        if not self._subscribed:
            self._deliver_subscribe()
        self._signal_error(error)

    def _release(self) -> None:
        # rule 3.13: drop references to the subscriber and the source
        self._subscriber = None
        self._it = None
        self._factory = None
        if self._inbound is not None:
            self._inbound.clear()

    # ---------------------------------------------------------- Subscription API
    def request(self, n: int) -> None:
        if type(n) is not int or n <= 0:
            message = check_request(n)
            if message is not None:
                self._request_invalid(n, message)
                return
        tracer = self._tracer
        inbound = self._inbound
        with self._lock:  # the call is recorded atomically with its effect (rule 2.13)
            if tracer is not None:
                tracer.emit(self._id, "request", n=_traced_n(n))
            if self._cancelled or self._done:
                return  # rule 3.6
            n = int(n)  # an int subclass
            if inbound is not None:
                inbound.append(n)
                wip = 1
            else:
                if tracer is not None:
                    tracer.emit(self._id, "recv_request", n=n)  # before the demand is visible
                self._requested = add_demand(self._requested, n)  # rule 3.17
                wip = self._wip
                self._wip = wip + 1
        if inbound is not None:
            self._schedule()
        elif wip == 0:
            self._drain()

    def _request_invalid(self, n: object, message: str) -> None:
        # rule 3.9: signal on_error(ValueError) through the drain, never raise here
        bad = _BadRequest(n, message)
        tracer = self._tracer
        inbound = self._inbound
        with self._lock:
            if tracer is not None:
                tracer.emit(self._id, "request", n=_traced_n(n))
            if self._cancelled or self._done:
                return  # rule 3.6
            if inbound is not None:
                inbound.append(bad)
                wip = 1
            else:
                if tracer is not None:
                    tracer.emit(self._id, "recv_request", n=_traced_n(n))
                if self._bad_request is None:
                    self._bad_request = bad
                    self._halt = True
                wip = self._wip
                self._wip = wip + 1
        if inbound is not None:
            self._schedule()
        elif wip == 0:
            self._drain()

    def cancel(self) -> None:
        self._cancel(None)

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None) -> None:
        """Cancel; ``fault`` = (end event, its fields) of a subscriber method that raised,
        recorded atomically with the cancel, so no request is received after it (2.13)."""
        tracer = self._tracer
        inbound = self._inbound
        with self._lock:
            if tracer is not None:
                if fault is not None:
                    tracer.emit(self._id, fault[0], **fault[1])
                tracer.emit(self._id, "cancel")
            if self._cancelled:
                return  # rule 3.5: idempotent
            self._cancelled = True
            self._halt = True
            if inbound is not None:
                inbound.append(_CANCEL)
            elif not self._done:
                self._done = True
                if tracer is not None:
                    tracer.emit(self._id, "recv_cancel")
        if inbound is None:
            self._release()  # a running drain keeps its locals and stops at its next check
        else:
            self._schedule()

    # --------------------------------------------------------------- the drain
    def _receive(self, inbound: deque[object]) -> None:
        """Executor mode: take the queued request/cancel messages (publisher side)."""
        tracer = self._tracer
        while inbound:
            message = inbound.popleft()
            if self._done:
                continue  # rule 3.6: after the end, messages are no-ops
            if message is _CANCEL:
                self._done = True
                if tracer is not None:
                    tracer.emit(self._id, "recv_cancel")
                self._release()
            elif type(message) is int:
                if tracer is not None:
                    tracer.emit(self._id, "recv_request", n=message)
                self._requested = add_demand(self._requested, message)  # rule 3.17
            else:
                assert isinstance(message, _BadRequest)
                if tracer is not None:
                    tracer.emit(self._id, "recv_request", n=_traced_n(message.n))
                if self._bad_request is None:
                    self._bad_request = message
                    self._halt = True

    def _drain_round(self) -> bool:
        inbound = self._inbound
        if inbound:
            self._receive(inbound)
        if self._done:
            return False
        if not self._subscribed:
            self._deliver_subscribe()
            if self._done or self._cancelled:
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
                self._signal_error(exc)
                return False
            self._it = it
            self._exact = type(it) in exact_length_types
            if self._done:  # cancelled meanwhile from another thread (rule 3.13)
                self._it = None
                return False
        if self._bad_request is not None:
            self._signal_error(ValueError(self._bad_request.message))
            return False
        if self._requested == 0:
            if self._exact and operator.length_hint(it) == 0:
                self._signal_complete()
            return False
        if self._tracer is not None:
            return self._emit_traced(it)
        if self._executor is None:
            if self._requested == MAX_DEMAND:
                self._emit_unbounded(it)
            else:
                self._emit_bounded(it, self._requested)
            return False
        return self._emit_bounded(it, min(self._requested, self._batch))

    def _emit_unbounded(self, it: Iterator[T]) -> None:
        """Synchronous unbounded demand: the hot loop (rule 3.17, no accounting)."""
        subscriber = self._subscriber
        if subscriber is None:
            return
        on_next = subscriber.on_next
        try:
            for item in it:
                if self._halt:
                    break
                if item is None:
                    self._signal_error(_null_error())
                    return
                try:
                    on_next(item)
                except Exception as exc:
                    self._subscriber_raised("on_next", exc, None)
                    return
            else:
                self._signal_complete()
                return
        except Exception as exc:
            self._signal_error(exc)
            return
        if self._bad_request is not None:
            self._signal_error(ValueError(self._bad_request.message))  # rule 3.9

    def _emit_bounded(self, it: Iterator[T], limit: int) -> bool:
        """Emit up to ``limit`` elements, then take them from the demand in one step."""
        subscriber = self._subscriber
        if subscriber is None:
            return False
        on_next = subscriber.on_next
        sent = 0
        exhausted = False
        try:
            for item in it:
                if self._halt:
                    break
                if item is None:
                    self._signal_error(_null_error())
                    return False
                sent += 1
                try:
                    on_next(item)
                except Exception as exc:
                    self._subscriber_raised("on_next", exc, None)
                    return False
                if sent == limit:
                    break
            else:
                exhausted = True
        except Exception as exc:
            self._signal_error(exc)
            return False
        return self._after_batch(it, sent, exhausted)

    def _after_batch(self, it: Iterator[T], sent: int, exhausted: bool) -> bool:
        if self._executor is None:
            with self._lock:
                self._requested = take(self._requested, sent)  # rule 3.17: unbounded stays
        else:
            self._requested = take(self._requested, sent)  # the drain alone writes it
        if self._bad_request is not None:
            self._signal_error(ValueError(self._bad_request.message))  # rule 3.9
            return False
        if exhausted or (self._exact and operator.length_hint(it) == 0):
            self._signal_complete()
            return False
        if self._executor is not None and self._requested > 0 and not self._halt:
            self._executor.execute(self._drain)  # batch done, more demand: continue later
            return True
        return False

    def _emit_traced(self, it: Iterator[T]) -> bool:
        """The same protocol as the fast paths, with every event recorded."""
        tracer = self._tracer
        assert tracer is not None
        subscriber = self._subscriber
        if subscriber is None:
            return False
        sync = self._executor is None
        limit = self._requested if sync else min(self._requested, self._batch)
        sent = 0
        exhausted = False
        sid = self._id
        while limit == MAX_DEMAND or sent < limit:
            try:
                item = next(it)
            except StopIteration:
                exhausted = True
                break
            except Exception as exc:
                self._signal_error(exc)
                return False
            if item is None:
                self._signal_error(_null_error())
                return False
            with self._lock:  # commit atomically with respect to a concurrent cancel
                if self._halt:
                    break
                self._seq += 1
                seq = self._seq
                tracer.emit(sid, "send_on_next", seq=seq)
            sent += 1
            tracer.emit(sid, "begin_on_next", seq=seq)
            try:
                subscriber.on_next(item)
            except Exception as exc:
                self._subscriber_raised("on_next", exc, seq)
                return False
            tracer.emit(sid, "end_on_next", seq=seq, raised=False)
        return self._after_batch(it, sent, exhausted)

    # ------------------------------------------------------------------ signals
    def _deliver_subscribe(self) -> None:
        self._subscribed = True
        subscriber = self._subscriber
        if subscriber is None:
            return
        tracer = self._tracer
        if tracer is not None:
            tracer.emit(self._id, "send_on_subscribe")
            tracer.emit(self._id, "begin_on_subscribe")
        try:
            subscriber.on_subscribe(self)
        except Exception as exc:
            self._subscriber_raised("on_subscribe", exc, None)
            return
        if tracer is not None:
            tracer.emit(self._id, "end_on_subscribe", raised=False)

    def _finish(self, sig: str, **fields: Any) -> Subscriber[T] | None:
        """Commit a terminal signal: returns the subscriber to signal, or None."""
        with self._lock:
            if self._done or self._cancelled:
                return None
            self._done = True
            if self._tracer is not None:
                self._tracer.emit(self._id, sig, **fields)
        subscriber = self._subscriber
        self._release()  # rule 3.13 (and 1.6: terminal means cancelled)
        return subscriber

    def _signal_complete(self) -> None:
        subscriber = self._finish("send_on_complete")
        if subscriber is None:
            return
        self._call_terminal(subscriber, "on_complete", None)

    def _signal_error(self, error: BaseException) -> None:
        subscriber = self._finish(
            "send_on_error", error=_tracing.error_text(error), error_type=type(error).__name__
        )
        if subscriber is None:
            return
        self._call_terminal(subscriber, "on_error", error)

    def _call_terminal(
        self, subscriber: Subscriber[T], method: str, error: BaseException | None
    ) -> None:
        tracer = self._tracer
        if tracer is not None:
            tracer.emit(self._id, "begin_" + method)
        try:
            if error is None:
                subscriber.on_complete()
            else:
                subscriber.on_error(error)
        except Exception as exc:
            self._subscriber_raised(method, exc, None)
            return
        if tracer is not None:
            tracer.emit(self._id, "end_" + method, raised=False)

    def _subscriber_raised(self, method: str, exc: BaseException, seq: int | None) -> None:
        # rule 2.13: a subscriber that raises is cancelled and the fault logged
        _log.error(
            "rule 2.13: %s raised from %s; subscription cancelled",
            method,
            self,
            exc_info=exc,
        )
        fields: dict[str, Any] = {"raised": True} if seq is None else {"seq": seq, "raised": True}
        self._cancel(("end_" + method, fields))
