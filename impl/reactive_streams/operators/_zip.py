"""``zip``: combine the n-th elements of several publishers into tuples.

Each source is asked for ``prefetch`` elements and replenished at 75 %; a tuple is
emitted when every source has an element queued and there is demand. Completion comes
when a source has completed with nothing queued (the others are cancelled); an error
from any source cancels the others and is signalled at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE
from .._subscribing import subscribe_or_fail
from ._drained import DrainedOperator, QueuedInner
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["LinkedInner", "ZipPublisher", "subscribe_inners"]


class LinkedInner(QueuedInner[Any, Any]):
    """The subscriber of one inner source of a drained hop (zip, combine_latest,
    with_latest_from, switch_map): asks for ``prefetch``, replenishes at 75 % of it
    as the parent's drain consumes (``consumed_one``), and reports its end to the
    parent: an error through ``parent._inner_failed(inner, error)``, completion as
    ``done`` and a wake of the drain. A cancelled inner (``_parent`` None) is silent."""

    __slots__ = ("_consumed", "_limit", "index")

    def __init__(self, parent: Any, prefetch: int, index: int = 0) -> None:
        super().__init__(parent)
        self._limit = replenish_size(prefetch)
        self._consumed = 0
        self.index = index

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        parent = self._parent
        if parent is not None:
            self.done = True
            parent._inner_failed(self, error)

    def failed(self, error: Exception) -> None:
        """The source's ``subscribe`` raised (rule 1.9): the parent fails with it."""
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
            self.request(self._limit)


class LinkedDrain(DrainedOperator[R]):
    """A drained hop over ``_inners`` (:class:`LinkedInner`): the first inner failure ends
    it, and its end cancels every inner (rules 3.13, 1.8)."""

    __slots__ = ()
    _inners: list[Any]

    def _inner_failed(self, inner: LinkedInner, error: BaseException) -> None:
        if self._error is None:
            self._error = error
            self._done = True
            self._signal()

    def _released(self) -> None:
        self._downstream = None  # rule 3.13
        for inner in self._inners:
            inner.cancel()


class _Zip(LinkedDrain[tuple[Any, ...]]):
    __slots__ = ("_inners", "_prefetch")

    def __init__(self, downstream: Subscriber[tuple[Any, ...]], count: int, prefetch: int):
        super().__init__(downstream, "zip")
        self._prefetch = prefetch
        self._inners = [LinkedInner(self, prefetch) for _ in range(count)]

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
        subscribe_inners(zipper, self._sources, zipper._inners)


def subscribe_inners(
    parent: DrainedOperator[Any], sources: Sequence[Publisher[Any]], inners: Sequence[LinkedInner]
) -> None:
    """``on_subscribe`` downstream first (rule 1.9, before any source can signal: 1.3),
    then each source in turn, until the parent ends."""
    parent._signal()
    for source, inner in zip(sources, inners, strict=True):
        if parent._pub is not ACTIVE or parent._error is not None:
            break
        subscribe_or_fail(source, inner, inner.failed)  # rule 1.9: on_error instead
    parent._signal()
