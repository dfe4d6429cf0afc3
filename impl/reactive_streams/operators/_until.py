"""``take_until(other)`` and ``skip_until(other)``: a second publisher opens or closes
the flow.

Both are :class:`~._zip.LinkedDrain` hops over two inners: ``other``'s subscriber (a
trigger: asks for one element) is subscribed first, then the main flow's
(:class:`~._zip.LinkedInner`: ``prefetch``, replenished at 75 %). The trigger fires at
``other``'s first element or at its completion, as Reactor's ``takeUntilOther`` /
``skipUntilOther``; ``other``'s error before it fired fails the stream. Main elements
wait in the inner's queue for demand (rule 1.1); the end cancels both (rules 3.13, 1.8).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.attach import Attach
from .._core.downstream import ACTIVE
from .._core.subscribing import subscribe_or_fail
from ._zip import LinkedDrain, LinkedInner

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")

__all__ = ["UntilPublisher"]


class _Trigger(Attach):
    """The subscriber of ``other``: one element asked; its first element or its
    completion fires the parent, once; an error before that fails the parent."""

    __slots__ = ("_parent",)

    def __init__(self, parent: _Until[Any]) -> None:
        super().__init__(1)  # asked at the set: one element is all it takes
        self._parent: _Until[Any] | None = parent

    def on_subscribe(self, subscription: Subscription) -> None:
        self.set(subscription)  # rules 2.5, 3.12: refused and cancelled after a cancel

    def _fire(self) -> None:
        parent, self._parent = self._parent, None  # once (rule 2.8 after that)
        if parent is not None:
            parent._fire()

    def on_next(self, item: Any) -> None:
        self._fire()
        self.cancel()  # rule 3.12: nothing more is needed from other

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        parent, self._parent = self._parent, None
        if parent is not None:
            parent._inner_failed(parent._main, error)

    def on_complete(self) -> None:
        self.release()  # rule 2.4: over, nothing to cancel
        self._fire()

    def failed(self, error: Exception) -> None:
        """``other.subscribe`` raised (rule 1.9): the parent fails with it."""
        self.on_error(error)
        self.cancel()

    def cancel(self) -> None:
        self._parent = None
        Attach.cancel(self)


class _Until(LinkedDrain[T]):
    """``_fired``: the trigger fired (set once, False to True, by ``other``'s thread)."""

    __slots__ = ("_fired", "_inners", "_main", "_prefetch", "_trigger")

    def __init__(self, downstream: Subscriber[T], hop: str, prefetch: int) -> None:
        super().__init__(downstream, hop)
        self._prefetch = prefetch
        self._fired = False
        self._main = self._main_inner(prefetch)
        self._trigger = _Trigger(self)
        self._inners: list[Any] = [self._main, self._trigger]

    def _main_inner(self, prefetch: int) -> LinkedInner:
        return LinkedInner(self, prefetch)

    def _fire(self) -> None:
        self._fired = True
        self._signal()

    def _passing(self) -> bool:
        raise NotImplementedError

    def _emit(self, on_next: Callable[[T], object], requested: int) -> int:
        main = self._main
        queue = main.queue
        emitted = 0
        while emitted != requested and queue and self._error is None and self._passing():
            item = queue.popleft()
            main.consumed_one()  # 75 % replenishment
            emitted += 1
            on_next(item)
            if self._pub is not ACTIVE:
                break  # rule 3.12: cancelled from inside on_next
        return emitted

    def _ready_to_complete(self) -> bool:
        main = self._main
        return self._error is not None or (main.done and not main.queue)


class _TakeUntil(_Until[T]):
    __slots__ = ()

    def _passing(self) -> bool:
        return not self._fired

    def _ready_to_complete(self) -> bool:
        return self._fired or super()._ready_to_complete()


class _Gated(LinkedInner):
    """The main flow's subscriber under ``skip_until``: an element that arrives before
    the trigger fired is dropped at once, and replaced upstream (75 % replenishment)."""

    __slots__ = ()

    def on_next(self, item: Any) -> None:
        parent = self._parent
        if parent is None:
            return  # rule 2.8: cancelled
        if parent._fired:
            self.queue.append(item)
            parent._signal()
        else:
            self.consumed_one()  # dropped: its place is asked again


class _SkipUntil(_Until[T]):
    __slots__ = ()

    def _main_inner(self, prefetch: int) -> LinkedInner:
        return _Gated(self, prefetch)

    def _passing(self) -> bool:
        return True  # the queue holds only elements that arrived after the trigger


class UntilPublisher:
    """``take_until`` (``skip`` False) or ``skip_until`` (``skip`` True)."""

    __slots__ = ("_hop", "_other", "_prefetch", "_skip", "_source")

    def __init__(
        self, source: Publisher[Any], other: Publisher[Any], skip: bool, prefetch: int
    ) -> None:
        self._source = source
        self._other = other
        self._skip = skip
        self._prefetch = prefetch
        self._hop = "skip_until" if skip else "take_until"

    def __repr__(self) -> str:
        return f"<{self._hop} of {self._source!r}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        kind = _SkipUntil if self._skip else _TakeUntil
        hop: _Until[Any] = kind(subscriber, self._hop, self._prefetch)
        hop._signal()  # rule 1.9: on_subscribe downstream before any source can signal
        trigger, main = hop._trigger, hop._main
        subscribe_or_fail(self._other, trigger, trigger.failed)  # other first: it may fire
        if hop._pub is ACTIVE and hop._error is None and not (hop._fired and not self._skip):
            subscribe_or_fail(self._source, main, main.failed)
        hop._signal()
