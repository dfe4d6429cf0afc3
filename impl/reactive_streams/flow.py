"""``Flow[T]``: a Publisher with chainable operators.

``Flow.range(1, 10).map(f).filter(p).observe_on(executor).subscribe(print)``

A Flow wraps any Publisher and is one itself (``subscribe(subscriber)``); every operator
returns a new cold Flow, and nothing runs until a subscriber arrives. Pipelines over
synchronous sources are fused (see :mod:`reactive_streams.operators.fused`); the switch
is ``set_fusion(False)`` or the environment variable ``RS_FUSION=0``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, Never, TypeVar, overload

from . import sources as _sources
from ._demand import MAX_DEMAND
from .api import Publisher, Subscriber
from .operators import limit as _limit
from .operators import transform as _transform
from .operators._base import OperatorPublisher
from .operators.fused import (
    SyncSource,
    fused_filter,
    fused_map,
    fusion_enabled,
    set_fusion,
)
from .sources import IterablePublisher, Sink
from .subscribers import LambdaSubscriber

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

__all__ = ["Flow", "fusion_enabled", "set_fusion"]

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")


def _check_count(name: str, count: int) -> None:
    if type(count) is not int or count < 0:
        raise ValueError(f"{name}: count must be an int >= 0, got {count!r}")


class Flow(Generic[T]):
    """A cold Publisher of ``T`` with operators. ``Flow(publisher)`` wraps any Publisher."""

    __slots__ = ("_source", "_sync")

    def __init__(self, source: Publisher[T], *, _sync: SyncSource | None = None) -> None:
        if source is None:
            raise TypeError("Flow(source) requires a Publisher, got None")
        self._source = source
        self._sync = _sync

    def __repr__(self) -> str:
        return f"Flow({self._source!r})"

    @property
    def source(self) -> Publisher[T]:
        """The wrapped Publisher."""
        return self._source

    # ================================================================ Publisher
    @overload
    def subscribe(self, subscriber: Subscriber[T], /) -> None: ...

    @overload
    def subscribe(
        self,
        on_next: Callable[[T], object] | None = None,
        on_error: Callable[[BaseException], object] | None = None,
        on_complete: Callable[[], object] | None = None,
        *,
        request: int = MAX_DEMAND,
    ) -> LambdaSubscriber[T]: ...

    def subscribe(
        self,
        on_next: Any = None,
        on_error: Callable[[BaseException], object] | None = None,
        on_complete: Callable[[], object] | None = None,
        *,
        request: int = MAX_DEMAND,
    ) -> LambdaSubscriber[T] | None:
        """``subscribe(subscriber)`` (the Publisher method, rule 1.9), or callbacks:
        ``subscribe(on_next, on_error, on_complete, request=batch)`` returns the
        ``LambdaSubscriber`` (``cancel()``, ``done``)."""
        if on_next is not None and hasattr(on_next, "on_subscribe"):
            self._source.subscribe(on_next)
            return None
        subscriber: LambdaSubscriber[T] = LambdaSubscriber(
            on_next, on_error, on_complete, request=request
        )
        self._source.subscribe(subscriber)
        return subscriber

    # ============================================================= constructors
    @staticmethod
    def from_publisher(publisher: Publisher[T]) -> Flow[T]:
        """Wrap ``publisher`` (a Flow is returned as is).

        A synchronous ``IterablePublisher`` (no executor) is recognised as fusable.
        """
        if isinstance(publisher, Flow):
            return publisher
        if (
            isinstance(publisher, IterablePublisher)
            and type(publisher) is IterablePublisher
            and publisher._executor is None
        ):
            return Flow(publisher, _sync=SyncSource(publisher._factory))
        return Flow(publisher)

    @staticmethod
    def range(start: int, count: int) -> Flow[int]:
        """``count`` consecutive ints from ``start``."""
        return Flow.from_publisher(_sources.range(start, count))

    @staticmethod
    def from_iterable(iterable: Iterable[T]) -> Flow[T]:
        """The elements of ``iterable`` (``iter()`` per subscription)."""
        return Flow.from_publisher(_sources.from_iterable(iterable))

    @staticmethod
    def just(*items: T) -> Flow[T]:
        """The given items, then completion."""
        publisher = _sources.just(*items)
        if len(items) == 1:
            return Flow(publisher, _sync=SyncSource(publisher._factory, "scalar", items[0]))
        return Flow.from_publisher(publisher)

    @staticmethod
    def empty() -> Flow[Never]:
        """Completes at once, without demand."""
        publisher = _sources.empty()
        return Flow(publisher, _sync=SyncSource(publisher._factory, "empty"))

    @staticmethod
    def error(exc: BaseException) -> Flow[Never]:
        """Fails at once with ``exc``, without demand."""
        publisher = _sources.error(exc)
        return Flow(publisher, _sync=SyncSource(publisher._factory, "error", error=exc))

    @staticmethod
    def from_callable(fn: Callable[[], T]) -> Flow[T]:
        """One element, ``fn()``, computed per subscription on the first demand."""
        return Flow.from_publisher(_sources.from_callable(fn))

    @staticmethod
    def generate(initial_state: S, generator: Callable[[S, Sink[T]], S]) -> Flow[T]:
        """Elements produced on demand by ``generator(state, sink) -> state``."""
        return Flow.from_publisher(_sources.generate(initial_state, generator))

    @staticmethod
    def from_async_iterable(iterable: AsyncIterable[T], *, loop: Any = None) -> Flow[T]:
        """Elements pulled from an async iterable on an asyncio loop (default: the running one)."""
        from . import bridges

        return Flow(bridges.from_async_iterable(iterable, loop=loop))

    # ================================================================ helpers
    def _op(self, make: Callable[[Subscriber[R]], Subscriber[Any]], name: str) -> Flow[R]:
        return Flow(OperatorPublisher(self._source, make, name))

    def _fusable(self) -> SyncSource | None:
        sync = self._sync
        return sync if sync is not None and fusion_enabled() else None

    def _terminal_or_none(self) -> Flow[Any] | None:
        """Macro-fusion: an operator applied to ``empty()``/``error()`` is the same flow."""
        sync = self._fusable()
        if sync is not None and sync.kind in ("empty", "error"):
            return self
        return None

    # ======================================================= element operators
    def map(self, fn: Callable[[T], R]) -> Flow[R]:
        """``fn(item)`` for each element; ``fn`` raising (or returning None) fails the stream."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        sync = self._fusable()
        if sync is not None:
            factory = fused_map(fn, sync.factory)
            return Flow(IterablePublisher(factory, name="map"), _sync=SyncSource(factory))
        return self._op(lambda d: _transform.Map(d, fn), "map")

    def filter(self, predicate: Callable[[T], object]) -> Flow[T]:
        """Elements for which ``predicate`` is true."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        sync = self._fusable()
        if sync is not None:
            factory = fused_filter(predicate, sync.factory)
            return Flow(IterablePublisher(factory, name="filter"), _sync=SyncSource(factory))
        return self._op(lambda d: _transform.Filter(d, predicate), "filter")

    def scan(self, fn: Callable[[R, T], R], initial: R) -> Flow[R]:
        """Running accumulation: emits ``acc = fn(acc, item)`` for every element."""
        return self._op(lambda d: _transform.Scan(d, fn, initial), "scan")

    def do_on_next(self, action: Callable[[T], object]) -> Flow[T]:
        """Calls ``action(item)`` for each element before passing it on."""
        return self._op(lambda d: _transform.DoOnNext(d, action), "do_on_next")

    def do_on_request(self, action: Callable[[int], object]) -> Flow[T]:
        """Calls ``action(n)`` for each downstream ``request(n)``."""
        return self._op(lambda d: _transform.DoOnRequest(d, action), "do_on_request")

    def do_on_cancel(self, action: Callable[[], object]) -> Flow[T]:
        """Calls ``action()`` when downstream cancels."""
        return self._op(lambda d: _transform.DoOnCancel(d, action), "do_on_cancel")

    def take(self, count: int) -> Flow[T]:
        """The first ``count`` elements (never requests more than ``count`` upstream)."""
        _check_count("take", count)
        return self._op(lambda d: _limit.Take(d, count), "take")

    def skip(self, count: int) -> Flow[T]:
        """All but the first ``count`` elements."""
        _check_count("skip", count)
        if count == 0:
            return self
        return self._op(lambda d: _limit.Skip(d, count), "skip")

    def take_while(self, predicate: Callable[[T], object]) -> Flow[T]:
        """Elements while ``predicate`` holds; completes at the first that fails."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        return self._op(lambda d: _limit.TakeWhile(d, predicate), "take_while")

    # ================================================================ terminals
    def to_list(self, timeout: float | None = 10.0) -> list[T]:
        """Block until completion and return every element (raises the stream's error)."""
        return list(self.blocking_iter(timeout=timeout))

    def blocking_iter(self, prefetch: int = 128, *, timeout: float | None = None) -> Iterator[T]:
        """A blocking iterator (``timeout`` bounds each wait); breaking out cancels."""
        from .bridges import to_iterable

        return to_iterable(self, prefetch, timeout=timeout)

    def to_async_iterator(self, prefetch: int = 128) -> AsyncIterator[T]:
        """An async iterator for ``async for`` (call inside a running event loop)."""
        from .bridges import to_async_iterator

        return to_async_iterator(self, prefetch)
