"""``Flow[T]``: a Publisher with chainable operators.

``Flow.range(1, 10).map(f).filter(p).observe_on(executor).subscribe(print)``

A Flow wraps any Publisher and is one itself (``subscribe(subscriber)``); every operator
returns a new cold Flow, and nothing runs until a subscriber arrives. A Flow is also an
iterable (``for x in flow``, blocking, bounded prefetch) and an async iterable
(``async for x in flow``); ``flow.aio`` holds the awaitable terminals. Pipelines over
synchronous sources are fused (see :mod:`reactive_streams.operators`); the switch
is ``set_fusion(False)`` or the environment variable ``RS_FUSION=0``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import (
    AsyncIterable,
    Awaitable,
    Callable,
    Coroutine,
    Hashable,
    Iterable,
    Iterator,
)
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from . import _async_stage, _describe
from . import sources as _sources
from ._core import arbiter as _arbiter
from ._core.demand import MAX_DEMAND
from ._core.fusion import SyncSource, fusion_enabled, set_fusion, sync_of
from .api import Publisher, Subscriber
from .executors import ExecutorLike, as_executor
from .operators import (
    _aggregate,
    _amb,
    _args,
    _backpressure,
    _breadth,
    _combine,
    _cut,
    _delay_subscription,
    _exhaust,
    _flat_map,
    _group_by,
    _limit,
    _log,
    _math,
    _never,
    _notification,
    _observe_on,
    _pairwise,
    _partition,
    _pick,
    _recover,
    _repeat,
    _sequential,
    _sliding,
    _stamp,
    _subscribe_on,
    _switch_map,
    _tail,
    _timed,
    _timed_sources,
    _timed_window,
    _transform,
    _until,
    _using,
    _zip,
)
from .operators._base import OperatorPublisher, deliver_subscribe_then_error
from .operators._fused import fused_filter, fused_handle, fused_map, fused_map_not_none
from .operators._notification import Notification
from .operators._transform import HandleSink
from .sources import DEFAULT_BATCH_SIZE, IterablePublisher, Sink
from .subscribers import LambdaSubscriber

if TYPE_CHECKING:
    import concurrent.futures

    from .bridges import AsyncFlowIterator
    from .multicast import OnDisconnect
    from .multicast._connectable import _Hub, _RefCount
    from .multicast._connection import Connection

__all__ = [
    "AsyncTerminals",
    "ConnectableFlow",
    "Flow",
    "GroupedFlow",
    "RefCountFlow",
    "fusion_enabled",
    "set_fusion",
]

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")
K = TypeVar("K")


def _check_count(name: str, count: int) -> None:
    if type(count) is not int or count < 0:
        raise ValueError(f"{name}: count must be an int >= 0, got {count!r}")


def _check_positive(name: str, count: int) -> None:
    if type(count) is not int or count <= 0:
        raise ValueError(f"{name}: size must be an int > 0, got {count!r}")


def _identity(item: T) -> T:
    return item


def _scheduler_clock(method: str, scheduler: ExecutorLike | None) -> Callable[[], Any]:
    """``scheduler=``'s clock, asked at subscribe; a bad one is refused now, by name."""
    try:
        return _async_stage.clock(scheduler)
    except TypeError as exc:
        raise TypeError(f"{method}: scheduler: {exc}") from None


_new_flow = object.__new__


def _flow_of(publisher: Publisher[T]) -> Flow[T]:
    """A Flow over one of our sources, built without ``__init__`` (its check) and
    without the recorded call of ``from_publisher`` (the caller records its own)."""
    flow: Flow[T] = _new_flow(Flow)
    flow._source = publisher
    flow._sync = None
    return flow


_FOREIGN = ("reactivex", "rx")  # top-level packages of Observable libraries (no demand)


def _refuse_foreign(method: str, position: int, op: object, result: object = None) -> None:
    """A reactivex operator in ``pipe`` (or an operator returning an Observable) fails
    here, at assembly: it would build without complaint and fail at subscribe with an
    unrelated ``AttributeError``."""
    if result is None:
        library = _foreign_library(getattr(op, "__module__", None))
        what = f"operator {position} is a {library} operator"
    else:
        library = _foreign_library(type(result).__module__)
        what = f"operator {position} returned a {library} {type(result).__name__}"
    if not library:
        return
    raise TypeError(
        f"{method}: {what}: it works on Observables, which take no demand, not on a "
        "Flow. Use the Flow's own operator (docs/coming-from-rxpy.md has the table), or "
        "bridge: reactive_streams.rx.to_observable(flow).pipe(...), and back with "
        "reactive_streams.rx.from_observable(observable, strategy=...)"
    )


def _foreign_library(module: object) -> str:
    """``"reactivex"`` (or ``"rx"``) when ``module`` belongs to an Observable library."""
    top = module.partition(".")[0] if isinstance(module, str) else ""
    return top if top in _FOREIGN else ""


class _DeferPublisher(Generic[T]):
    """Calls ``make()`` per subscriber and subscribes to the Publisher it returns;
    ``make`` raising is signalled as ``on_error`` after ``on_subscribe`` (rule 1.9)."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Publisher[T]]) -> None:
        self._make = make

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        try:
            publisher = self._make()
            if publisher is None:
                raise TypeError("rule 2.13: flat_map's mapper returned None instead of a Publisher")
        except Exception as exc:
            deliver_subscribe_then_error(subscriber, exc)
            return
        publisher.subscribe(subscriber)


_NO_CALLBACK: Any = object()  # subscribe() with callbacks but no on_next

if TYPE_CHECKING:  # concurrent.futures is imported at run time only by who uses it
    Inner = Publisher[R] | Iterable[R] | Awaitable[R] | concurrent.futures.Future[R]
else:
    Inner = Publisher[R] | Iterable[R] | Awaitable[R]
"""What ``flat_map``'s mapper may return for one element."""


def _check_publishers(method: str, publishers: tuple[object, ...]) -> None:
    """A non-Publisher argument fails at the call that builds the flow, by position."""
    for position, publisher in enumerate(publishers, 1):
        if not callable(getattr(publisher, "subscribe", None)):
            raise TypeError(
                f"{method}: argument {position} is not a Publisher (no subscribe method): "
                f"{publisher!r}"
            )


