"""``Downstream``: the publisher side of one subscription, written once.

Every hop (a source, an operator, a multicast child) is a Publisher to the subscriber it
was given. This class owns that side: demand (through :mod:`reactive_streams._core.demand`
only), the bad-request latch (rule 3.9), ``request``/``cancel`` (rules 3.5 to 3.7),
on_subscribe / on_next / the terminal signal delivered at most once (1.7, 1.9), a
raising subscriber cancelled with the cancel recorded atomically with the fault (2.13),
the subscriber dropped after the end (3.13), executor rejection as on_error (1.9, 1.4)
and the trace of the subscription.

The state is one value, :class:`Pub`, named after the spec's ``pub`` variable. The
drain that emits is the subclass's (a :class:`~reactive_streams._core.serial.DrainLoop`):
``request`` and ``cancel`` record their effect under ``_lock`` and wake it; the shared
code runs per request and per terminal signal, the per-element loops stay in the
subclasses. Tracing is read once, at subscribe: with it off every ``tracer`` test is
one local ``None`` check.

Subclasses: ``IteratorSubscription`` (the sources), ``DemandDrain`` (the operators with
a drain: observe_on, flat_map, zip, reduce, the backpressure buffers) and the multicast
``Child`` (publish, replay, ref_count).
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from . import tracer as _tracing
from .demand import add_demand, check_request, take
from .serial import DrainLoop

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription

__all__ = ["NOOP", "Downstream", "Pub", "null_element_error", "null_from", "traced_n", "where"]

_log = logging.getLogger("reactive_streams")
_sched_hook: Any = None  # test-only scheduling hook (schedpoints.py); None in production

T = TypeVar("T")


class Pub(enum.Enum):
    """The spec's ``pub``: the publisher's view of one subscription."""

    IDLE = "idle"
    SUBSCRIBED = "subscribed"  # subscribe() called, on_subscribe not yet committed
    ACTIVE = "active"  # on_subscribe committed: signals may follow
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"  # the cancel was received (or a fault cancelled it)

    # members are singletons compared by identity: hash them by identity too (C-level),
    # so ``pub in DONE`` on every request and drain round calls no Python ``__hash__``
    __hash__ = object.__hash__


SUBSCRIBED: Final = Pub.SUBSCRIBED
ACTIVE: Final = Pub.ACTIVE
CANCELLED: Final = Pub.CANCELLED
DONE: Final = frozenset({Pub.COMPLETED, Pub.FAILED, Pub.CANCELLED})


class _Noop:
    """A Subscription that does nothing: a released or not yet known upstream."""

    __slots__ = ()

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


NOOP: Subscription = _Noop()


def traced_n(n: object) -> int | None:
    """The ``n`` field of a ``request`` event: the int passed, None for anything else."""
    return n if type(n) is int else None


def where(operator: str, fn: object) -> str:
    """``"map(parse)"``: an operator and its user function, for error messages."""
    return f"{operator}({getattr(fn, '__name__', None) or type(fn).__name__})"


def null_element_error(source: str = "") -> TypeError:
    """Rule 2.13: the one error for a None element; ``source`` names the operator and
    function that produced it (see ``where``)."""
    if source:
        return TypeError(f"rule 2.13: {source}: returned None, and on_next(None) is not allowed")
    return TypeError("rule 2.13: a publisher must not signal on_next(None)")


def null_from(it: object) -> TypeError:
    """``null_element_error`` for a None pulled from ``it`` (a fused map names itself)."""
    source = getattr(it, "_where", "")
    return null_element_error(source if isinstance(source, str) else "")


class Downstream(DrainLoop, Generic[T]):
    """The Subscription given to ``downstream``; subclasses drain (``_drain_round``)."""

    __slots__ = (
        "_bad",
        "_cancel_called",
        "_downstream",
        "_inbound",
        "_pub",
        "_requested",
        "_seq",
        "_sid",
        "_tracer",
    )

    def __init__(self, downstream: Subscriber[T], hop: str, queued: bool = False) -> None:
        super().__init__()
        self._downstream: Subscriber[T] | None = downstream
        # queued: requests wait in ``_inbound`` until the drain receives them (``_receive``)
        self._inbound: deque[object] | None = deque() if queued else None
        self._pub = SUBSCRIBED
        self._requested = 0
        self._bad: str | None = None  # rule 3.9: the first invalid request's message
        self._cancel_called = False  # rule 2.13: a raise after a cancel owes no cancel
        self._seq = 0
        tracer = _tracing._tracer
        self._tracer = tracer
        self._sid = 0
        if tracer is not None:
            self._sid = tracer.new_subscription_id()
            tracer.emit(self._sid, "subscribe", hop=hop)

    @property
    def subscription_id(self) -> int:
        """The id used in trace events (0 when tracing was off at subscribe)."""
        return self._sid

    # ------------------------------------------------------- hooks of the drain
    def _work(self) -> bool:
        """Under ``_lock``: record one unit of work; True if the caller must wake the drain."""
        wip = self._wip
        self._wip = wip + 1
        return wip == 0

    def _wake(self, cancel: bool) -> None:
        """Run (or schedule) the drain after ``_work`` said so; ``cancel``: for a cancel."""
        self._drain()

    # ---------------------------------------------------------- Subscription API
    def request(self, n: int) -> None:
        _sched_hook is not None and _sched_hook("request.enter", self)
        message = check_request(n) if type(n) is not int or n <= 0 else None
        tracer = self._tracer
        with self._lock:  # the call is recorded atomically with its effect (rule 2.13)
            if tracer is not None:
                tracer.emit(self._sid, "request", n=traced_n(n))
            if self._pub in DONE:
                wake = False  # rule 3.6
            else:
                if self._inbound is not None:
                    self._inbound.append(n)
                else:
                    self._receive_request(n, message)
                wake = self._work()
        if wake:
            self._wake(False)
        if tracer is not None:
            tracer.emit(self._sid, "end_request")  # the call returns (rules 2.7, 3.3)

    def cancel(self) -> None:
        self._cancel(None)

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None) -> None:
        """Cancel; ``fault`` = (end event, its fields) of a subscriber method that raised,
        recorded atomically with the cancel, so no request is received after it (2.13)."""
        _sched_hook is not None and _sched_hook("cancel.enter", self)
        tracer = self._tracer
        with self._lock:
            if fault is not None and self._cancel_called:
                # rule 2.13 is met: the Subscriber cancelled before it raised (3.7)
                if tracer is not None:
                    tracer.emit(self._sid, fault[0], **fault[1])
                return
            self._cancel_called = True
            if tracer is not None:
                if fault is not None:
                    tracer.emit(self._sid, fault[0], **fault[1])
                tracer.emit(self._sid, "cancel")
            if self._pub in DONE:
                wake = False  # rules 3.5, 3.7
            else:
                if self._inbound:
                    self._receive_queued()  # FIFO: requests made before the cancel first
                self._receive_cancel()  # at once, queued or not: emission stops (rule 3.12)
                wake = self._work()
        if wake:
            self._wake(True)  # the drain releases upstream (rule 3.12)
        if tracer is not None:
            tracer.emit(self._sid, "end_cancel")  # the call returns (rules 2.7, 3.5)

    def _receive_request(self, n: Any, message: str | None) -> None:
        if self._tracer is not None:
            self._tracer.emit(self._sid, "recv_request", n=traced_n(n))
        if message is None:
            self._requested = add_demand(self._requested, int(n))  # rule 3.17
        elif self._bad is None:
            self._bad = message  # rule 3.9: on_error from the drain, never raised here

    def _receive_cancel(self) -> None:
        self._pub = CANCELLED
        if self._tracer is not None:
            self._tracer.emit(self._sid, "recv_cancel")
        self._downstream = None  # rule 3.13

    def _receive(self) -> None:
        """The drain takes the queued requests (publisher side)."""
        if self._inbound:
            with self._lock:
                self._receive_queued()

    def _receive_queued(self) -> None:
        inbound = self._inbound
        while inbound:
            call = inbound.popleft()
            if self._pub not in DONE:  # rule 3.6
                self._receive_request(call, check_request(call))

    # ------------------------------------------------- signals (from the drain)
    def _stopped(self) -> bool:
        """Nothing more may be emitted: cancelled, finished, or an invalid request waits."""
        return self._pub is not ACTIVE or self._bad is not None

    def _deliver_subscribe(self, subscription: Subscription | None = None) -> bool:
        """Rule 1.9: ``on_subscribe`` first, once (``subscription`` defaults to ``self``);
        True if the subscription is active afterwards."""
        if self._pub is not SUBSCRIBED:
            return self._pub is ACTIVE
        self._pub = ACTIVE
        downstream = self._downstream
        if downstream is None:
            return False
        tracer = self._tracer
        if tracer is not None:
            tracer.emit(self._sid, "send_on_subscribe")
            tracer.emit(self._sid, "begin_on_subscribe")
        try:
            downstream.on_subscribe(self if subscription is None else subscription)
        except Exception as exc:
            self._raised("on_subscribe", exc, None)
            return False
        if tracer is not None:
            tracer.emit(self._sid, "end_on_subscribe", raised=False)
        return self._pub is ACTIVE  # on_subscribe may have cancelled

    def _next_traced(self, downstream: Subscriber[T], item: T) -> bool:
        """One traced on_next, committed atomically against a concurrent cancel; False
        when emission must stop (cancelled meanwhile, or the subscriber raised)."""
        tracer = self._tracer
        assert tracer is not None
        sid = self._sid
        with self._lock:
            if self._pub is not ACTIVE or self._bad is not None:
                return False  # cancelled, or rule 3.9: its error is due instead
            self._seq += 1
            seq = self._seq
            tracer.emit(sid, "send_on_next", seq=seq)
        tracer.emit(sid, "begin_on_next", seq=seq)
        try:
            downstream.on_next(item)
        except Exception as exc:
            self._raised("on_next", exc, seq)
            return False
        tracer.emit(sid, "end_on_next", seq=seq, raised=False)
        return True

    def _send(self, downstream: Subscriber[T], item: T) -> bool:
        """One on_next, traced or not; False when emission must stop (a raise, 2.13)."""
        if self._tracer is None:
            try:
                downstream.on_next(item)
            except Exception as exc:
                self._next_raised(exc)
                return False
            return True
        return self._next_traced(downstream, item)

    def _next_raised(self, exc: BaseException) -> None:
        """An untraced on_next raised (rule 2.13)."""
        self._raised("on_next", exc, None)

    def _delivered(self, k: int) -> None:
        """``k`` elements were sent: take them from the demand (rule 3.17: MAX stays) and
        from the task's budget (fairness: the drain loop yields when it is spent)."""
        if k:
            self._budget -= k  # _spend, without its call: once per batch or flat_map inner
            _sched_hook is not None and _sched_hook("demand.take", self)
            with self._lock:
                self._requested = take(self._requested, k)

    def _continue(self) -> bool:
        # an ended subscription has nothing left to emit: no continuation task
        return self._pub is ACTIVE and super()._continue()

    def _finish(self, error: BaseException | None) -> bool:
        """Send ``on_error(error)`` or, for None, ``on_complete`` (rules 1.4, 1.5): at most
        once (1.7), after on_subscribe (1.9); False when the subscription already ended."""
        if self._pub is SUBSCRIBED:
            self._deliver_subscribe()
        if self._inbound:
            self._receive()  # calls made before the end are received first
        tracer = self._tracer
        with self._lock:
            if self._pub is not ACTIVE:
                return False
            if self._bad is not None:  # read under the lock: a request(0) may race the end
                error = ValueError(self._bad)  # rule 3.9 wins over the source's own end
            if error is None:
                self._pub = Pub.COMPLETED
                if tracer is not None:
                    tracer.emit(self._sid, "send_on_complete")
            else:
                self._pub = Pub.FAILED
                if tracer is not None:
                    tracer.emit(
                        self._sid,
                        "send_on_error",
                        error=_tracing.error_text(error),
                        error_type=_tracing.error_type(error),  # rule 3.9 is told by type
                    )
            downstream, self._downstream = self._downstream, None  # rule 3.13
        self._released()  # rule 1.6: after a terminal signal the subscription is cancelled
        if downstream is None:
            return True
        method = "on_complete" if error is None else "on_error"
        if tracer is not None:
            tracer.emit(self._sid, "begin_" + method)
        try:
            if error is None:
                downstream.on_complete()
            else:
                downstream.on_error(error)
        except Exception as exc:
            self._raised(method, exc, None)
            return True
        if tracer is not None:
            tracer.emit(self._sid, "end_" + method, raised=False)
        return True

    def _answer_bad_request(self) -> bool:
        """Rule 3.9: signal the latched invalid request's error; False if there is none."""
        if self._bad is None:
            return False
        self._finish(ValueError(self._bad))
        return True

    def _released(self) -> None:
        """The subscription ended (terminal sent): drop what the hop holds (rule 3.13)."""

    def _rejected(self, error: Exception) -> None:
        # rule 1.9 then 1.4: the drain is still ours, so signal here, on the caller's thread
        _log.error("%r: the executor rejected the drain task", self, exc_info=error)
        self._finish(error)

    def _raised(self, method: str, exc: BaseException, seq: int | None) -> None:
        # rule 2.13: a subscriber that raises is cancelled and the fault logged
        _log.error(
            "rule 2.13: %s raised from %r; subscription cancelled", method, self, exc_info=exc
        )
        fields: dict[str, Any] = {"raised": True} if seq is None else {"seq": seq, "raised": True}
        self._cancel(("end_" + method, fields))
