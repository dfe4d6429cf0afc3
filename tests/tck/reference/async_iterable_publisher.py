"""Port of ``AsyncIterablePublisher``, ``NumberIterablePublisher`` and
``InfiniteIncrementNumberPublisher`` (reactive-streams-jvm 1.0.4 examples).

Each subscription is a signal queue drained on an executor by at most one run at a
time (an ``on`` flag taken with compare-and-set); a run handles one signal. ``request``
and ``cancel`` only enqueue, so recursion depth is 0. Emission goes in batches of
``batch_size`` (1024). Known defect, kept: when a batch ends exactly as demand runs out,
the loop's short-circuit skips the last demand decrement, so request(1024) yields 1025
elements (rule 1.1).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from reactive_streams.api import Subscriber

from ._executor import run_on

T = TypeVar("T")
MAX = 2**63 - 1
log = logging.getLogger(__name__)

_CANCEL, _SUBSCRIBE, _SEND = "cancel", "subscribe", "send"


class _Request:
    def __init__(self, n: int) -> None:
        self.n = n


class _Cursor(Generic[T]):
    """Java's ``hasNext``/``next`` over a Python iterator (one element of look-ahead)."""

    _EMPTY = object()

    def __init__(self, iterator: Iterator[T]) -> None:
        self._it = iterator
        self._ahead: Any = self._EMPTY

    def has_next(self) -> bool:
        if self._ahead is self._EMPTY:
            try:
                self._ahead = next(self._it)
            except StopIteration:
                return False
        return True

    def next(self) -> T:
        if not self.has_next():
            raise LookupError("no such element")
        item: T = self._ahead
        self._ahead = self._EMPTY
        return item


class _NoOp:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


class AsyncIterablePublisher(Generic[T]):
    def __init__(self, elements: Iterable[T], executor: Any, batch_size: int = 1024) -> None:
        if elements is None or executor is None:
            raise TypeError("elements and executor are required")
        if batch_size < 1:
            raise ValueError("batch_size must be greater than zero")
        self.elements = elements
        self.executor = executor
        self.batch_size = batch_size

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        _SubscriptionImpl(self, subscriber).init()


