"""Bases of the operators that emit from their own drain loop (buffers, zip, reduce,
flat_map, observe_on) and of their inner subscribers.

The downstream side (demand, rule 3.9, request/cancel, on_subscribe and the terminal
signal once, 2.13, 3.13, the trace of the hop) is the core
:class:`~reactive_streams._core.downstream.Downstream`. ``DemandDrain`` adds the drain
rounds: the first delivers ``on_subscribe`` (rule 1.9, from the drain: 1.3), a cancel or
the end releases upstream (3.12, 3.13); the subclasses emit (``_round``).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from .._core.attach import Attach
from .._core.demand import MAX_DEMAND
from .._core.downstream import ACTIVE, DONE, SUBSCRIBED, Downstream
from .._core.serial import SerialSubscription
from ._base import CANCELLED

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription

R = TypeVar("R")

__all__ = ["DemandDrain", "DrainedOperator", "QueuedInner", "UnboundedUpstream"]


class _InnerParent(Protocol):
    _prefetch: int

    def _signal(self) -> None: ...


P = TypeVar("P", bound=_InnerParent)


class QueuedInner(Attach, Generic[P, R]):
    """The subscriber of one inner source (flat_map, zip): asks for the parent's
    ``prefetch`` and queues the elements for the parent's drain. It is its inner's
    subscription slot (``Attach``): a cancel that comes before the inner's
    ``on_subscribe`` cancels what arrives (rule 3.12), the prefetch is asked at the set,
    and calls from ``on_subscribe``'s thread and the parent's drain are serial (2.7)."""

    __slots__ = ("_parent", "done", "queue")

    def __init__(self, parent: P) -> None:
        super().__init__(parent._prefetch)  # asked when the inner's subscription is set
        self._parent: P | None = parent
        self.queue: deque[R] = deque()
        self.done = False

    def on_subscribe(self, subscription: Subscription) -> None:
        self.set(subscription)  # rules 2.5, 3.12: refused and cancelled after a cancel

    def on_next(self, item: R) -> None:
        parent = self._parent
        if parent is not None:
            self.queue.append(item)
            parent._signal()

    def cancel(self) -> None:
        self._parent = None
        self.queue.clear()
        Attach.cancel(self)


class _Stopped(Exception):
    """A traced ``on_next`` that must stop the emission (cancelled, the subscriber
    raised, or rule 3.9's error is due); already handled by the core."""


class DemandDrain(Downstream[R]):
    """``Downstream`` plus drain rounds. Upstream's ``on_subscribe`` goes to ``_accept``;
    every signal from upstream or an inner records itself and calls ``_signal``."""

    __slots__ = ("_error", "_upstream")

    def __init__(self, downstream: Subscriber[R], hop: str) -> None:
        super().__init__(downstream, hop)
        self._upstream: Subscription = CANCELLED
        self._error: BaseException | None = None  # upstream's (or an inner's) error

    def _signal(self) -> None:
        if self._enter():
            self._wake(False)

    def _accept(self, subscription: Subscription) -> bool:
        """Upstream's ``on_subscribe``: keep the first subscription and start the drain
        (it delivers ``on_subscribe`` downstream); False when ``subscription`` was refused."""
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not CANCELLED or self._pub is not SUBSCRIBED:
            subscription.cancel()  # rule 2.5
            return False
        # the drain's calls and those on upstream's thread are serial (rule 2.7)
        self._upstream = SerialSubscription(subscription)
        self._signal()
        return True

    def _opened(self) -> None:
        """``on_subscribe`` was delivered and the subscription is active: ask upstream."""

    def _late(self) -> None:
        """An element after the cancel: make the queued cancel from inside the emission."""
        self._upstream.cancel()

    def _released(self) -> None:
        # cancelled or ended: drop the subscriber and buffers, cancel upstream (3.12, 3.13)
        self._downstream = None
        self._upstream.cancel()  # serial: made at once, or queued for upstream's thread
        self._clear()

    def _clear(self) -> None:
        """Drop buffered elements."""

    def _sender(self, downstream: Subscriber[R]) -> Callable[[R], object]:
        """The per-element call: ``downstream.on_next`` itself, or (traced) the core's
        ``_next_traced``, which raises ``_Stopped`` when the emission must stop."""
        if self._tracer is None:
            return downstream.on_next
        return functools.partial(self._send_traced, downstream)

    def _send_traced(self, downstream: Subscriber[R], item: R) -> None:
        if not self._next_traced(downstream, item):
            raise _Stopped

    def _next_raised(self, exc: BaseException) -> None:
        if type(exc) is not _Stopped:
            super()._next_raised(exc)  # rule 2.13: cancelled, the fault recorded with it

    def _drain_round(self) -> bool:
        pub = self._pub
        if pub is not ACTIVE and not (pub is SUBSCRIBED and self._open()):
            self._released()
            return False
        if self._answer_bad_request():  # rule 3.9
            return False
        return self._round()

    def _open(self) -> bool:
        if not self._deliver_subscribe():  # rule 1.9: first
            return False
        self._opened()
        return self._pub is ACTIVE

    def _round(self) -> bool:
        """Emit what demand allows; True after scheduling a continuation of the drain."""
        raise NotImplementedError


class DrainedOperator(DemandDrain[R]):
    """Subclasses implement ``_emit(on_next, requested)``: deliver what demand allows and
    return the number of elements sent; and set ``_done``/``_error`` when upstream ends."""

    __slots__ = ("_done",)

    def __init__(self, downstream: Subscriber[R], hop: str) -> None:
        super().__init__(downstream, hop)
        self._done = False  # upstream ended (its error in ``_error``)

    def _emit(self, on_next: Callable[[R], object], requested: int) -> int:
        raise NotImplementedError

    def _ready_to_complete(self) -> bool:
        return self._done

    def _round(self) -> bool:
        downstream = self._downstream
        if downstream is None:
            return False
        try:
            emitted = self._emit(self._sender(downstream), self._requested)
        except Exception as exc:
            self._next_raised(exc)
            return False
        self._delivered(emitted)
        if self._pub is ACTIVE and self._ready_to_complete():
            self._finish(self._error)  # rule 3.9's error instead, if one is due
        return False


class UnboundedUpstream(DrainedOperator[R]):
    """A drained operator that consumes everything upstream has (reduce, the buffers)."""

    __slots__ = ()

    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def _opened(self) -> None:
        self._upstream.request(MAX_DEMAND)  # rule 3.17: effectively unbounded

    def _stopped_upstream(self) -> bool:
        """An element after the end or the cancel: ignored (rule 2.8)."""
        if self._done or self._pub in DONE:
            self._late()  # the cancel takes effect now
            return True
        return False

    def _fail(self, error: BaseException) -> None:
        """Fail from inside on_next (a user function, an overflow): cancel upstream."""
        self._done = True
        self._error = error
        self._upstream.cancel()
        self._signal()

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
