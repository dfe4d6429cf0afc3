"""``merge_sequential``: every publisher subscribed at once, their elements emitted in
publisher order (Reactor's ``mergeSequential``): the first one's, then the second's...

A :class:`~._zip.LinkedDrain` over one :class:`~._zip.LinkedInner` per publisher (each
asks for ``prefetch`` and is replenished at 75 % as the drain delivers, so at most
``prefetch`` elements wait per publisher). The drain emits from the current publisher's
queue under demand (rule 1.1) and moves on when it completed with nothing left; the
first error from any publisher cancels the others and passes at once (eager, as
``merge``); the end cancels every inner (rules 3.13, 1.8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.downstream import ACTIVE
from ._zip import LinkedDrain, LinkedInner, subscribe_inners

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")

__all__ = ["MergeSequentialPublisher"]


class _MergeSequential(LinkedDrain[T]):
    __slots__ = ("_index", "_inners", "_prefetch")

    def __init__(self, downstream: Subscriber[T], count: int, prefetch: int) -> None:
        super().__init__(downstream, "merge_sequential")
        self._prefetch = prefetch
        self._inners = [LinkedInner(self, prefetch, i) for i in range(count)]
        self._index = 0  # the publisher being emitted (the drain's own field)

    def _advance(self) -> LinkedInner | None:
        """The current inner, past those that completed with nothing left."""
        inners = self._inners
        while self._index < len(inners):
            inner: LinkedInner = inners[self._index]
            if not (inner.done and not inner.queue):
                return inner
            self._index += 1
        return None

    def _ready_to_complete(self) -> bool:
        return self._error is not None or self._advance() is None

    def _emit(self, on_next: Callable[[T], object], requested: int) -> int:
        emitted = 0
        while emitted != requested and self._error is None:
            inner = self._advance()
            if inner is None or not inner.queue:
                break
            item = inner.queue.popleft()
            inner.consumed_one()  # 75 % replenishment
            emitted += 1
            on_next(item)
            if self._pub is not ACTIVE:
                break  # rule 3.12: cancelled from inside on_next
        return emitted


class MergeSequentialPublisher:
    __slots__ = ("_prefetch", "_sources")

    def __init__(self, sources: Sequence[Publisher[Any]], prefetch: int) -> None:
        self._sources = tuple(sources)
        self._prefetch = prefetch

    def __repr__(self) -> str:
        return f"<merge_sequential of {len(self._sources)}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop: _MergeSequential[Any] = _MergeSequential(
            subscriber, len(self._sources), self._prefetch
        )
        subscribe_inners(hop, self._sources, hop._inners)