class _SubscriptionImpl(Generic[T]):
    def __init__(self, publisher: AsyncIterablePublisher[T], subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        self.publisher = publisher
        self.subscriber = subscriber
        self.cancelled = False
        self.demand = 0
        self.cursor: _Cursor[T] | None = None
        self.inbound: deque[object] = deque()
        self._on = False
        self._on_lock = threading.Lock()

    # ------------------------------------------------------------------ handlers
    def _do_request(self, n: int) -> None:
        if n < 1:
            self._terminate(
                ValueError(f"{self.subscriber!r} violated rule 3.9: non-positive request")
            )
        elif self.demand + n > MAX:
            self.demand = MAX  # rule 3.17: effectively unbounded
            self._do_send()
        else:
            self.demand += n
            self._do_send()

    def _do_subscribe(self) -> None:
        try:
            self.cursor = _Cursor(iter(self.publisher.elements))
        except Exception as exc:
            self.subscriber.on_subscribe(_NoOp())  # rule 1.9: on_subscribe before on_error
            self._terminate(exc)
        if not self.cancelled:
            assert self.cursor is not None
            try:
                self.subscriber.on_subscribe(self)
            except Exception as exc:  # rule 2.13
                self._terminate(RuntimeError(f"rule 2.13: on_subscribe raised {exc!r}"))
            has_elements = False
            try:
                has_elements = self.cursor.has_next()
            except Exception as exc:
                self._terminate(exc)  # rule 1.4
            if not has_elements:
                try:
                    self.cancelled = True  # rule 1.6
                    self.subscriber.on_complete()
                except Exception:
                    log.exception("on_complete raised (rule 2.13)")

    def _do_send(self) -> None:
        assert self.cursor is not None
        try:
            left = self.publisher.batch_size
            while True:
                try:
                    item = self.cursor.next()
                    has_next = self.cursor.has_next()
                except Exception as exc:
                    self._terminate(exc)  # rule 1.4
                    return
                self.subscriber.on_next(item)
                if not has_next:
                    self.cancelled = True  # rule 1.6
                    self.subscriber.on_complete()
                # Java: while (!cancelled && --leftInBatch > 0 && --demand > 0)
                if self.cancelled:
                    break
                left -= 1
                if left <= 0:
                    break  # the short-circuit skips the demand decrement (the 1.1 defect)
                self.demand -= 1
                if self.demand <= 0:
                    break
            if not self.cancelled and self.demand > 0:
                self._signal(_SEND)
        except Exception:
            self.cancelled = True
            log.exception("a signal method raised (rule 2.13)")

    def _terminate(self, error: BaseException) -> None:
        self.cancelled = True  # rule 1.6
        try:
            self.subscriber.on_error(error)
        except Exception:
            log.exception("on_error raised (rule 2.13)")

    # ------------------------------------------------------------------ the queue
    def _signal(self, signal: object) -> None:
        self.inbound.append(signal)
        self._try_schedule()

    def run(self) -> None:
        with self._on_lock:
            on = self._on
        if not on:
            return
        try:
            signal = self.inbound.popleft() if self.inbound else None
            if not self.cancelled:  # rules 1.8, 3.6, 3.7
                if isinstance(signal, _Request):
                    self._do_request(signal.n)
                elif signal == _SEND:
                    self._do_send()
                elif signal == _CANCEL:
                    self.cancelled = True
                elif signal == _SUBSCRIBE:
                    self._do_subscribe()
        finally:
            with self._on_lock:
                self._on = False
            if self.inbound:
                self._try_schedule()

    def _try_schedule(self) -> None:
        with self._on_lock:
            if self._on:
                return
            self._on = True
        try:
            run_on(self.publisher.executor, self.run)
        except Exception as exc:
            if not self.cancelled:
                self.cancelled = True
                try:
                    self._terminate(RuntimeError(f"executor unavailable: {exc!r}"))
                finally:
                    self.inbound.clear()
                    with self._on_lock:
                        self._on = False

    # ------------------------------------------------------------ Subscription
    def request(self, n: int) -> None:
        self._signal(_Request(n))

    def cancel(self) -> None:
        self._signal(_CANCEL)

    def init(self) -> None:
        self._signal(_SUBSCRIBE)


class NumberIterablePublisher(AsyncIterablePublisher[int]):
    """The integers ``start`` .. ``stop - 1``."""

    def __init__(self, start: int, stop: int, executor: Any) -> None:
        if start > stop:
            raise ValueError("start must not exceed stop")
        super().__init__(_Numbers(start, stop), executor)


class _Numbers:
    def __init__(self, start: int, stop: int) -> None:
        self.start, self.stop = start, stop

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.start, self.stop))


class InfiniteIncrementNumberPublisher(AsyncIterablePublisher[int]):
    """0, 1, 2, ... without end (it never completes)."""

    def __init__(self, executor: Any) -> None:
        super().__init__(_Count(), executor)


class _Count:
    def __iter__(self) -> Iterator[int]:
        return itertools.count()


class _Failing:
    def __iter__(self) -> Iterator[int]:
        raise RuntimeError("Error state signal!")


def failed(executor: Any) -> AsyncIterablePublisher[int]:
    """The JVM tests' ``createFailedPublisher``: the iterator cannot be created."""
    return AsyncIterablePublisher(_Failing(), executor)


def number_factory(executor: Any) -> Callable[[int], NumberIterablePublisher]:
    """The JVM ``IterablePublisherTest`` factory: ``new NumberIterablePublisher(0, n, e)``."""
    return lambda n: NumberIterablePublisher(0, n, executor)


def infinite_factory(executor: Any) -> Callable[[int], InfiniteIncrementNumberPublisher]:
    """The JVM ``UnboundedIntegerIncrementPublisherTest`` factory (ignores n)."""
    return lambda _n: InfiniteIncrementNumberPublisher(executor)


__all__ = [
    "AsyncIterablePublisher",
    "InfiniteIncrementNumberPublisher",
    "NumberIterablePublisher",
    "failed",
    "infinite_factory",
    "number_factory",
]
