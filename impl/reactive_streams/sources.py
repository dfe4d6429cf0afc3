"""Publishers that emit known data: ``range``, ``from_iterable``, ``just``, ``empty``,
``error``, ``from_callable``, ``generate``.

Each is cold: every ``subscribe`` starts a new ``IteratorSubscription`` over a fresh
iterator. Without ``executor=`` signals run on the thread that calls ``subscribe`` or
``request``; with one, every signal is delivered by drain tasks on that executor.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Generic, Never, TypeVar, overload

from ._core.fusion import Items, Named, SyncSource, items_source, scalar_source
from ._core.pump import IteratorSubscription, ScalarSubscription, exact_length_types
from ._oneshot import OneShot
from .executors import ExecutorLike, as_executor

if TYPE_CHECKING:
    from .api import Subscriber

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "IterablePublisher",
    "ScalarPublisher",
    "Sink",
    "empty",
    "error",
    "from_callable",
    "from_iterable",
    "generate",
    "just",
    "range",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
S = TypeVar("S")

DEFAULT_BATCH_SIZE = 256

_new_scalar = object.__new__  # instances built without __init__ (hot paths)


class IterablePublisher(Generic[T_co]):
    """A cold Publisher: each subscriber gets the elements of ``factory()``, on demand.

    ``name`` is the hop name in traces; a factory that carries its own (a fused chain,
    ``"range+map"``) names the hop instead.
    """

    __slots__ = ("_batch_size", "_executor", "_factory", "_name")

    def __init__(
        self,
        factory: Callable[[], Iterable[T_co]],
        *,
        executor: ExecutorLike | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        name: str = "iterable",
    ) -> None:
        self._factory = factory
        self._executor = as_executor(executor) if executor is not None else None
        self._batch_size = batch_size
        self._name = factory.hop if type(factory) is Named else name

    def __repr__(self) -> str:
        return f"<{self._name} publisher>"

    def __rs_sync__(self) -> SyncSource | None:
        """The fusion protocol (``_core/fusion.py``): pulled synchronously, unless its
        signals run on its executor (a barrier). A range vouches no element is None."""
        if self._executor is not None:
            return None
        factory = self._factory
        if isinstance(factory, Items):
            items = factory.items
            if isinstance(items, builtins.range) or (self._name == "just" and type(items) is tuple):
                # its own elements, none of them None (rule 2.13): taken without an iterator
                return items_source(factory, items, self._name)
        return SyncSource(factory, hop=self._name)

    def subscribe(self, subscriber: Subscriber[T_co]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        IteratorSubscription(
            subscriber,
            self._factory,
            self._executor,
            self._batch_size,
            self._name,
        ).start()


class ScalarPublisher(IterablePublisher[T_co]):
    """``just(value)``: exactly one element, then completion.

    A full Publisher (each ``subscribe`` starts a one-shot ``ScalarSubscription``),
    built cheaply: one slot, no closure. Operators may read ``value`` and skip the
    subscription (``flat_map``'s scalar fast path).
    """

    __slots__ = ("value",)

    # the IterablePublisher fields, fixed for every scalar (class attributes, no storage)
    _executor = None
    _batch_size = DEFAULT_BATCH_SIZE
    _name = "just"

    def __init__(self, value: T_co) -> None:
        if value is None:
            raise TypeError("rule 2.13: just() items must not be None")
        self.value = value

    @property  # read-only here: fixed by ``value``
    def _factory(self) -> Callable[[], Iterable[T_co]]:  # type: ignore[override]
        return self._items

    def _items(self) -> Iterable[T_co]:
        return (self.value,)

    def subscribe(self, subscriber: Subscriber[T_co]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        ScalarSubscription(subscriber, self.value, self._name).start()  # no iterator

    def __rs_sync__(self) -> SyncSource:
        """The fusion protocol: one element, ``value`` (``flat_map`` never subscribes it)."""
        return scalar_source(self.value, self._name)


class _RangeOne(ScalarPublisher[int]):
    """A synchronous ``range`` of one int: a scalar named ``range`` (built without an
    iterator factory, its subscription one-shot: the subscribe overhead)."""

    __slots__ = ()
    _name = "range"


@overload
def range(
    stop: int, /, *, executor: ExecutorLike | None = None, batch_size: int = DEFAULT_BATCH_SIZE
) -> IterablePublisher[int]: ...


@overload
def range(
    start: int,
    stop: int,
    step: int = 1,
    /,
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> IterablePublisher[int]: ...


def range(  # shadows the builtin on purpose: same arguments, same elements
    start: int,
    stop: int | None = None,
    step: int = 1,
    /,
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> IterablePublisher[int]:
    """The ints of Python's ``range(stop)`` or ``range(start, stop[, step])``.

    Arguments are checked here, as the builtin checks them (``TypeError`` for a
    non-int, ``ValueError`` for a zero step). ``Flow.range_count(start, count)`` is
    the Reactor/RxJava form.
    """
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("range: step must not be zero")
    ints = builtins.range(start, stop, step)  # a range is re-iterable: one per publisher
    if executor is not None:
        return IterablePublisher(
            Items(ints, "range"), executor=executor, batch_size=batch_size, name="range"
        )
    if len(ints) == 1:
        one: _RangeOne = _new_scalar(_RangeOne)  # subscribed as a scalar: no iterator
        one.value = ints[0]
        return one
    # IterablePublisher(Items(ints, "range"), name="range") without the two __init__
    # frames: a short range is the common flat_map inner
    items: Items[int] = _new_scalar(Items)
    items.items = ints
    items.hop = "range"
    publisher: IterablePublisher[int] = _new_scalar(IterablePublisher)
    publisher._factory = items
    publisher._executor = None
    publisher._batch_size = batch_size
    publisher._name = "range"
    return publisher


def from_iterable(
    iterable: Iterable[T],
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> IterablePublisher[T]:
    """The elements of ``iterable``; ``iter()`` is called once per subscription.

    A one-shot source (an iterator: a generator, a file, ``map(...)``) serves only its
    first subscriber; a later one gets ``on_error`` naming ``Flow.defer``, which makes a
    fresh source per subscriber. Re-iterables (lists, tuples, ranges) serve every one.
    An exception from ``iter()`` or ``next()`` is signalled as ``on_error``.
    """
    if isinstance(iterable, Iterator):
        return IterablePublisher(
            Named(OneShot(iterable), "from_iterable"),
            executor=executor,
            batch_size=batch_size,
            name="from_iterable",
        )
    return IterablePublisher(
        Items(iterable, "from_iterable"),
        executor=executor,
        batch_size=batch_size,
        name="from_iterable",
    )


def just(*items: T, executor: ExecutorLike | None = None) -> IterablePublisher[T]:
    """The given items, then completion (one item: a ``ScalarPublisher``)."""
    if len(items) == 1 and executor is None:
        item = items[0]
        if item is None:
            raise TypeError("rule 2.13: just() items must not be None")
        scalar: ScalarPublisher[T] = _new_scalar(ScalarPublisher)  # no __init__ frame
        scalar.value = item
        return scalar
    if any(item is None for item in items):
        raise TypeError("rule 2.13: just() items must not be None")
    return IterablePublisher(Items(items, "just"), executor=executor, name="just")


def empty(*, executor: ExecutorLike | None = None) -> IterablePublisher[Never]:
    """Completes right after ``on_subscribe``, without any demand (rule 1.5)."""
    return IterablePublisher(Items((), "empty"), executor=executor, name="empty")


def error(exc: BaseException, *, executor: ExecutorLike | None = None) -> IterablePublisher[Never]:
    """Signals ``on_error(exc)`` right after ``on_subscribe``, without any demand (rule 1.4)."""
    if exc is None:
        raise TypeError("rule 2.13: error() requires an exception, got None")

    def fail() -> Iterable[Never]:
        raise exc

    return IterablePublisher(fail, executor=executor, name="error")


class _CallableIterator(Iterator[T]):
    """One element, ``fn()``, computed when the first demand arrives."""

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn: Callable[[], T] | None = fn

    def __next__(self) -> T:
        fn = self._fn
        if fn is None:
            raise StopIteration
        self._fn = None
        return fn()

    def __length_hint__(self) -> int:
        return 0 if self._fn is None else 1


def from_callable(
    fn: Callable[[], T], *, executor: ExecutorLike | None = None
) -> IterablePublisher[T]:
    """One element, ``fn()``, computed per subscription on the first demand.

    ``fn`` raising becomes ``on_error``; ``fn`` returning None becomes
    ``on_error(TypeError("rule 2.13: ..."))``.
    """
    make = Named(lambda: _CallableIterator(fn), "from_callable")
    return IterablePublisher(make, executor=executor, name="from_callable")


class Sink(Generic[T]):
    """What ``generate``'s generator function signals into: ``next``, ``complete``, ``error``."""

    __slots__ = ("_error", "_finished", "_has_value", "_value")

    def __init__(self) -> None:
        self._has_value = False
        self._value: T | None = None
        self._finished = False
        self._error: BaseException | None = None

    def next(self, value: T) -> None:
        if self._has_value:
            raise RuntimeError("generate: sink.next called twice in one generator call")
        if self._finished:
            raise RuntimeError("generate: sink.next called after complete/error")
        self._has_value = True
        self._value = value

    def complete(self) -> None:
        if self._finished:
            raise RuntimeError("generate: the sink was already completed or failed")
        self._finished = True

    def error(self, exc: BaseException) -> None:
        if self._finished:
            raise RuntimeError("generate: the sink was already completed or failed")
        self._finished = True
        self._error = exc


class _GenerateIterator(Iterator[T], Generic[S, T]):
    __slots__ = ("_generator", "_sink", "_state")

    def __init__(self, state: S, generator: Callable[[S, Sink[T]], S]) -> None:
        self._state = state
        self._generator = generator
        self._sink: Sink[T] = Sink()

    def __next__(self) -> T:
        sink = self._sink
        while True:
            if sink._finished:
                if sink._error is not None:
                    raise sink._error
                raise StopIteration
            self._state = self._generator(self._state, sink)
            if sink._has_value:
                value = sink._value
                sink._has_value = False
                sink._value = None
                return value  # type: ignore[return-value]

    def __length_hint__(self) -> int:
        # exact: 0 once the sink ended, either way; ``next`` then raises its error (1.4)
        return 0 if self._sink._finished else 1


def generate(
    initial_state: S,
    generator: Callable[[S, Sink[T]], S],
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> IterablePublisher[T]:
    """Elements produced one call at a time: ``generator(state, sink) -> new state``.

    Each call may signal ``sink.next(value)`` once and/or end with ``sink.complete()``
    or ``sink.error(exc)``. The generator is called only when there is demand.
    """
    return IterablePublisher(
        Named(lambda: _GenerateIterator(initial_state, generator), "generate"),
        executor=executor,
        batch_size=batch_size,
        name="generate",
    )


exact_length_types.update({_CallableIterator, _GenerateIterator})
