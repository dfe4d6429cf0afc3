"""Bases of the operators that emit from their own drain loop (buffers, zip, reduce,
flat_map, observe_on) and of their inner subscribers.

Downstream demand lives here (rules 3.9, 3.17); every downstream signal is sent by the
drain, never concurrently (rule 1.3, the core ``DrainLoop``); ``cancel`` is handled by
the drain, which cancels upstream and drops references (rules 3.12, 3.13).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from .._demand import MAX_DEMAND, add_demand, check_request, take
from .._serial import DrainLoop, SerialSubscription
from ._base import CANCELLED

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription

_log = logging.getLogger("reactive_streams")

R = TypeVar("R")

__all__ = ["DemandDrain", "DrainedOperator", "QueuedInner", "UnboundedUpstream"]


class _InnerParent(Protocol):
    _prefetch: int

    def _signal(self) -> None: ...


P = TypeVar("P", bound=_InnerParent)


class QueuedInner(Generic[P, R]):
    """The subscriber of one inner source (flat_map, zip): asks for the parent's
    ``prefetch`` and queues the elements for the parent's drain."""

    __slots__ = ("_parent", "done", "queue", "subscription")

    def __init__(self, parent: P) -> None:
        self._parent: P | None = parent
        self.queue: deque[R] = deque()
        self.done = False
        self.subscription: Subscription = CANCELLED

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        parent = self._parent
        if self.subscription is not CANCELLED or parent is None:
            subscription.cancel()  # rule 2.5
            return
        self.subscription = subscription
        subscription.request(parent._prefetch)

    def on_next(self, item: R) -> None:
        parent = self._parent
        if parent is not None:
            self.queue.append(item)
            parent._signal()

    def cancel(self) -> None:
        self._parent = None
        self.queue.clear()
        subscription, self.subscription = self.subscription, CANCELLED
        subscription.cancel()


class DemandDrain(DrainLoop, Generic[R]):
    """The downstream side shared by every operator with a drain: ``request`` adds demand
    and drains if nobody is (rules 3.9, 3.17); ``cancel`` is left to the drain (3.5, 3.13).
    ``_run_drain`` starts a drain after ``request`` took ``_wip`` from 0."""

    __slots__ = (
        "_bad_request",
        "_cancelled",
        "_downstream",
        "_error",
        "_finished",
        "_requested",
        "_upstream",
    )

    def __init__(self, downstream: Subscriber[R]) -> None:
        super().__init__()
        self._downstream: Subscriber[R] | None = downstream
        self._upstream: Subscription = CANCELLED
        self._requested = 0
        self._error: BaseException | None = None
        self._cancelled = False
        self._finished = False
        self._bad_request: str | None = None

    _run_drain = DrainLoop._drain  # inline, on the requesting thread (trampolined)

    def _signal(self) -> None:
        if self._enter():
            self._drain()

    def _reject(self, message: str) -> None:
        self._bad_request = message  # rule 3.9: on_error from the drain
        self._signal()

    def request(self, n: int) -> None:
        if type(n) is not int or n <= 0:
            message = check_request(n)
            if message is not None:
                self._reject(message)
                return
        with self._lock:
            self._requested = add_demand(self._requested, n)  # rule 3.17
            wip = self._wip
            self._wip = wip + 1
        if wip == 0:
            self._run_drain()

    def cancel(self) -> None:
        if self._cancelled:
            return  # rule 3.5
        self._cancelled = True
        self._signal()

    def _accept(self, subscription: Subscription) -> bool:
        """Upstream's ``on_subscribe``: keep the first subscription and pass ``self``
        downstream; False when ``subscription`` was refused."""
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not CANCELLED or self._finished:
            subscription.cancel()  # rule 2.5
            return False
        # on_subscribe's first request and the drain's calls are serial (rule 2.7)
        self._upstream = SerialSubscription(subscription)
        downstream = self._downstream
        if downstream is not None:
            try:
                downstream.on_subscribe(self)
            except Exception:
                self.cancel()  # rule 2.13: the drain releases it (3.13); upstream is told
                raise
        return True


class DrainedOperator(DemandDrain[R]):
    """Subclasses implement ``_emit(downstream)``: deliver what demand allows, return
    the number of elements sent; and set ``_done``/``_error`` when upstream ends."""

    __slots__ = ("_done",)

    def __init__(self, downstream: Subscriber[R]) -> None:
        super().__init__(downstream)
        self._done = False

    def _cancel_upstream(self) -> None:
        self._upstream.cancel()  # serial: queued while another thread calls upstream

    def _late(self) -> None:
        """An element after the cancel: make the queued cancel from inside the emission."""
        self._upstream.cancel()

    def _release(self) -> None:
        self._finished = True
        self._downstream = None  # rule 3.13
        self._cancel_upstream()
        self._clear()

    def _clear(self) -> None:
        """Drop buffered elements."""

    def _emit(self, downstream: Subscriber[R], requested: int) -> int:
        raise NotImplementedError

    def _ready_to_complete(self) -> bool:
        return self._done

    def _drain_round(self) -> bool:
        if self._finished:
            self._clear()
            return False
        downstream = self._downstream
        if downstream is None:
            return False
        if self._cancelled:
            self._release()
            return False
        if self._bad_request is not None:
            self._error = ValueError(self._bad_request)
            self._done = True
            self._clear()
        try:
            emitted = self._emit(downstream, self._requested)
        except Exception as exc:
            _log.error("rule 2.13: on_next raised; subscription cancelled", exc_info=exc)
            self._release()
            return False
        if emitted:
            with self._lock:
                self._requested = take(self._requested, emitted)  # rule 3.17
        if self._cancelled:
            self._release()
            return False
        if self._bad_request is not None and self._error is None:
            return False  # rule 3.9: requested meanwhile; the next round signals on_error
        if self._ready_to_complete():
            error = self._error
            self._release()
            try:
                if error is not None:
                    downstream.on_error(error)
                else:
                    downstream.on_complete()
            except Exception as exc:
                _log.error("rule 2.13: terminal signal raised", exc_info=exc)
        return False


class UnboundedUpstream(DrainedOperator[R]):
    """A drained operator that consumes everything upstream has (reduce, the buffers)."""

    __slots__ = ()

    def on_subscribe(self, subscription: Subscription) -> None:
        if self._accept(subscription) and not self._cancelled:
            self._upstream.request(MAX_DEMAND)  # rule 3.17: effectively unbounded

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._done:
            return
        self._error = error
        self._done = True
        self._signal()

    def on_complete(self) -> None:
        if self._done:
            return
        self._done = True
        self._signal()
