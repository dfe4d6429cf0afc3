"""``Relay``: the downstream core of a pass-through hop (map, filter, take, subscribe_on...).

A pass-through hop is one object: the Subscriber of its upstream and, through the
:class:`~reactive_streams._core.downstream.Downstream` core, the Subscription of its
downstream. The core records every call and signal (and the hop's trace); a relay adds
only what differs from a source: a request is forwarded upstream (``_forward``) instead
of being added to local demand, and a cancel cancels upstream. Upstream's signals never
overlap (rule 1.3), so the relay passes them on serially without a drain of its own.

Per element there is one path, ``Relay.on_next``: ``_out`` (the downstream while
elements may pass, else None), the hop's own step ``_apply`` (returns the element to
send, or ``SKIP``), and the core's send (``Downstream._send``: with tracing off a direct
``on_next``, a raise being the rule 2.13 fault; with tracing on ``_next_traced``).
"""

from __future__ import annotations

import enum
from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar

from .downstream import ACTIVE, NOOP, SUBSCRIBED, Downstream, traced_n
from .inline import inline_on_next
from .serial import SerialSubscription

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription

__all__ = ["SKIP", "Relay", "SkipMarker"]


class SkipMarker(enum.Enum):
    """``SKIP``, returned by ``_apply``: nothing is sent for this element (dropped, or
    the hop ended)."""

    SKIP = "skip"


SKIP: Final = SkipMarker.SKIP

T = TypeVar("T")
R = TypeVar("R")


class Relay(Downstream[R], Generic[T, R]):
    """Subscriber of ``T`` upstream, Subscription downstream, emitting ``R``.

    ``hop`` (class attribute) is the name recorded in the trace (contract: the Flow
    method). Subclasses define ``on_next`` and may override ``_forward``.
    """

    __slots__ = ("_calls", "_out", "_upstream")

    hop: ClassVar[str] = "operator"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_apply" in cls.__dict__ and "on_next" not in cls.__dict__:
            generated = inline_on_next(cls, _composed, Downstream._send)
            cls.on_next = generated or _composed  # type: ignore[method-assign]

    def __init__(self, downstream: Subscriber[R]) -> None:
        super().__init__(downstream, self.hop)
        self._upstream: Subscription = NOOP
        self._out: Subscriber[R] | None = None  # the downstream while elements may pass
        self._calls: deque[Any] = deque()  # requests received, to forward upstream

    def __repr__(self) -> str:
        return f"<{self.hop} hop {self._sid or hex(id(self))}>"

    # --------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not NOOP or self._pub is not SUBSCRIBED:
            subscription.cancel()  # rule 2.5: one active subscription
            return
        # the hop's own calls and the forwarded ones are serial (rule 2.7)
        self._upstream = SerialSubscription(subscription)
        self._out = self._downstream
        if self._deliver_subscribe():  # a raise cancels this hop, and so upstream (2.13)
            self._opened()

    def _opened(self) -> None:
        """``on_subscribe`` was delivered and the subscription is active: the hop's own
        first request upstream, if any (never for a refused subscription: rule 2.5)."""

    def on_next(self, item: T) -> None:
        """The one per-element path: the hop's ``_apply``, then the core's send. Each
        hop's class gets this with both inlined (``_core.inline``): no call per element."""
        downstream = self._out
        if downstream is None:
            self._late()  # rule 2.8: ignored; a cancel takes effect now
            return
        value = self._apply(item)
        if value is not SKIP:
            self._send(downstream, value)

    def _apply(self, item: T) -> R | SkipMarker:
        """The hop's step for one element: what to send, or ``SKIP`` (pass-through here)."""
        return item  # type: ignore[return-value]  # T is R for a pass-through hop

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._finish(error)  # once (1.7); rule 3.9's error wins

    def on_complete(self) -> None:
        self._finish(None)  # rule 3.9: on_error instead after an invalid request

    # ------------------------------------------------------- the core's hooks
    def _work(self) -> bool:
        return True  # no drain: a request or cancel acts in the call

    def _receive_request(self, n: Any, message: str | None) -> None:
        if self._tracer is not None:
            self._tracer.emit(self._sid, "recv_request", n=traced_n(n))
        if message is not None and self._bad is None:
            self._bad = message  # rule 3.9: nothing more passes; the terminal is its error
            self._out = None
        self._calls.append(n)  # forwarded by ``_wake``, outside the lock

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._out = None  # rule 3.13

    def _released(self) -> None:
        self._out = None  # rule 3.13

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._upstream.cancel()  # serial: queued while another thread calls upstream
            return
        calls = self._calls
        while calls:
            try:
                n = calls.popleft()
            except IndexError:  # taken by a concurrent call
                return
            self._forward(n)

    def _forward(self, n: Any) -> None:
        """A downstream ``request(n)``, passed upstream (which applies 3.9 and 3.17 too)."""
        self._upstream.request(n)

    # ---------------------------------------------------------------- helpers
    def _late(self) -> None:
        """An element while nothing passes. After an invalid request (rule 3.9) the hop
        ends with its error, from this emission (serial with upstream's signals);
        after a cancel, upstream may still emit (the cancel queued behind a request on
        another thread): cancel from inside the emission, so an endless source stops."""
        if self._bad is not None and self._pub is ACTIVE:
            self._stop(None)
        else:
            self._upstream.cancel()

    def _stop(self, error: BaseException | None) -> None:
        """End before upstream does: cancel upstream, then the terminal signal (once)."""
        self._upstream.cancel()
        self._finish(error)

    def _fail(self, error: BaseException) -> None:
        """A user function raised: cancel upstream, signal ``error`` downstream."""
        self._stop(error)

    def _complete_early(self) -> None:
        """Stop before upstream ends (take, take_while): cancel upstream, complete."""
        self._stop(None)


_composed = Relay.on_next  # the template, and the path when no source can be inlined
Relay.on_next = inline_on_next(Relay, _composed, Downstream._send) or _composed  # type: ignore[method-assign]
