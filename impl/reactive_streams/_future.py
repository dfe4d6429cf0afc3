"""``from_future``: a Publisher of the result of a ``concurrent.futures.Future``.

Cold over a hot value: each subscriber gets the future's result (``on_next`` then
``on_complete``; a None result completes empty, as Reactor's ``Mono.fromFuture``), its
exception (``on_error``), or ``CancelledError`` if it was cancelled. Nothing waits: the
signal is sent by the future's done callback, once there is demand and ``on_subscribe``
has returned (rule 1.3: the two never overlap). Cancelling the subscription does not
cancel the future, which other subscribers may share.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._core.demand import check_request

if TYPE_CHECKING:
    from .api import Subscriber

__all__ = ["FuturePublisher"]

T = TypeVar("T")


class FuturePublisher(Generic[T]):
    """The one-element Publisher over ``future`` (see the module)."""

    __slots__ = ("_future",)

    def __init__(self, future: concurrent.futures.Future[T]) -> None:
        if not isinstance(future, concurrent.futures.Future):
            raise TypeError(
                "from_future: future must be a concurrent.futures.Future, got "
                f"{type(future).__name__} (an asyncio awaitable goes through flat_map or "
                "from_async_iterable)"
            )
        self._future = future

    def __repr__(self) -> str:
        return f"<from_future {self._future!r}>"

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _FutureSubscription(subscriber, self._future).start()


class _FutureSubscription(Generic[T]):
    __slots__ = ("_future", "_lock", "_over", "_ready", "_requested", "_returned", "_subscriber")

    def __init__(self, subscriber: Subscriber[T], future: concurrent.futures.Future[T]) -> None:
        self._subscriber: Subscriber[T] | None = subscriber
        self._future = future
        self._lock = threading.Lock()
        self._returned = False  # on_subscribe has returned (rule 1.3)
        self._requested = False
        self._ready = False  # the future is done
        self._over = False  # a terminal signal was claimed, or cancelled (rule 1.7)

    def start(self) -> None:
        subscriber = self._subscriber
        assert subscriber is not None
        subscriber.on_subscribe(self)
        with self._lock:
            self._returned = True
            emit = self._ready and not self._over
            self._over = self._over or emit
        if emit:
            self._emit()

    def request(self, n: int) -> None:
        message = check_request(n)
        if message is not None:
            with self._lock:
                if self._over:
                    return  # rule 3.6
                self._over = True
            self._signal_error(ValueError(message))  # rule 3.9
            return
        with self._lock:
            if self._requested or self._over:
                return
            self._requested = True
        self._future.add_done_callback(self._done)  # runs at once if already done

    def cancel(self) -> None:
        with self._lock:
            self._over = True
            self._subscriber = None  # rule 3.13

    def _done(self, _: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._ready = True
            if not self._returned or self._over:
                return  # start() emits once on_subscribe has returned
            self._over = True
        self._emit()

    def _emit(self) -> None:
        future = self._future
        if future.cancelled():
            self._signal_error(concurrent.futures.CancelledError("from_future: cancelled"))
            return
        error = future.exception()
        if error is not None:
            self._signal_error(error)
            return
        subscriber, self._subscriber = self._subscriber, None  # rule 3.13
        if subscriber is None:
            return
        result = future.result()
        if result is not None:
            subscriber.on_next(result)
        subscriber.on_complete()

    def _signal_error(self, error: BaseException) -> None:
        subscriber, self._subscriber = self._subscriber, None  # rule 3.13
        if subscriber is not None:
            subscriber.on_error(error)
