"""``amb``: the first publisher to signal wins; the others are cancelled (reactivex's
``amb``, Reactor's ``firstWithSignal``/``or``).

One :class:`~reactive_streams._core.relay.Relay` faces downstream; each source has its
own subscriber, an :class:`~reactive_streams._core.attach.Attach` slot (a cancel before
its ``on_subscribe`` cancels what arrives, rule 3.12; requests before it are added up).
Until a winner is known every request goes to every source; the first signal of any kind
(an element, an error, the completion) decides, under the hop's lock, and cancels the
others (rule 3.12); from then on only the winner is asked and its signals pass on, one
upstream's signals being serial (rule 1.3). Sources are subscribed in order after
``on_subscribe`` went downstream (rule 1.9), and no more once one won.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.attach import Attach
from .._core.relay import Relay
from .._core.subscribing import subscribe_or_fail

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")

__all__ = ["AmbPublisher"]


class _Contender(Attach):
    __slots__ = ("_parent",)

    def __init__(self, parent: _Amb[Any]) -> None:
        super().__init__(0, parent._invalid)  # rule 3.9 before the set: the hop answers
        self._parent = parent

    def on_subscribe(self, subscription: Subscription) -> None:
        self.set(subscription)  # rules 2.5, 3.12: refused and cancelled after a cancel

    def on_next(self, item: Any) -> None:
        parent = self._parent
        if parent._won(self):
            Relay.on_next(parent, item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._parent._won(self):
            self.release()  # rule 2.4: over
            self._parent._finish(error)

    def on_complete(self) -> None:
        if self._parent._won(self):
            self.release()
            self._parent._finish(None)

    def failed(self, error: Exception) -> None:
        """The source's ``subscribe`` raised (rule 1.9): an error signal of its own."""
        self.on_error(error)


class _Upstreams:
    """The relay's upstream: every contender until one won, then the winner."""

    __slots__ = ("_parent",)

    def __init__(self, parent: _Amb[Any]) -> None:
        self._parent = parent

    def request(self, n: int) -> None:
        parent = self._parent
        winner = parent._winner
        for contender in parent._contenders if winner is None else (winner,):
            contender.request(n)

    def cancel(self) -> None:
        for contender in self._parent._contenders:
            contender.cancel()


class _Amb(Relay[T, T]):
    __slots__ = ("_contenders", "_winner")

    hop = "amb"

    def __init__(self, downstream: Subscriber[T], count: int) -> None:
        super().__init__(downstream)
        self._contenders = tuple(_Contender(self) for _ in range(count))
        self._winner: _Contender | None = None
        self._upstream = _Upstreams(self)  # the constructor's own field: no race yet

    def _won(self, contender: _Contender) -> bool:
        """True for the winner's signals; the first signal decides (under the lock)."""
        winner = self._winner
        if winner is None:
            with self._lock:  # check and store are one step: one winner
                if self._winner is None:
                    self._winner = contender
                winner = self._winner
            if winner is contender:
                for other in self._contenders:
                    if other is not contender:
                        other.cancel()  # rule 3.12: the losers stop
        return winner is contender

    def _invalid(self, message: str) -> None:
        """An invalid request reached a source not yet subscribed: the core latched it
        (rule 3.9), so ending now signals its error, at once and once."""
        self._stop(None)

    def start(self, sources: Sequence[Publisher[T]]) -> None:
        self._out = self._downstream
        if not self._deliver_subscribe():  # rule 1.9: first
            return
        for source, contender in zip(sources, self._contenders, strict=True):
            if self._winner is not None or self._out is None:
                break  # decided, cancelled or ended: the rest are not subscribed
            subscribe_or_fail(source, contender, contender.failed)


class AmbPublisher:
    __slots__ = ("_sources",)

    def __init__(self, sources: Sequence[Publisher[Any]]) -> None:
        self._sources = tuple(sources)

    def __repr__(self) -> str:
        return f"<amb of {len(self._sources)}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _Amb(subscriber, len(self._sources)).start(self._sources)
