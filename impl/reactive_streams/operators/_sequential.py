"""``merge_sequential`` and ``flat_map_sequential``: inners subscribed at once (eager),
their elements emitted in order (Reactor's ``mergeSequential``, ``flatMapSequential``):
the first one's, then the second's...

A :class:`~._zip.LinkedDrain` over one :class:`~._zip.LinkedInner` per publisher (each
asks for ``prefetch`` and is replenished at 75 % as the drain delivers, so at most
``prefetch`` elements wait per publisher). The drain emits from the current publisher's
queue under demand (rule 1.1) and moves on when it completed with nothing left; the
first error from any publisher cancels the others and passes at once (eager, as
``merge``); the end cancels every inner (rules 3.13, 1.8).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE
from .._core.subscribing import subscribe_or_fail
from ._base import deliver_subscribe_then_error
from ._drained import UnboundedUpstream
from ._zip import LinkedDrain, LinkedInner, subscribe_inners

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["FlatMapSequentialPublisher", "MergeSequentialPublisher"]


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
        # rule 3.12: a cancel from inside on_next stops the loop (pub no longer ACTIVE)
        while emitted != requested and self._error is None and self._pub is ACTIVE:
            inner = self._advance()
            if inner is None or not inner.queue:
                break
            _deliver_one(inner, on_next)
            emitted += 1
        return emitted


def _deliver_one(inner: LinkedInner, on_next: Callable[[Any], object]) -> None:
    """The oldest element of ``inner``'s queue, to ``on_next``; its place asked again at
    75 % (``consumed_one``)."""
    item = inner.queue.popleft()
    inner.consumed_one()
    on_next(item)


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


class _FlatMapSequential(UnboundedUpstream[R]):
    """``flat_map_sequential``: upstream is asked for ``max_concurrency`` elements, and one
    more each time an inner was emitted whole; every element's inner is subscribed at
    once (eager), and the drain emits the oldest inner's elements first (rule 1.3: one
    drain). ``_inners`` is appended on upstream's thread and read by the drain: both
    under the hop's lock, which the release takes too (a late inner is cancelled)."""

    __slots__ = ("_closed", "_fn", "_inners", "_max", "_prefetch")

    def __init__(
        self,
        downstream: Subscriber[R],
        fn: Callable[[Any], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
    ) -> None:
        super().__init__(downstream, "flat_map_sequential")
        self._fn = fn
        self._max = max_concurrency
        self._prefetch = prefetch
        self._inners: deque[LinkedInner] = deque()
        self._closed = False

    def _opened(self) -> None:
        self._upstream.request(self._max)  # at most max_concurrency inners at once

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        try:
            publisher = self._fn(item)
        except Exception as exc:
            self._fail(exc)
            return
        inner = LinkedInner(self, self._prefetch)
        with self._lock:  # the check and the append are one step against the release
            closed = self._closed
            if not closed:
                self._inners.append(inner)
        if closed:
            inner.cancel()  # rule 3.12: ended meanwhile
            return
        subscribe_or_fail(publisher, inner, inner.failed)  # rule 1.9: on_error instead
        self._signal()

    def _inner_failed(self, inner: LinkedInner, error: BaseException) -> None:
        self._fail(error)  # eager: upstream cancelled, every inner by the release

    def _released(self) -> None:
        super()._released()
        with self._lock:
            self._closed = True
            inners, self._inners = list(self._inners), deque()
        for inner in inners:
            inner.cancel()  # rules 3.12, 3.13

    def _head(self) -> LinkedInner | None:
        with self._lock:
            return self._inners[0] if self._inners else None

    def _ready_to_complete(self) -> bool:
        return self._error is not None or (self._done and self._head() is None)

    def _emit(self, on_next: Callable[[R], object], requested: int) -> int:
        emitted = 0
        # rule 3.12: a cancel from inside on_next stops the loop (pub no longer ACTIVE)
        while emitted != requested and self._error is None and self._pub is ACTIVE:
            self._drop_finished()  # the inners emitted whole leave: the next one's turn
            inner = self._head()
            if inner is None or not inner.queue:
                break
            _deliver_one(inner, on_next)
            emitted += 1
        if self._error is None:
            self._drop_finished()  # an empty inner's end needs no demand (nor the stream's)
        return emitted

    def _drop_finished(self) -> None:
        """Inners at the head that completed with nothing left leave (no demand needed),
        each making room for one more upstream element."""
        while True:
            inner = self._head()
            if inner is None or inner.queue or not inner.done:
                return
            with self._lock:
                if self._inners and self._inners[0] is inner:
                    self._inners.popleft()
            if not self._done:
                self._upstream.request(1)


class FlatMapSequentialPublisher(Generic[R]):
    __slots__ = ("_fn", "_max", "_prefetch", "_source")

    def __init__(
        self,
        source: Publisher[Any],
        fn: Callable[[Any], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
    ) -> None:
        self._source = source
        self._fn = fn
        self._max = max_concurrency
        self._prefetch = prefetch

    def __repr__(self) -> str:
        return "<flat_map_sequential>"

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop: _FlatMapSequential[R] = _FlatMapSequential(
            subscriber, self._fn, self._max, self._prefetch
        )
        # rule 1.9: a raising source is on_subscribe then on_error to the hop
        subscribe_or_fail(self._source, hop, partial(deliver_subscribe_then_error, hop))
