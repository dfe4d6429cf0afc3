"""``zip``: combine the n-th elements of several publishers into tuples.

Each source is asked for ``prefetch`` elements and replenished at 75 %; a tuple is
emitted when every source has an element queued and there is demand. Completion comes
when a source has completed with nothing queued (the others are cancelled); an error
from any source cancels the others and is signalled at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE
from .._subscribing import subscribe_or_fail
from ._drained import DrainedOperator, QueuedInner
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")

__all__ = ["ZipPublisher"]


class _ZipInner(QueuedInner["_Zip", Any]):
    __slots__ = ("_consumed", "_limit")

    def __init__(self, parent: _Zip, prefetch: int) -> None:
        super().__init__(parent)
        self._limit = replenish_size(prefetch)
        self._consumed = 0

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        parent = self._parent
        if parent is not None and parent._error is None:
            parent._error = error
            parent._done = True
            parent._signal()

    def failed(self, error: Exception) -> None:
        """The source's ``subscribe`` raised (rule 1.9): zip fails with it."""
        self.on_error(error)
        self.cancel()

    def on_complete(self) -> None:
        self.done = True
        parent = self._parent
        if parent is not None:
            parent._signal()

    def consumed_one(self) -> None:
        self._consumed += 1
        if self._consumed == self._limit:
            self._consumed = 0
            self.subscription.request(self._limit)


class _Zip(DrainedOperator[tuple[Any, ...]]):
    __slots__ = ("_inners", "_prefetch")

    def __init__(self, downstream: Subscriber[tuple[Any, ...]], count: int, prefetch: int):
        super().__init__(downstream, "zip")
        self._prefetch = prefetch
        self._inners = [_ZipInner(self, prefetch) for _ in range(count)]

    def _released(self) -> None:
        self._downstream = None  # rule 3.13
        for inner in self._inners:
            inner.cancel()

    def _ready_to_complete(self) -> bool:
        if self._error is not None or not self._inners:
            return True
        return any(inner.done and not inner.queue for inner in self._inners)

    def _emit(self, on_next: Callable[[tuple[Any, ...]], object], requested: int) -> int:
        inners = self._inners
        emitted = 0
        while emitted != requested and self._error is None:
            if not all(inner.queue for inner in inners):
                break
            row = tuple(inner.queue.popleft() for inner in inners)
            for inner in inners:
                inner.consumed_one()
            emitted += 1
            on_next(row)
            if self._pub is not ACTIVE:
                break
        return emitted


class ZipPublisher(Generic[T]):
    __slots__ = ("_prefetch", "_sources")

    def __init__(self, sources: tuple[Publisher[Any], ...], prefetch: int = 128) -> None:
        self._sources = sources
        self._prefetch = prefetch

    def subscribe(self, subscriber: Subscriber[tuple[Any, ...]]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        zipper = _Zip(subscriber, len(self._sources), self._prefetch)
        zipper._signal()  # on_subscribe first (rule 1.9), before any source can signal (1.3)
        for source, inner in zip(self._sources, zipper._inners, strict=True):
            if zipper._pub is not ACTIVE or zipper._error is not None:
                break
            subscribe_or_fail(source, inner, inner.failed)  # rule 1.9: on_error instead
        zipper._signal()