def _name_of(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _adapt_mapper(
    operator: str, fn: Callable[[T], Inner[R]], loop: Any = None, iterables: bool = False
) -> Callable[[T], Publisher[R]]:
    """``fn`` with iterables and awaitables turned into Publishers (a Publisher passes as
    is); an awaitable runs on ``loop`` (the one that subscribed), else on the calling
    thread's running loop. With ``iterables`` (a fused ``flat_map``, which takes an
    iterable inner itself: whole, or pulled), an iterable is returned as it is, and a
    list, tuple or range without a look at any other attribute."""

    def adapt(result: Any) -> Publisher[R]:
        if hasattr(result, "subscribe"):
            return cast("Publisher[R]", result)  # a Publisher
        if hasattr(result, "__await__"):
            return _awaitable_flow(cast("Awaitable[R]", result), operator, fn, loop)
        if hasattr(result, "__iter__"):
            return result if iterables else Flow.from_iterable(result)
        if _is_concurrent_future(result):
            return Flow.from_future(result)
        if result is None:
            raise TypeError(f"rule 2.13: {operator}({_name_of(fn)}): returned None")
        raise TypeError(
            f"{operator}({_name_of(fn)}): returned {type(result).__name__}; expected a "
            "Publisher, an iterable, an awaitable or a concurrent.futures.Future"
        )

    if iterables:
        return _flat_map.Adapted(fn, adapt)  # flat_map calls fn, then adapt if need be
    return lambda item: adapt(fn(item))


def _is_concurrent_future(value: object) -> bool:
    futures: Any = sys.modules.get("concurrent.futures")  # an instance implies the import
    return futures is not None and isinstance(value, futures.Future)


def _awaitable_flow(awaitable: Awaitable[R], operator: str, fn: object, loop: Any) -> Flow[R]:
    """One element: the awaitable's result, awaited on ``loop`` (the loop that subscribed
    the pipeline), else on this thread's running event loop."""
    from .bridges import from_async_iterable

    if loop is None:
        loop = _async_stage.running_loop()
    if loop is None:
        close = getattr(awaitable, "close", None)
        if close is not None:
            close()  # a coroutine never awaited: no "never awaited" warning
        raise TypeError(
            f"{operator}({_name_of(fn)}): returned an awaitable outside a running event loop "
            "(subscribe inside a coroutine: async for, await flow.aio..., and its awaitables "
            "run on that loop whatever thread calls the mapper)"
        ) from None

    origin = f"{operator}({_name_of(fn)})"
    return Flow(from_async_iterable(_async_stage.OneResult(awaitable, origin), loop=loop))


class Flow(Generic[T]):
    """A cold Publisher of ``T`` with operators. ``Flow(publisher)`` wraps any Publisher."""

    __slots__ = ("_desc", "_source", "_sync")  # _desc: the call that made it (_describe)

    def __init__(self, source: Publisher[T], *, _sync: SyncSource | None = None) -> None:
        if not callable(getattr(source, "subscribe", None)):
            hint = (
                " (for its elements use Flow.from_iterable)" if hasattr(source, "__iter__") else ""
            )
            raise TypeError(
                f"Flow(source): source must be a Publisher (with subscribe(subscriber)), "
                f"got {type(source).__name__}{hint}"
            )
        self._source = source
        self._sync = _sync

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_describe.describe(self)})"

    @property
    def source(self) -> Publisher[T]:
        """The wrapped Publisher."""
        return self._source

    def __rs_sync__(self) -> SyncSource | None:
        """The fusion protocol: this flow's synchronous source, or None (its source's answer)."""
        sync = self._sync
        if sync is not None:
            return sync
        ask: Callable[[], SyncSource | None] | None = getattr(self._source, "__rs_sync__", None)
        return None if ask is None else ask()  # sync_of checks the answer

    # ================================================================ Publisher
    @overload
    def subscribe(self, subscriber: Subscriber[T], /) -> None: ...

    @overload
    def subscribe(
        self,
        on_next: Callable[[T], object] = ...,
        on_error: Callable[[BaseException], object] | None = None,
        on_complete: Callable[[], object] | None = None,
        *,
        request: int = MAX_DEMAND,
    ) -> LambdaSubscriber[T]: ...

    def subscribe(
        self,
        on_next: Any = _NO_CALLBACK,
        on_error: Callable[[BaseException], object] | None = None,
        on_complete: Callable[[], object] | None = None,
        *,
        request: int = MAX_DEMAND,
    ) -> LambdaSubscriber[T] | None:
        """``subscribe(subscriber)`` (the Publisher method, rule 1.9), or callbacks:
        ``subscribe(on_next, on_error, on_complete, request=batch)`` returns the
        ``LambdaSubscriber`` (``cancel()``, ``done``, ``error``, ``completed``; ``with``
        cancels on exit). An ``on_next`` that raises cancels upstream and its exception
        goes to ``on_error``; without ``on_error`` it is logged, and reaches stderr when
        the application configured no logging (docs/errors-and-resubscription.md)."""
        if on_next is None:
            # rule 1.9: null plays None; a Publisher rejects it with TypeError
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        if hasattr(on_next, "on_subscribe"):
            self._source.subscribe(on_next)
            return None
        if on_next is _NO_CALLBACK:
            on_next = None
        subscriber: LambdaSubscriber[T] = LambdaSubscriber(
            on_next, on_error, on_complete, request=request
        )
        self._source.subscribe(subscriber)
        return subscriber

    def __iter__(self) -> Iterator[T]:
        """``for x in flow``: ``blocking_iter()`` (prefetch 128, no timeout)."""
        return self.blocking_iter()

    def __aiter__(self) -> AsyncFlowIterator[T]:
        """``async for x in flow``: ``to_async_iterator()`` (prefetch 128)."""
        return self.to_async_iterator()

    # ============================================================= constructors
    @staticmethod
    def from_publisher(publisher: Publisher[T]) -> Flow[T]:
        """Wrap ``publisher`` (a Flow is returned as is). A publisher that answers the
        fusion protocol (``__rs_sync__``) fuses.

        Reactor: ``from``."""
        if isinstance(publisher, Flow):
            return publisher
        return Flow(publisher)

    @overload
    @staticmethod
    def range(
        stop: int, /, *, executor: ExecutorLike | None = None, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> Flow[int]: ...

    @overload
    @staticmethod
    def range(
        start: int,
        stop: int,
        step: int = 1,
        /,
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Flow[int]: ...

    @staticmethod
    def range(
        start: int,
        stop: int | None = None,
        step: int = 1,
        /,
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Flow[int]:
        """The ints of Python's ``range(stop)`` or ``range(start, stop[, step])``."""
        if stop is None:
            start, stop = 0, start
        return _flow_of(_sources.range(start, stop, step, executor=executor, batch_size=batch_size))

    @staticmethod
    def range_count(
        start: int,
        count: int,
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Flow[int]:
        """``count`` consecutive ints from ``start`` (Reactor's and RxJava's ``range``).

        Reactor: ``range``."""
        if type(count) is not int or count < 0:
            raise ValueError(f"range_count: count must be an int >= 0, got {count!r}")
        return Flow.range(start, start + count, executor=executor, batch_size=batch_size)

    @staticmethod
    def from_iterable(
        iterable: Iterable[T],
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Flow[T]:
        """The elements of ``iterable`` (``iter()`` per subscription); with ``executor``,
        signals are delivered there, ``batch_size`` elements per task.

        Reactor: ``fromIterable``."""
        return _flow_of(_sources.from_iterable(iterable, executor=executor, batch_size=batch_size))

    @staticmethod
    def just(*items: T, executor: ExecutorLike | None = None) -> Flow[T]:
        """The given items, then completion.

        Reactor: ``just``."""
        if executor is not None:
            return _flow_of(_sources.just(*items, executor=executor))
        # the common inner of flat_map: built without __init__ (_flow_of and, for one
        # item, sources.just inline); fusion asks the source
        flow: Flow[T] = _new_flow(Flow)
        if len(items) == 1 and items[0] is not None:
            scalar: _sources.ScalarPublisher[T] = _new_flow(_sources.ScalarPublisher)
            scalar.value = items[0]
            flow._source = scalar
        else:
            flow._source = _sources.just(*items)  # rule 2.13's check for a None
        flow._sync = None
        return flow

    @staticmethod
    def empty(*, executor: ExecutorLike | None = None) -> Flow[Any]:
        """Completes at once, without demand.

        Reactor: ``empty``."""
        if executor is not None:
            return Flow(_sources.empty(executor=executor))
        publisher = _sources.empty()
        sync = sync_of(publisher)
        assert sync is not None
        return Flow(publisher, _sync=SyncSource(sync.factory, "empty", hop=sync.hop))

    @staticmethod
    def error(exc: BaseException, *, executor: ExecutorLike | None = None) -> Flow[Any]:
        """Fails at once with ``exc``, without demand.

        Reactor: ``error``."""
        if executor is not None:
            return Flow(_sources.error(exc, executor=executor))
        publisher = _sources.error(exc)
        sync = sync_of(publisher)
        assert sync is not None
        return Flow(publisher, _sync=SyncSource(sync.factory, "error", error=exc, hop=sync.hop))

    @staticmethod
    def from_callable(fn: Callable[[], T], *, executor: ExecutorLike | None = None) -> Flow[T]:
        """One element, ``fn()``, computed per subscription on the first demand."""
        return _flow_of(_sources.from_callable(fn, executor=executor))

    @staticmethod
    def generate(
        initial_state: S,
        generator: Callable[[S, Sink[T]], S],
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> Flow[T]:
        """Elements produced on demand by ``generator(state, sink) -> state``.

        Reactor: ``generate``."""
        return _flow_of(
            _sources.generate(initial_state, generator, executor=executor, batch_size=batch_size)
        )

    @staticmethod
    def from_future(future: concurrent.futures.Future[T]) -> Flow[T]:
        """The result of a ``concurrent.futures.Future`` (a None result: empty), its
        exception as ``on_error``; nothing blocks, the future's callback signals."""
        from ._future import FuturePublisher

        return Flow(FuturePublisher(future))

    @staticmethod
    def from_async_iterable(iterable: AsyncIterable[T], *, loop: Any = None) -> Flow[T]:
        """Elements pulled from an async iterable on an asyncio loop (default: the running one)."""
        from . import bridges

        return Flow(bridges.from_async_iterable(iterable, loop=loop))

    # ================================================================ helpers
    def _op(self, make: Callable[[Subscriber[R]], Subscriber[Any]], name: str) -> Flow[R]:
        return Flow(OperatorPublisher(self._source, make, name))

    def _fusable(self) -> SyncSource | None:
        return sync_of(self) if fusion_enabled() else None

    def _terminal_or_none(self) -> Flow[Any] | None:
        """Macro-fusion: an operator applied to ``empty()``/``error()`` is the same flow."""
        sync = self._fusable()
        if sync is not None and sync.kind in ("empty", "error"):
            return self
        return None

    # ======================================================= element operators
    @overload
    def map(self, fn: Callable[[T], Coroutine[Any, Any, R]]) -> Flow[R]: ...

    @overload
    def map(self, fn: Callable[[T], R]) -> Flow[R]: ...

    def map(self, fn: Callable[[T], Any]) -> Flow[Any]:
        """``fn(item)`` for each element; ``fn`` raising (or returning None) fails the stream.
        An ``async def`` ``fn`` is awaited, one element at a time, in order (as
        ``concat_map(fn)``), on the event loop that subscribed.

        reactivex: ``map``. Reactor: ``map``."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        if _async_stage.is_coroutine_function(fn):
            return self._awaiting("map", fn)
        sync = self._fusable()
        if sync is not None:
            fused = fused_map(fn, sync)
            return Flow(IterablePublisher(fused.factory, name="map"), _sync=fused)
        return self._op(lambda d: _transform.Map(d, fn), "map")

    def filter(self, predicate: Callable[[T], object]) -> Flow[T]:
        """Elements for which ``predicate`` is true (an ``async def`` predicate is awaited,
        one element at a time, as ``map``'s).

        reactivex: ``filter``. Reactor: ``filter``."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        if _async_stage.is_coroutine_function(predicate):
            step = _async_stage.keeping(cast("Callable[[T], Awaitable[object]]", predicate))
            return self._awaiting("filter", step).map_not_none(_async_stage.kept)
        sync = self._fusable()
        if sync is not None:
            fused = fused_filter(predicate, sync)
            return Flow(IterablePublisher(fused.factory, name="filter"), _sync=fused)
        return self._op(lambda d: _transform.Filter(d, predicate), "filter")

    def map_not_none(self, fn: Callable[[T], R | None]) -> Flow[R]:
        """``fn(item)`` for each element, skipping those for which it returns None
        (Reactor's ``mapNotNull``; reactivex's ``map`` + ``filter``): each skip asks
        upstream for one more, as ``filter``. Fused like ``map``, as fast as both.

        Reactor: ``mapNotNull``."""
        return self._dropping("map_not_none", fn, fused_map_not_none, _transform.MapNotNone)

    def handle(self, fn: Callable[[T, HandleSink[R]], object]) -> Flow[R]:
        """``fn(item, sink)`` emits zero or one element per element (Reactor's
        ``handle``): ``sink.next(value)`` at most once, ``sink.complete()`` to end the
        stream after this element's value, ``sink.error(exc)`` to fail it (upstream is
        cancelled). A call without ``next`` drops the element and asks upstream for one
        more, as ``filter``. Fused like ``map``.

        Reactor: ``handle``."""
        return self._dropping("handle", fn, fused_handle, _transform.Handle)

    def _dropping(
        self,
        name: str,
        fn: Any,
        fuse: Callable[[Any, SyncSource], SyncSource],
        hop: Callable[[Subscriber[Any], Any], Subscriber[Any]],
    ) -> Flow[Any]:
        """A stage of zero or one output per element: fused over a synchronous source,
        else the ``hop`` relay."""
        _args.check_callable(name, "fn", fn)
        same = self._terminal_or_none()
        if same is not None:
            return same
        sync = self._fusable()
        if sync is not None:
            fused = fuse(fn, sync)
            return Flow(IterablePublisher(fused.factory, name=name), _sync=fused)
        return self._op(lambda d: hop(d, fn), name)

    def scan(self, fn: Callable[[R, T], R], initial: R) -> Flow[R]:
        """Running accumulation: emits ``acc = fn(acc, item)`` for every element.

        reactivex: ``scan``. Reactor: ``scan``."""
        return self._op(lambda d: _transform.Scan(d, fn, initial), "scan")

    def do_on_next(self, action: Callable[[T], object]) -> Flow[T]:
        """Calls ``action(item)`` for each element before passing it on (an ``async def``
        action is awaited first, one element at a time, as ``map``'s).

        reactivex: ``do``, ``do_action``, ``tap``. Reactor: ``doOnNext``."""
        if _async_stage.is_coroutine_function(action):
            step = _async_stage.passing(cast("Callable[[T], Awaitable[object]]", action))
            return self._awaiting("do_on_next", step)
        return self._op(lambda d: _transform.DoOnNext(d, action), "do_on_next")

    def _awaiting(self, name: str, fn: Callable[[T], Awaitable[R]]) -> Flow[R]:
        """``name``'s async function as an async stage: one awaitable at a time, in order."""
        return self._async_stage(name, fn, lambda m: self._flat_map(m, 1, 32, "concat_map"))

    def do_on_request(self, action: Callable[[int], object]) -> Flow[T]:
        """Calls ``action(n)`` for each downstream ``request(n)``.

        Reactor: ``doOnRequest``."""
        return self._op(lambda d: _transform.DoOnRequest(d, action), "do_on_request")

    def do_on_cancel(self, action: Callable[[], object]) -> Flow[T]:
        """Calls ``action()`` when downstream cancels.

        Reactor: ``doOnCancel``."""
        return self._op(lambda d: _transform.DoOnCancel(d, action), "do_on_cancel")

    def take(self, count: int) -> Flow[T]:
        """The first ``count`` elements (never requests more than ``count`` upstream).

        reactivex: ``take``. Reactor: ``take``."""
        _check_count("take", count)
        return self._op(lambda d: _limit.Take(d, count), "take")

    def skip(self, count: int) -> Flow[T]:
        """All but the first ``count`` elements.

        reactivex: ``skip``. Reactor: ``skip``."""
        _check_count("skip", count)
        if count == 0:
            return self
        return self._op(lambda d: _limit.Skip(d, count), "skip")

    def take_while(self, predicate: Callable[[T], object]) -> Flow[T]:
        """Elements while ``predicate`` holds; completes at the first that fails.

        reactivex: ``take_while``. Reactor: ``takeWhile``."""
        same = self._terminal_or_none()
        if same is not None:
            return same
        return self._op(lambda d: _limit.TakeWhile(d, predicate), "take_while")

    # ================================================= combining publishers
    def flat_map(
        self,
        fn: Callable[[T], Inner[R]],
        max_concurrency: int = 256,
        prefetch: int = 32,
    ) -> Flow[R]:
        """Map each element to a Publisher and merge their elements (at most
        ``max_concurrency`` inner subscriptions, each prefetching ``prefetch``).

        ``fn`` may also return an iterable (its elements), a ``concurrent.futures.Future``
        (its result) or an awaitable (its result, awaited on the event loop that was running
        where the flow was subscribed, whatever thread calls ``fn``).

        reactivex: ``flat_map``. Reactor: ``flatMap``, ``flatMapIterable``."""
        return self._async_stage(
            "flat_map",
            fn,
            lambda m: self._flat_map(m, max_concurrency, prefetch, "flat_map"),
            iterables=True,
        )

    def _async_stage(
        self,
        name: str,
        fn: Callable[[T], Inner[R]],
        build: Callable[[Callable[[T], Publisher[R]]], Flow[R]],
        iterables: bool = False,
    ) -> Flow[R]:
        """The operator ``build`` makes over ``fn``'s adapted mapper, whose awaitables run
        on the loop that subscribes (bound per subscription, ``_async_stage``). With
        ``iterables`` and fusion on when it is built, the mapper's iterables are passed as
        they are (``flat_map`` takes them whole or pulls them: no Flow per element)."""
        raw = iterables and fusion_enabled()  # read once: the operator's switch too
        flow = build(_adapt_mapper(name, fn, None, raw))
        if flow is self:
            return flow  # a terminal source: the mapper is never called

        def bind(loop: Any) -> Callable[[T], Publisher[R]]:
            return _adapt_mapper(name, fn, loop, raw)

        return Flow(_async_stage.AtSubscribe(flow.source, bind))

    def _flat_map(
        self, fn: Callable[[T], Publisher[R]], max_concurrency: int, prefetch: int, hop: str
    ) -> Flow[R]:
        same = self._terminal_or_none()
        if same is not None:
            return same
        if isinstance(self, _GroupsFlow):
            self.check_consumer(hop, max_concurrency)
        # just(x).flat_map(f) too: the operator pulls x (fused) and subscribes f(x) as
        # every inner is (a raising subscribe is on_error, rule 1.9), one path
        return Flow(_flat_map.FlatMapPublisher(self._source, fn, max_concurrency, prefetch, hop))

    def concat_map(self, fn: Callable[[T], Inner[R]], prefetch: int = 32) -> Flow[R]:
        """Like ``flat_map`` with one inner at a time: order is preserved.

        reactivex: ``concat_map``. Reactor: ``concatMap``, ``concatMapIterable``."""
        return self._async_stage(
            "concat_map", fn, lambda m: self._flat_map(m, 1, prefetch, "concat_map"), iterables=True
        )

    def merge_with(self, *others: Publisher[T]) -> Flow[T]:
        """Elements of this flow and ``others``, interleaved as they arrive.

        reactivex: ``merge``. Reactor: ``mergeWith``."""
        return Flow.merge(self, *others)

    @staticmethod
    def merge(*publishers: Publisher[T], prefetch: int = 32) -> Flow[T]:
        """Elements of every publisher, interleaved as they arrive (all subscribed at once).

        Reactor: ``merge``."""
        if not publishers:
            return Flow.empty()
        return Flow.from_iterable(publishers)._flat_map(
            _identity, len(publishers), prefetch, "merge"
        )

    @overload
    @staticmethod
    def zip(p1: Publisher[A], /, *, prefetch: int = 128) -> Flow[tuple[A]]: ...

    @overload
    @staticmethod
    def zip(p1: Publisher[A], p2: Publisher[B], /, *, prefetch: int = 128) -> Flow[tuple[A, B]]: ...

    @overload
    @staticmethod
    def zip(
        p1: Publisher[A], p2: Publisher[B], p3: Publisher[C], /, *, prefetch: int = 128
    ) -> Flow[tuple[A, B, C]]: ...

    @overload
    @staticmethod
    def zip(
        p1: Publisher[A],
        p2: Publisher[B],
        p3: Publisher[C],
        p4: Publisher[D],
        /,
        *,
        prefetch: int = 128,
    ) -> Flow[tuple[A, B, C, D]]: ...

    @overload
    @staticmethod
    def zip(
        p1: Publisher[Any],
        p2: Publisher[Any],
        p3: Publisher[Any],
        p4: Publisher[Any],
        p5: Publisher[Any],
        /,
        *publishers: Publisher[Any],
        prefetch: int = 128,
    ) -> Flow[tuple[Any, ...]]: ...

    @staticmethod
    def zip(*publishers: Publisher[Any], prefetch: int = 128) -> Flow[tuple[Any, ...]]:
        """Tuples of the n-th elements of every publisher; ends with the shortest.

        Reactor: ``zip``."""
        _check_publishers("Flow.zip", publishers)
        return Flow(_zip.ZipPublisher(publishers, prefetch))

    def zip_with(self, other: Publisher[R], prefetch: int = 128) -> Flow[tuple[T, R]]:
        """Pairs ``(mine, other's)``; ends with the shorter.

        reactivex: ``zip``. Reactor: ``zipWith``."""
        _check_publishers("Flow.zip_with", (other,))
        return Flow(_zip.ZipPublisher((self._source, other), prefetch))

    # ============================================================ grouping
    def buffer(self, count: int, skip: int | None = None) -> Flow[list[T]]:
        """Lists of ``count`` elements (the last may be shorter); with ``skip``, a new
        list starts every ``skip`` elements (sliding when ``skip < count``, with gaps
        when ``skip > count``; the lists open at completion follow, shorter).

        reactivex: ``buffer_with_count``. Reactor: ``buffer``."""
        _check_positive("buffer", count)
        if skip is not None and skip != count:
            if type(skip) is not int or skip <= 0:
                raise ValueError(f"buffer: skip must be None or an int > 0, got {skip!r}")
            return self._op(lambda d: _sliding.SlidingBuffer(d, count, skip), "buffer")
        return self._op(lambda d: _aggregate.Buffer(d, count), "buffer")

    def batch(self, count: int) -> Flow[list[T]]:
        """Alias of ``buffer(count)``."""
        return self.buffer(count)

    def window(self, count: int) -> Flow[Flow[T]]:
        """Flows of ``count`` elements each; a window is emitted once it is full (or
        at completion), so it holds at most ``count`` elements.

        reactivex: ``window_with_count``. Reactor: ``window``."""
        return self.buffer(count).map(Flow.from_iterable)

    def reduce(self, fn: Callable[[T, T], T]) -> Flow[T]:
        """One element: ``fn`` folded over every element (none for an empty flow).

        reactivex: ``reduce``. Reactor: ``reduce``."""
        return self._op(lambda d: _aggregate.Reduce(d, fn, None, False), "reduce")

    def fold(self, fn: Callable[[R, T], R], initial: R) -> Flow[R]:
        """One element: ``fn`` folded over every element, starting from ``initial``.

        Reactor: ``collect``."""
        return self._op(lambda d: _aggregate.Reduce(d, fn, initial, True), "fold")

    def collect(self) -> Flow[list[T]]:
        """One element: the list of every element.

        reactivex: ``to_list``. Reactor: ``collectList``."""

        def append(acc: list[T], item: T) -> list[T]:
            acc.append(item)
            return acc

        return Flow(_DeferPublisher(lambda: self.fold(append, [])))

    # ======================================================== backpressure
    def on_backpressure_buffer(
        self,
        max_size: int,
        overflow: str = "error",
        on_drop: Callable[[T], object] | None = None,
    ) -> Flow[T]:
        """Request everything upstream; hold up to ``max_size`` undelivered elements.

        ``overflow``: ``"error"`` (``BufferOverflowError``), ``"drop_oldest"`` or
        ``"drop_latest"``; dropped elements go to ``on_drop``.

        Reactor: ``onBackpressureBuffer``, ``onBackpressureError``."""
        _check_positive("on_backpressure_buffer", max_size)
        if overflow not in _backpressure.OVERFLOW_STRATEGIES:
            raise ValueError(
                f"overflow must be one of {_backpressure.OVERFLOW_STRATEGIES}, got {overflow!r}"
            )
        return self._op(
            lambda d: _backpressure.OnBackpressureBuffer(d, max_size, overflow, on_drop),
            "on_backpressure_buffer",
        )

    def on_backpressure_drop(self, on_drop: Callable[[T], object] | None = None) -> Flow[T]:
        """Request everything upstream; drop what downstream has not requested.

        Reactor: ``onBackpressureDrop``."""
        return self._op(
            lambda d: _backpressure.OnBackpressureDrop(d, on_drop), "on_backpressure_drop"
        )

    def on_backpressure_latest(self) -> Flow[T]:
        """Request everything upstream; keep only the latest undelivered element.

        Reactor: ``onBackpressureLatest``."""
        return self._op(lambda d: _backpressure.OnBackpressureLatest(d), "on_backpressure_latest")

    # --- time: every timed operator takes ``scheduler`` (an executor with a clock; any
    # Executor is given the shared timer thread); None, asked at subscribe: the running
    # loop's clock when subscribed from a coroutine, else the shared pool,
    # ``default_executor()``. In tests, a ``ManualExecutor`` runs them in virtual time.
    @staticmethod
    def interval(
        period: float, initial_delay: float | None = None, *, scheduler: ExecutorLike | None = None
    ) -> Flow[int]:
        """0, 1, 2... every ``period`` seconds (the first after ``initial_delay``, default
        ``period``). A tick that finds no demand ends the stream with
        ``BufferOverflowError`` naming rule 1.1 (as Reactor's ``interval``); add
        ``on_backpressure_drop()``/``latest()`` to drop ticks instead.

        Reactor: ``interval``."""
        _timed.check_seconds("interval", period, positive=True)
        first = period if initial_delay is None else initial_delay
        _timed.check_seconds("interval", first)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return Flow(
            _timed.TimedPublisher(
                None, lambda d: _timed_sources.Interval(d, period, first, clock())
            )
        )

    @staticmethod
    def timer(delay: float, *, scheduler: ExecutorLike | None = None) -> Flow[int]:
        """Emits 0 after ``delay`` seconds, then completes; a due 0 waits for demand."""
        _timed.check_seconds("timer", delay)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return Flow(_timed.TimedPublisher(None, lambda d: _timed_sources.Timer(d, delay, clock())))

    def delay(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """Each element ``dt`` seconds after it arrived, in order; the completion after the
        last element; an error at once (elements still waiting are dropped). Upstream is
        asked for what downstream asks, so a due element always finds demand.

        reactivex: ``delay``. Reactor: ``delayElements``."""
        _timed.check_seconds("delay", dt)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed.Delay(d, dt, clock()))

    def delay_subscription(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """Subscribe upstream ``dt`` seconds after the subscriber (which gets
        ``on_subscribe`` at once; its requests wait and are forwarded in order).

        reactivex: ``delay_subscription``. Reactor: ``delaySubscription``."""
        _timed.check_seconds("delay_subscription", dt)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        source = self._source
        return Flow(
            _DeferPublisher(
                lambda: _delay_subscription.DelaySubscriptionPublisher(source, dt, clock())
            )
        )

    def timeout(
        self,
        dt: float,
        fallback: Publisher[T] | None = None,
        *,
        first_only: bool = False,
        scheduler: ExecutorLike | None = None,
    ) -> Flow[T]:
        """Each element (the first counted from the subscription; with ``first_only``,
        the first alone) must arrive within ``dt`` seconds of the previous one, demand or
        not. On a timeout upstream is cancelled, then ``on_error(TimeoutError)``, or
        ``fallback`` is subscribed and asked for the outstanding demand.

        reactivex: ``timeout``. Reactor: ``timeout``."""
        _timed.check_seconds("timeout", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed_window.Timeout(d, dt, fallback, clock(), first_only))

    def debounce(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """An element passes once ``dt`` seconds went by without a newer one (the pending
        one is emitted on completion). Upstream is unbounded; a value due with no demand
        waits, and a newer due value replaces it (latest).

        reactivex: ``debounce``, ``throttle_with_timeout``. Reactor: ``sampleTimeout``."""
        _timed.check_seconds("debounce", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed_window.Debounce(d, dt, clock()))

    def sample(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """Every ``dt`` seconds, the latest element since the previous tick, if any (the
        pending one is emitted on completion). Upstream is unbounded; a sampled value with
        no demand waits, and a newer one replaces it (latest).

        reactivex: ``sample``. Reactor: ``sample``."""
        _timed.check_seconds("sample", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed_window.Sample(d, dt, clock()))

    def throttle_latest(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """``sample(dt)``."""
        return self.sample(dt, scheduler=scheduler)

    def throttle_first(self, dt: float, *, scheduler: ExecutorLike | None = None) -> Flow[T]:
        """An element passes, then the others are dropped for ``dt`` seconds. Upstream is
        unbounded; an element that finds no demand is dropped and opens no window.

        reactivex: ``throttle_first``. Reactor: ``sampleFirst``."""
        _timed.check_seconds("throttle_first", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed_window.ThrottleFirst(d, dt, clock()))

    def buffer_timeout(
        self, count: int, dt: float, *, scheduler: ExecutorLike | None = None
    ) -> Flow[list[T]]:
        """Lists of up to ``count`` elements, emitted full or ``dt`` seconds after their
        first element. Upstream is asked for ``count`` per requested list; a list due
        with no demand waits for it (bounded by what was requested upstream).

        reactivex: ``buffer_with_time_or_count``. Reactor: ``bufferTimeout``."""
        _check_positive("buffer_timeout count", count)
        _timed.check_seconds("buffer_timeout", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe
        return self._timed(lambda d: _timed_window.BufferTimeout(d, count, dt, clock()))

    def _timed(self, make: Callable[[Subscriber[R]], _timed.TimedDrain[R]]) -> Flow[R]:
        return Flow(_timed.TimedPublisher(self._source, make))

    # ====================================================== async boundaries
    def observe_on(self, executor: ExecutorLike, prefetch: int = 128) -> Flow[T]:
        """Deliver signals on ``executor`` through a queue of at most ``prefetch`` elements
        (replenished after 75 % are consumed). Over a synchronous source the drain polls
        the source directly (micro-fusion).

        reactivex: ``observe_on``. Reactor: ``publishOn``."""
        if executor is None:
            raise TypeError(
                "observe_on: executor must be an executor, a concurrent.futures.Executor or "
                "an asyncio loop, got None (limit_rate(prefetch) queues without a hop)"
            )
        fuse = fusion_enabled()  # asked at subscribe; subscribe_on answers None (a barrier)
        hop = as_executor(executor)  # a pool or an asyncio loop, adapted (rule 2.2)
        return Flow(_observe_on.ObserveOnPublisher(self._source, hop, prefetch, fuse))

    def subscribe_on(self, executor: ExecutorLike) -> Flow[T]:
        """Subscribe, request and cancel on ``executor`` (a synchronous source then emits there).

        reactivex: ``subscribe_on``. Reactor: ``cancelOn``, ``subscribeOn``."""
        # a fusion barrier: SubscribeOnPublisher does not answer ``__rs_sync__``
        return Flow(_subscribe_on.SubscribeOnPublisher(self._source, as_executor(executor)))

    def limit_rate(self, prefetch: int) -> Flow[T]:
        """Ask upstream for at most ``prefetch`` at a time (then 75 % batches), whatever the
        downstream demand; elements wait in a queue of at most ``prefetch``.

        Reactor: ``limitRate``."""
        return Flow(_observe_on.ObserveOnPublisher(self._source, None, prefetch))

    # ================================================== errors and recovery
    def _switching(
        self, make: Callable[[Subscriber[R]], _arbiter.Arbiter[R]], name: str
    ) -> Flow[R]:
        return Flow(_arbiter.SwitchingPublisher(make, name))

    def retry(
        self,
        times: int | None = None,
        *,
        backoff: _recover.Backoff | None = None,
        scheduler: ExecutorLike | None = None,
    ) -> Flow[T]:
        """Resubscribe to this flow after an error, at most ``times`` times (None: without
        limit). The new subscription is asked for exactly the demand still outstanding
        (requested - delivered); a rule 3.9 error (an invalid request) is never retried.

        ``backoff`` (``reactive_streams.operators.Backoff(first, factor, max)``): wait
        ``first``, then ``first * factor``, ... (at most ``max``) seconds before each
        resubscription, on ``scheduler``'s clock (None: the running loop's when subscribed
        from a coroutine, else the shared pool, ``default_executor()``; a
        ``ManualExecutor`` waits in virtual time).

        reactivex: ``retry``. Reactor: ``retry``."""
        _args.check_times("retry", "times", times)
        if backoff is not None and not isinstance(backoff, _recover.Backoff):
            raise TypeError(f"retry: backoff must be a Backoff or None, got {backoff!r}")
        if backoff is None and scheduler is not None:
            raise ValueError("retry: scheduler is used only with a backoff")
        clock = _async_stage.clock(scheduler) if backoff is not None else None  # at subscribe
        source = self._source
        return self._switching(
            lambda d: _recover.Retry(d, source, times, backoff, clock and clock()), "retry"
        )

    def retry_when(self, predicate: Callable[[BaseException, int], object]) -> Flow[T]:
        """Resubscribe after an error while ``predicate(error, attempt)`` is true
        (``attempt`` counts the errors: 1, 2, ...); a raising predicate ends the stream
        with its error. Demand and rule 3.9 as ``retry``.

        Reactor: ``retryWhen``."""
        _args.check_callable("retry_when", "predicate", predicate)
        if _async_stage.is_coroutine_function(predicate):  # its coroutine is always true
            raise TypeError(
                f"retry_when({_name_of(predicate)}): the predicate is an async def, and its "
                "coroutine would count as true (retrying forever, never awaited); decide "
                "with a plain function, or await in the resubscribed flow: "
                "on_error_resume(lambda e: Flow.defer(...))"
            )
        source = self._source
        return self._switching(lambda d: _recover.RetryWhen(d, source, predicate), "retry_when")

    def on_error_resume(self, fn: Callable[[BaseException], Publisher[T]]) -> Flow[T]:
        """On an error, continue with the Publisher ``fn(error)``, which gets the demand
        still outstanding; ``fn`` raising ends the stream with its error.

        reactivex: ``catch``. Reactor: ``onErrorResume``."""
        _args.check_callable("on_error_resume", "fn", fn)
        source = self._source
        return self._switching(lambda d: _recover.OnErrorResume(d, source, fn), "on_error_resume")

    def on_error_return(self, value: T) -> Flow[T]:
        """On an error, emit ``value`` (when demanded) and complete.

        Reactor: ``onErrorReturn``."""
        _args.check_element("on_error_return", "value", value)
        source = self._source
        fallback: Publisher[T] = _sources.just(value)

        def resume(error: BaseException) -> Publisher[T]:
            return fallback

        return self._switching(
            lambda d: _recover.OnErrorReturn(d, source, resume), "on_error_return"
        )

    def on_error_complete(self) -> Flow[T]:
        """On an error, complete instead (the error is dropped).

        Reactor: ``onErrorComplete``."""
        return self._op(lambda d: _breadth.OnErrorComplete(d), "on_error_complete")

    def concat_with(self, *others: Publisher[T]) -> Flow[T]:
        """This flow's elements, then each of ``others``' in turn.

        reactivex: ``concat``. Reactor: ``concatWith``."""
        return Flow.concat(self, *others)

    @staticmethod
    def concat(*publishers: Publisher[T]) -> Flow[T]:
        """The elements of each publisher in turn, the next subscribed when the previous
        completes; demand not met by one carries over to the next.

        Reactor: ``concat``."""
        for i, publisher in enumerate(publishers):
            _args.check_publisher("concat", f"publishers[{i}]", publisher)
        if not publishers:
            return Flow.empty()
        return Flow(_arbiter.SwitchingPublisher(lambda d: _recover.Concat(d, publishers), "concat"))

    def start_with(self, *items: T) -> Flow[T]:
        """``items`` first, then this flow's elements.

        reactivex: ``start_with``. Reactor: ``startWith``."""
        for i, item in enumerate(items):
            _args.check_element("start_with", f"items[{i}]", item)
        sources = (_sources.from_iterable(items), self._source)
        return self._switching(lambda d: _recover.StartWith(d, sources), "start_with")

    def switch_if_empty(self, other: Publisher[T]) -> Flow[T]:
        """This flow's elements; if it completes without any, ``other``'s.

        Reactor: ``switchIfEmpty``."""
        _args.check_publisher("switch_if_empty", "other", other)
        source = self._source
        return self._switching(
            lambda d: _recover.SwitchIfEmpty(d, source, other), "switch_if_empty"
        )

    def default_if_empty(self, value: T) -> Flow[T]:
        """This flow's elements; if it completes without any, ``value`` (when demanded).

        reactivex: ``default_if_empty``. Reactor: ``defaultIfEmpty``."""
        _args.check_element("default_if_empty", "value", value)
        source = self._source
        fallback: Publisher[T] = _sources.just(value)
        return self._switching(
            lambda d: _recover.DefaultIfEmpty(d, source, fallback), "default_if_empty"
        )

    @staticmethod
    def defer(factory: Callable[[], Publisher[T]]) -> Flow[T]:
        """A fresh Publisher ``factory()`` per subscriber; ``factory`` raising (or not
        returning a Publisher) is ``on_subscribe`` then ``on_error`` (rule 1.9).

        Reactor: ``defer``."""
        _args.check_callable("defer", "factory", factory)
        return Flow(_arbiter.SwitchingPublisher(lambda d: _recover.Defer(d, factory), "defer"))

    @overload
    def pipe(self, op1: Callable[[Flow[T]], Publisher[A]], /) -> Flow[A]: ...

    @overload
    def pipe(
        self, op1: Callable[[Flow[T]], Publisher[A]], op2: Callable[[Flow[A]], Publisher[B]], /
    ) -> Flow[B]: ...

    @overload
    def pipe(
        self,
        op1: Callable[[Flow[T]], Publisher[A]],
        op2: Callable[[Flow[A]], Publisher[B]],
        op3: Callable[[Flow[B]], Publisher[C]],
        /,
    ) -> Flow[C]: ...

    @overload
    def pipe(self, *ops: Callable[[Flow[Any]], Publisher[Any]]) -> Flow[Any]: ...

    def pipe(self, *ops: Callable[[Flow[Any]], Publisher[Any]]) -> Flow[Any]:
        """``ops[-1](...ops[1](ops[0](self)))``: a reusable chain of operators, each a
        function from a Flow to a Publisher (RxPY's ``pipe``), applied now.

        reactivex: ``compose``."""
        flow: Flow[Any] = self
        for position, op in enumerate(ops, 1):
            _args.check_callable("pipe", f"operator {position}", op)
            _refuse_foreign("pipe", position, op)
            result = op(flow)
            _args.check_publisher("pipe", f"the result of operator {position}", result)
            _refuse_foreign("pipe", position, op, result)
            flow = Flow.from_publisher(result)
        return flow

    def transform(self, fn: Callable[[Flow[T]], Publisher[R]]) -> Flow[R]:
        """``fn(self)`` as a Flow: a reusable chain of operators (Reactor's ``transform``).

        Reactor: ``transform``."""
        return self.pipe(fn)

    def do_on_error(self, action: Callable[[BaseException], object]) -> Flow[T]:
        """Calls ``action(error)`` before passing an error on (if it raises, its error
        goes on instead, the original as ``__context__``).

        Reactor: ``doOnError``."""
        _args.check_callable("do_on_error", "action", action)
        return self._op(lambda d: _breadth.DoOnError(d, action), "do_on_error")

    def do_on_complete(self, action: Callable[[], object]) -> Flow[T]:
        """Calls ``action()`` before passing the completion on (if it raises: on_error).

        Reactor: ``doOnComplete``."""
        _args.check_callable("do_on_complete", "action", action)
        return self._op(lambda d: _breadth.DoOnComplete(d, action), "do_on_complete")

    def do_finally(self, action: Callable[[], object]) -> Flow[T]:
        """Calls ``action()`` once, after the terminal signal was passed on or after a
        cancel; its fault is logged.

        reactivex: ``finally_action``. Reactor: ``doAfterTerminate``, ``doFinally``."""
        _args.check_callable("do_finally", "action", action)
        return self._op(lambda d: _breadth.DoFinally(d, action), "do_finally")

    # ============================================================ breadth
    def distinct(self, key: Callable[[T], Hashable] | None = None) -> Flow[T]:
        """Elements whose ``key(item)`` (default: the item) was not seen before; the keys
        seen are kept until the end of the subscription.

        reactivex: ``distinct``. Reactor: ``distinct``."""
        if key is not None:
            _args.check_callable("distinct", "key", key)
        return self._op(lambda d: _breadth.Distinct(d, key), "distinct")

    def distinct_until_changed(self, key: Callable[[T], object] | None = None) -> Flow[T]:
        """Elements whose ``key(item)`` (default: the item) differs from the previous one's.

        reactivex: ``distinct_until_changed``. Reactor: ``distinctUntilChanged``."""
        if key is not None:
            _args.check_callable("distinct_until_changed", "key", key)
        return self._op(lambda d: _breadth.DistinctUntilChanged(d, key), "distinct_until_changed")

    def skip_while(self, predicate: Callable[[T], object]) -> Flow[T]:
        """Drops elements while ``predicate`` holds, then passes all.

        reactivex: ``skip_while``. Reactor: ``skipWhile``."""
        _args.check_callable("skip_while", "predicate", predicate)
        return self._op(lambda d: _breadth.SkipWhile(d, predicate), "skip_while")

    def ignore_elements(self) -> Flow[T]:
        """Only the terminal signal (upstream is asked for everything).

        reactivex: ``ignore_elements``. Reactor: ``ignoreElements``."""
        return self._op(lambda d: _breadth.IgnoreElements(d), "ignore_elements")

    def count(self) -> Flow[int]:
        """One element: the number of elements, at completion (when demanded).

        reactivex: ``count``. Reactor: ``count``."""
        return self._op(lambda d: _tail.Count(d), "count")

    def element_at(self, index: int, default: T = _tail.MISSING) -> Flow[T]:
        """One element: the one at ``index`` (upstream is cancelled there); an earlier
        end gives ``default``, or ``IndexError`` without one.

        reactivex: ``element_at``, ``element_at_or_default``. Reactor: ``elementAt``."""
        _check_count("element_at", index)
        if default is not _tail.MISSING:
            _args.check_element("element_at", "default", default)
        return self._op(lambda d: _tail.ElementAt(d, index, default), "element_at")

    def all(self, predicate: Callable[[T], object]) -> Flow[bool]:
        """One element: whether ``predicate`` holds for every element (the first failure
        cancels upstream and decides).

        reactivex: ``all``. Reactor: ``all``."""
        _args.check_callable("all", "predicate", predicate)
        return self._op(lambda d: _tail.All(d, predicate), "all")

    def any(self, predicate: Callable[[T], object]) -> Flow[bool]:
        """One element: whether ``predicate`` holds for some element (the first success
        cancels upstream and decides).

        reactivex: ``some``. Reactor: ``any``."""
        _args.check_callable("any", "predicate", predicate)
        return self._op(lambda d: _tail.Any_(d, predicate), "any")

    def take_last(self, count: int) -> Flow[T]:
        """The last ``count`` elements, after completion (upstream is asked for all).

        reactivex: ``take_last``. Reactor: ``takeLast``."""
        _check_count("take_last", count)
        return self._op(lambda d: _tail.TakeLast(d, count), "take_last")

    def skip_last(self, count: int) -> Flow[T]:
        """All but the last ``count`` elements (each is held until ``count`` newer arrive).

        reactivex: ``skip_last``. Reactor: ``skipLast``."""
        _check_count("skip_last", count)
        if count == 0:
            return self
        return self._op(lambda d: _breadth.SkipLast(d, count), "skip_last")

    # ========================= combining, switching, grouping, windows by time
    @staticmethod
    def combine_latest(
        *publishers: Publisher[Any],
        combiner: Callable[..., R] | None = None,
        prefetch: int = 32,
    ) -> Flow[Any]:
        """Once every publisher has emitted, each element of any of them emits
        ``combiner(*latest)`` (default: the tuple of the latest elements). Completes when
        all have completed, or when one completes without an element; an error (or
        ``combiner`` raising) ends it at once. Each source is asked for ``prefetch``.

        Reactor: ``combineLatest``."""
        _check_publishers("Flow.combine_latest", publishers)
        if not publishers:
            raise ValueError("combine_latest: publishers must not be empty")
        if combiner is not None:
            _args.check_callable("combine_latest", "combiner", combiner)
        _check_positive("combine_latest prefetch", prefetch)
        return Flow(_combine.CombinePublisher(publishers, combiner, prefetch, None))

    def combine_latest_with(self, other: Publisher[R]) -> Flow[tuple[T, R]]:
        """``Flow.combine_latest(self, other)``: pairs of the latest elements.

        reactivex: ``combine_latest``."""
        return Flow.combine_latest(self, other)

    def with_latest_from(
        self,
        *others: Publisher[Any],
        combiner: Callable[..., R] | None = None,
        prefetch: int = 32,
    ) -> Flow[Any]:
        """Each element combined with the latest element of every one of ``others``:
        ``combiner(mine, *theirs)`` (default: a tuple). An element that comes before
        every other has emitted is dropped; completes with this flow. ``others`` are
        subscribed first and asked for ``prefetch`` (replenished as they arrive).

        reactivex: ``with_latest_from``. Reactor: ``withLatestFrom``."""
        _check_publishers("Flow.with_latest_from", others)
        if not others:
            raise ValueError("with_latest_from: others must not be empty")
        if combiner is not None:
            _args.check_callable("with_latest_from", "combiner", combiner)
        _check_positive("with_latest_from prefetch", prefetch)
        sources = (self._source, *others)
        return Flow(_combine.CombinePublisher(sources, combiner, prefetch, 0))

    def switch_map(self, fn: Callable[[T], Inner[R]], prefetch: int = 32) -> Flow[R]:
        """Map each element to a Publisher (or iterable, awaitable) and mirror the latest
        only: a new element cancels the current inner. Upstream is unbounded; the inner
        is asked for ``prefetch`` (replenished at 75 %). Completes when upstream and the
        last inner have completed.

        reactivex: ``flat_map_latest``, ``switch_map``. Reactor: ``switchMap``."""
        _args.check_callable("switch_map", "fn", fn)
        _check_positive("switch_map prefetch", prefetch)
        return self._async_stage(
            "switch_map",
            fn,
            lambda m: Flow(_switch_map.SwitchMapPublisher(self._source, m, prefetch)),
        )

    def group_by(
        self, key: Callable[[T], K], *, max_groups: int = 256, prefetch: int = 256
    ) -> Flow[GroupedFlow[K, T]]:
        """One ``GroupedFlow`` (a Flow with its ``key``; one subscriber) per key, emitted
        at the key's first element. At most ``max_groups`` groups are open at once: a new
        key past it ends the stream and every group with ``ValueError`` naming
        ``max_groups``. Upstream is asked for ``prefetch``, replenished as the groups'
        subscribers consume, so a group nobody consumes stalls the stream.

        reactivex: ``group_by``. Reactor: ``groupBy``."""

        _args.check_callable("group_by", "key", key)
        _check_positive("group_by max_groups", max_groups)
        _check_positive("group_by prefetch", prefetch)
        groups = _GroupsFlow(
            _group_by.GroupByPublisher(self._source, key, max_groups, prefetch, GroupedFlow)
        )
        groups._max_groups = max_groups
        return groups

    def window_timeout(
        self, count: int, dt: float, *, scheduler: ExecutorLike | None = None
    ) -> Flow[Flow[T]]:
        """Windows (Flows) of up to ``count`` elements, emitted full or ``dt`` seconds after
        their first element (``buffer_timeout``'s lists as Flows). Upstream is asked for
        ``count`` per requested window; a window due with no demand waits for it.

        reactivex: ``window_with_time_or_count``. Reactor: ``windowTimeout``."""
        _check_positive("window_timeout count", count)
        _timed.check_seconds("window_timeout", dt, positive=True)
        clock = _async_stage.clock(scheduler)  # asked at subscribe

        def make(d: Subscriber[Flow[T]]) -> _timed.TimedDrain[Flow[T]]:
            hop = _timed_window.WindowTimeout(d, count, dt, clock(), Flow.from_iterable)
            return cast("_timed.TimedDrain[Flow[T]]", hop)

        return self._timed(make)

    # ================================================================ multicast
    def publish(
        self,
        buffer_size: int = 256,
        on_disconnect: OnDisconnect = "error",
        *,
        lead: int | None = None,
    ) -> ConnectableFlow[T]:
        """Share one subscription among many subscribers in lockstep, or with ``lead=N``
        each at its own pace, at most ``N`` ahead of the slowest: a ``ConnectableFlow``
        (see :func:`reactive_streams.multicast.publish`).

        reactivex: ``multicast``, ``publish``. Reactor: ``publish``."""
        from .multicast._publish import publish_hub

        return ConnectableFlow(publish_hub(self, buffer_size, on_disconnect, lead=lead))

    def share(self, buffer_size: int = 256, *, lead: int | None = None) -> RefCountFlow[T]:
        """``publish(buffer_size, lead=lead).ref_count()``: one upstream subscription shared
        while anyone subscribes (Reactor's and RxPY's ``share``).

        reactivex: ``share``. Reactor: ``share``."""
        return self.publish(buffer_size, lead=lead).ref_count()

    def replay(
        self, bound: int | None = None, on_disconnect: OnDisconnect = "error"
    ) -> ConnectableFlow[T]:
        """Share one subscription and replay the last ``bound`` elements (None: all) to late
        subscribers: a ``ConnectableFlow`` (see :func:`reactive_streams.multicast.replay`).

        reactivex: ``replay``. Reactor: ``cache``, ``replay``."""
        from .multicast._replay import replay_hub

        return ConnectableFlow(replay_hub(self, bound, on_disconnect))

    # ================================================================ terminals
    def to_list(self, timeout: float | None = None) -> list[T]:
        """Block until completion and return every element (raises the stream's error).

        ``timeout`` (seconds) bounds the whole call: ``TimeoutError`` after cancelling.
        Inside a coroutine use ``await flow.aio.to_list()``."""
        from .bridges import wait_result

        return cast("list[T]", wait_result(self, "list", "to_list", timeout))

    def first(self, timeout: float | None = None) -> T:
        """Block for the first element, then cancel (``LookupError`` if there is none).

        Reactor: ``blockFirst``."""
        from .bridges import wait_result

        return cast("T", wait_result(self, "first", "first", timeout))

    def last(self, timeout: float | None = None) -> T:
        """Block until completion and return the last element (``LookupError`` if none).

        Reactor: ``blockLast``."""
        from .bridges import wait_result

        return cast("T", wait_result(self, "last", "last", timeout))

    def blocking_iter(self, prefetch: int = 128, *, timeout: float | None = None) -> Iterator[T]:
        """A blocking iterator keeping at most ``prefetch`` elements requested ahead.

        ``timeout`` bounds each wait for the next element (not the whole loop);
        breaking out of the loop cancels.

        reactivex: ``to_iterable``. Reactor: ``toIterable``."""
        from .bridges import to_iterable

        return to_iterable(self, prefetch, timeout=timeout)

    def to_async_iterator(self, prefetch: int = 128) -> AsyncFlowIterator[T]:
        """An async iterator for ``async for`` (iterate inside a running event loop).

        Cancels when the stream ends, on ``aclose()``, when an ``async with`` block over it
        exits, and when it is dropped (so ``break`` cancels at once when the loop held the
        only reference)."""
        from .bridges import to_async_iterator

        return to_async_iterator(self, prefetch)

    @property
    def aio(self) -> AsyncTerminals[T]:
        """Awaitable terminals: ``await flow.aio.first()``, ``.last()``, ``.to_list()``."""
        return AsyncTerminals(self)

    # ============================================ more operators (issue 40, item 7)
    # never, repeat, take/skip_until, first/last/single, min/max/sum/average, to_dict,
    # pairwise, timestamp/time_interval, partition, log, materialize, amb, using,
    # merge_sequential, exhaust_map: one module per family under operators/
    @staticmethod
    def never() -> Flow[Any]:
        """``on_subscribe``, then nothing: no element, no terminal signal, whatever the
        demand (rule 1.1 allows fewer than requested); a cancel ends it (rule 3.13), an
        invalid request fails it (rule 3.9).

        Reactor: ``never``."""
        return Flow(_never.NeverPublisher())

    def repeat(self, times: int | None = None) -> Flow[T]:
        """Resubscribe to this flow after it completes, ``times`` more times (None:
        without end), so ``times + 1`` subscriptions in all, as Reactor's ``repeat(n)``
        (reactivex's ``repeat(n)`` is ``repeat(n - 1)`` here). The new subscription gets
        exactly the demand still outstanding (requested - delivered); an error passes on
        at once; a rule 3.9 error is never repeated.

        reactivex: ``repeat``. Reactor: ``repeat``."""
        _args.check_times("repeat", "times", times)
        source = self._source
        return self._switching(lambda d: _repeat.Repeat(d, source, times), "repeat")

    def repeat_when(self, predicate: Callable[[int], object]) -> Flow[T]:
        """Resubscribe after each completion while ``predicate(completions)`` is true
        (``completions``: 1, 2, ...); a raising predicate ends the stream with its
        error. Demand and rule 3.9 as ``repeat``.

        Reactor: ``repeatWhen``."""
        _args.check_callable("repeat_when", "predicate", predicate)
        source = self._source
        return self._switching(lambda d: _repeat.RepeatWhen(d, source, predicate), "repeat_when")

    def take_until(self, other: Publisher[Any], prefetch: int = 32) -> Flow[T]:
        """This flow's elements until ``other`` emits an element or completes (then the
        stream completes and both are cancelled, rule 3.12); ``other``'s error before
        that fails the stream. ``other`` is subscribed first and asked for one element;
        this flow is asked for ``prefetch``, replenished at 75 %, and its elements wait
        for demand (rule 1.1).

        reactivex: ``take_until``. Reactor: ``takeUntilOther``."""
        _args.check_publisher("take_until", "other", other)
        _check_positive("take_until prefetch", prefetch)
        return Flow(_until.UntilPublisher(self._source, other, False, prefetch))

    def skip_until(self, other: Publisher[Any], prefetch: int = 32) -> Flow[T]:
        """This flow's elements from the moment ``other`` emits an element or completes
        (earlier ones are dropped and replaced upstream); ``other``'s error before that
        fails the stream. Demand as ``take_until``.

        reactivex: ``skip_until``. Reactor: ``skipUntilOther``."""
        _args.check_publisher("skip_until", "other", other)
        _check_positive("skip_until prefetch", prefetch)
        return Flow(_until.UntilPublisher(self._source, other, True, prefetch))

    def first_element(self, default: T = _tail.MISSING) -> Flow[T]:
        """One element: the first (upstream is cancelled there, rule 3.12); an empty flow
        gives ``default``, or ``IndexError`` without one (reactivex's ``first`` /
        ``first_or_default``, Reactor's ``next``). The blocking terminal is ``first()``.

        reactivex: ``first``, ``first_or_default``. Reactor: ``next``."""
        if default is not _tail.MISSING:
            _args.check_element("first_element", "default", default)
        return self._op(lambda d: _pick.FirstElement(d, default), "first_element")

    def last_element(self, default: T = _tail.MISSING) -> Flow[T]:
        """One element: the last, at completion; an empty flow gives ``default``, or
        ``IndexError`` without one. The blocking terminal is ``last()``.

        reactivex: ``last``, ``last_or_default``. Reactor: ``last``."""
        if default is not _tail.MISSING:
            _args.check_element("last_element", "default", default)
        return self._op(lambda d: _pick.LastElement(d, default), "last_element")

    def single(self, default: T = _tail.MISSING) -> Flow[T]:
        """One element: the only one. A second element fails the stream with
        ``ValueError`` (upstream cancelled, rule 3.12); an empty flow gives ``default``,
        or ``IndexError`` without one.

        reactivex: ``single``, ``single_or_default``, ``single_or_default_async``. Reactor:
        ``single``."""
        if default is not _tail.MISSING:
            _args.check_element("single", "default", default)
        return self._op(lambda d: _pick.Single(d, default), "single")

    def min(self, key: Callable[[T], Any] | None = None) -> Flow[T]:
        """One element: the least by ``key`` (the first of equals), at completion; an
        empty flow completes empty (reactivex fails).

        reactivex: ``min``, ``min_by``."""
        if key is not None:
            _args.check_callable("min", "key", key)
        return self._op(lambda d: _math.Extreme(d, "min", key), "min")

    def max(self, key: Callable[[T], Any] | None = None) -> Flow[T]:
        """One element: the greatest by ``key`` (the first of equals), at completion; an
        empty flow completes empty (reactivex fails).

        reactivex: ``max``, ``max_by``."""
        if key is not None:
            _args.check_callable("max", "key", key)
        return self._op(lambda d: _math.Extreme(d, "max", key), "max")

    def sum(self, start: Any = 0) -> Flow[Any]:
        """One element: ``start`` plus every element, at completion (``start`` when
        empty).

        reactivex: ``sum``."""
        _args.check_element("sum", "start", start)
        return self._op(lambda d: _math.Sum(d, start), "sum")

    def average(self, key: Callable[[T], Any] | None = None) -> Flow[float]:
        """One element: the mean of ``key(x)`` (of the elements without a key), at
        completion; an empty flow completes empty (reactivex fails).

        reactivex: ``average``."""
        if key is not None:
            _args.check_callable("average", "key", key)
        return self._op(lambda d: _math.Average(d, key), "average")

    def to_dict(
        self, key: Callable[[T], K], value: Callable[[T], Any] | None = None
    ) -> Flow[dict[K, Any]]:
        """One element: ``{key(x): value(x)}`` (``x`` itself without ``value``) over every
        element, a later element winning its key; ``{}`` when empty.

        reactivex: ``to_dict``. Reactor: ``collectMap``."""
        _args.check_callable("to_dict", "key", key)
        if value is not None:
            _args.check_callable("to_dict", "value", value)
        return self._op(lambda d: _math.ToDict(d, key, value), "to_dict")

    def pairwise(self) -> Flow[tuple[T, T]]:
        """``(previous, current)`` for each element after the first; upstream is asked for
        downstream's demand plus the first element, at subscription.

        reactivex: ``pairwise``."""
        return self._op(lambda d: _pairwise.Pairwise(d), "pairwise")

    def timestamp(self, *, scheduler: ExecutorLike | None = None) -> Flow[tuple[float, T]]:
        """``(time, element)``: the time read on ``scheduler``'s clock at the element's
        arrival (None: the running loop's when subscribed from a coroutine, else the
        shared pool's monotonic clock; a ``ManualExecutor``'s is virtual).

        reactivex: ``timestamp``. Reactor: ``timed``, ``timestamp``."""
        clock = _scheduler_clock("timestamp", scheduler)  # asked at subscribe
        return self._op(lambda d: _stamp.Timestamp(d, clock()), "timestamp")

    def time_interval(self, *, scheduler: ExecutorLike | None = None) -> Flow[tuple[float, T]]:
        """``(seconds since the previous element, element)`` on ``scheduler``'s clock (as
        ``timestamp``); the first element's interval counts from the subscription.

        reactivex: ``time_interval``. Reactor: ``elapsed``."""
        clock = _scheduler_clock("time_interval", scheduler)  # asked at subscribe
        return self._op(lambda d: _stamp.TimeInterval(d, clock()), "time_interval")

    def partition(self, predicate: Callable[[T], object]) -> tuple[Flow[T], Flow[T]]:
        """``(elements where predicate holds, the others)``: two flows, each a ``filter``
        that subscribes this flow on its own (put ``share()`` first to subscribe once;
        then the two advance together, at the slower one's pace).

        reactivex: ``partition``."""
        _args.check_callable("partition", "predicate", predicate)
        return self.filter(predicate), self.filter(_partition.Not(predicate))

    def log(
        self, name: str = "flow", *, logger: logging.Logger | None = None, level: int = 20
    ) -> Flow[T]:
        """Pass everything on, logging each signal and call first (Reactor's ``log()``):
        ``on_subscribe``, ``request(n)``, ``on_next(x)``, ``on_error``, ``on_complete``,
        ``cancel``, each as ``"<name> ..."`` at ``level`` (INFO) on ``logger`` (None: the
        ``reactive_streams.log`` logger).

        Reactor: ``log``."""
        if not isinstance(name, str):
            raise TypeError(f"log: name must be a str, got {name!r}")
        if type(level) is not int:
            raise TypeError(f"log: level must be a logging level (an int), got {level!r}")
        target = logging.getLogger("reactive_streams.log") if logger is None else logger
        if not isinstance(target, logging.Logger):
            raise TypeError(f"log: logger must be a logging.Logger, got {logger!r}")
        return self._op(lambda d: _log.Log(d, name, target, level), "log")

    def materialize(self) -> Flow[Notification[T]]:
        """Every signal as an element: ``Notification.next(x)`` per element, then
        ``Notification.completed()`` or ``Notification.failed(error)``, then completion
        (the last notification waits for demand, rule 1.1).

        reactivex: ``materialize``. Reactor: ``materialize``."""
        return (
            self.map(Notification.next)
            .concat_with(Flow.just(Notification.completed()))
            .on_error_resume(lambda error: Flow.just(Notification.failed(error)))
        )

    def dematerialize(self: Flow[Notification[R]]) -> Flow[R]:
        """The signals of a flow of ``Notification``s: a value passes on, an error or
        completion notification ends the stream (upstream cancelled, rule 3.12); an
        element that is not a ``Notification`` fails it with ``TypeError``.

        reactivex: ``dematerialize``. Reactor: ``dematerialize``."""
        return self._op(lambda d: _notification.Dematerialize(d), "dematerialize")

    @staticmethod
    def amb(*publishers: Publisher[T]) -> Flow[T]:
        """The first publisher to signal (an element, an error or its completion) wins
        and is mirrored; the others are cancelled (rule 3.12). Requests go to every
        publisher until one wins, then to the winner (reactivex's ``amb``, Reactor's
        ``firstWithSignal``).

        reactivex: ``amb``. Reactor: ``firstWithSignal``."""
        for i, publisher in enumerate(publishers):
            _args.check_publisher("amb", f"publishers[{i}]", publisher)
        if not publishers:
            return Flow.empty()
        return Flow(_amb.AmbPublisher(publishers))

    def amb_with(self, *others: Publisher[T]) -> Flow[T]:
        """``Flow.amb(self, *others)`` (Reactor's ``or``).

        Reactor: ``or``."""
        return Flow.amb(self, *others)

    @staticmethod
    def using(
        acquire: Callable[[], S],
        make: Callable[[S], Publisher[T]],
        release: Callable[[S], object],
    ) -> Flow[T]:
        """Per subscriber: ``resource = acquire()``, the elements of ``make(resource)``,
        then ``release(resource)`` once, after the terminal signal or the cancel (its
        fault is logged). A raising ``acquire``/``make`` is ``on_subscribe`` then
        ``on_error`` (rule 1.9; an acquired resource is released).

        Reactor: ``using``."""
        _args.check_callable("using", "acquire", acquire)
        _args.check_callable("using", "make", make)
        _args.check_callable("using", "release", release)
        return Flow(
            _arbiter.SwitchingPublisher(lambda d: _using.Using(d, acquire, make, release), "using")
        )

    @staticmethod
    def merge_sequential(*publishers: Publisher[T], prefetch: int = 32) -> Flow[T]:
        """Every publisher subscribed at once, their elements emitted in publisher order:
        the first one's, then the second's (Reactor's ``mergeSequential``). Each is asked
        for ``prefetch`` (replenished at 75 %) while it waits its turn; the first error
        passes at once and cancels the rest.

        Reactor: ``mergeSequential``."""
        for i, publisher in enumerate(publishers):
            _args.check_publisher("merge_sequential", f"publishers[{i}]", publisher)
        _check_positive("merge_sequential prefetch", prefetch)
        if not publishers:
            return Flow.empty()
        return Flow(_sequential.MergeSequentialPublisher(publishers, prefetch))

    def buffer_until(self, predicate: Callable[[T], object]) -> Flow[list[T]]:
        """Lists closed by an element for which ``predicate`` holds (it is the list's
        last); the list open at completion follows (Reactor's ``bufferUntil``). Demand as
        ``filter``: ``request(n)`` asks ``n``, each element closing no list is replaced.

        Reactor: ``bufferUntil``."""
        _args.check_callable("buffer_until", "predicate", predicate)
        return self._op(lambda d: _cut.BufferUntil(d, predicate), "buffer_until")

    def buffer_while(self, predicate: Callable[[T], object]) -> Flow[list[T]]:
        """Lists of consecutive elements for which ``predicate`` holds; an element for
        which it fails closes a non-empty list and is dropped; the list open at completion
        follows (Reactor's ``bufferWhile``). Demand as ``buffer_until``.

        Reactor: ``bufferWhile``."""
        _args.check_callable("buffer_while", "predicate", predicate)
        return self._op(lambda d: _cut.BufferWhile(d, predicate), "buffer_while")

    def buffer_until_changed(self, key: Callable[[T], object] | None = None) -> Flow[list[T]]:
        """Lists of consecutive elements whose ``key(item)`` (default: the item) is equal;
        an element of another key closes the list and opens the next; the list open at
        completion follows. Demand as ``buffer_until``.

        Reactor: ``bufferUntilChanged``."""
        if key is not None:
            _args.check_callable("buffer_until_changed", "key", key)
        fn = _identity if key is None else key
        return self._op(lambda d: _cut.BufferUntilChanged(d, fn), "buffer_until_changed")

    def flat_map_sequential(
        self, fn: Callable[[T], Inner[R]], max_concurrency: int = 256, prefetch: int = 32
    ) -> Flow[R]:
        """Map each element to a Publisher (or iterable, awaitable), subscribed at once
        (up to ``max_concurrency`` inners), and emit the inners' elements in upstream
        order (Reactor's ``flatMapSequential``). Upstream is asked for
        ``max_concurrency``, and one more as each inner was emitted whole; each inner for
        ``prefetch`` (replenished at 75 %); the first error passes at once.

        Reactor: ``flatMapSequential``."""
        _args.check_callable("flat_map_sequential", "fn", fn)
        _check_positive("flat_map_sequential max_concurrency", max_concurrency)
        _check_positive("flat_map_sequential prefetch", prefetch)
        return self._async_stage(
            "flat_map_sequential",
            fn,
            lambda m: Flow(
                _sequential.FlatMapSequentialPublisher(self._source, m, max_concurrency, prefetch)
            ),
        )

    def exhaust_map(self, fn: Callable[[T], Inner[R]], prefetch: int = 32) -> Flow[R]:
        """Map an element to a Publisher (or iterable, awaitable) and mirror it; elements
        that arrive while it has not completed (or still holds undelivered elements) are
        dropped (reactivex's ``exclusive``). Upstream is unbounded; the inner is asked
        for ``prefetch`` (replenished at 75 %)."""
        _args.check_callable("exhaust_map", "fn", fn)
        _check_positive("exhaust_map prefetch", prefetch)
        return self._async_stage(
            "exhaust_map",
            fn,
            lambda m: Flow(_exhaust.ExhaustMapPublisher(self._source, m, prefetch)),
        )


class AsyncTerminals(Generic[T]):
    """The terminals of a Flow for asyncio code; none of them blocks the event loop.

    Cancelling the awaiting task cancels the subscription; for a deadline wrap the
    await in ``asyncio.timeout(seconds)``."""

    __slots__ = ("_flow",)

    def __init__(self, flow: Flow[T]) -> None:
        self._flow = flow

    async def to_list(self) -> list[T]:
        """Every element, at completion (raises the stream's error)."""
        from .bridges import await_result

        return cast("list[T]", await await_result(self._flow, "list", "to_list"))

    async def first(self) -> T:
        """The first element, then cancel (``LookupError`` if the flow is empty)."""
        from .bridges import await_result

        return cast("T", await await_result(self._flow, "first", "first"))

    async def last(self) -> T:
        """The last element, at completion (``LookupError`` if the flow is empty).

        reactivex: ``to_future``."""
        from .bridges import await_result

        return cast("T", await await_result(self._flow, "last", "last"))


class _GroupsFlow(Flow[T]):
    """What ``group_by`` returns: a Flow of groups that knows its ``max_groups``, so a
    ``flat_map``/``concat_map`` applied to it that could not subscribe every open group
    fails at assembly instead of hanging at run time."""

    __slots__ = ("_max_groups",)
    _max_groups: int

    def check_consumer(self, hop: str, max_concurrency: int) -> None:
        """A group past the consumer's ``max_concurrency`` open inners is never
        subscribed: its elements wait in group_by's buffer, which stalls every group once
        full (a hang with no error). Refused unless ``max_groups <= max_concurrency``."""
        groups = self._max_groups
        if groups <= max_concurrency:
            return
        asked = "" if hop == "concat_map" else f"(max_concurrency={max_concurrency})"
        raise ValueError(
            f"{hop}{asked} consumes group_by(max_groups={groups}): a group past "
            f"{max_concurrency} open at once would never be subscribed, and group_by would "
            f"stall every group once its buffer filled (a hang, no error). Give group_by "
            f"max_groups={max_concurrency} (a key past it then fails naming max_groups) or "
            f"flat_map max_concurrency={groups} or more"
        )


class GroupedFlow(Flow[T], Generic[K, T]):
    """The elements of one key of :meth:`Flow.group_by`; ``key`` is that key. One
    subscriber only."""

    __slots__ = ("key",)

    def __init__(self, key: K, source: Publisher[T]) -> None:
        super().__init__(source)
        self.key = key


class ConnectableFlow(Flow[T]):
    """A multicasting Flow whose source runs between ``connect()`` and ``disconnect()``
    (``publish``, ``replay``): multicast's connectable publisher, wrapped."""

    __slots__ = ()

    def __init__(self, hub: _Hub[T]) -> None:
        super().__init__(hub)

    @property
    def _hub(self) -> _Hub[T]:
        return cast("_Hub[T]", self._source)

    @property
    def connection(self) -> Connection[T]:
        """The connection new subscribers join (not necessarily connected yet)."""
        return self._hub.current()

    def connect(self) -> Connection[T]:
        """Start the current connection (if not started) and return it."""
        return self._hub.connect()

    def ref_count(self) -> RefCountFlow[T]:
        """A Flow that connects on its first subscriber and disconnects after its last.

        reactivex: ``ref_count``."""
        from .multicast._connectable import _RefCount

        return RefCountFlow(_RefCount(self._hub))

    def auto_connect(self, n: int = 1) -> Flow[T]:
        """A Flow that connects once, when its ``n``-th subscriber arrives (``n == 0``:
        now), and never disconnects (Reactor's ``autoConnect``)."""
        from .multicast._connectable import _AutoConnect

        if type(n) is not int or n < 0:
            raise ValueError(f"auto_connect: n must be an int >= 0, got {n!r}")
        auto = _AutoConnect(self._hub, n)
        if n == 0:
            self.connect()
        return Flow(auto)


class RefCountFlow(Flow[T]):
    """Connects when its subscriber count goes 0 -> 1 and disconnects at 1 -> 0.

    A subscriber stops counting when it cancels or receives its terminal signal.
    """

    __slots__ = ()

    def __init__(self, counter: _RefCount[T]) -> None:
        super().__init__(counter)

    @property
    def _counter(self) -> _RefCount[T]:
        return cast("_RefCount[T]", self._source)

    @property
    def subscriber_count(self) -> int:
        return self._counter.count()


# every stage describes itself in repr: one wrapper records the call (_describe)
# (just: the inner of many a flat_map, left bare; repr reads its value off the publisher)
_describe.install(
    Flow,
    skip=("subscribe", "to_list", "first", "last", "blocking_iter", "to_async_iterator", "just"),
)
_describe.install(ConnectableFlow, skip=("connect",))  # ref_count(), auto_connect(n)
