"""``from_future``: a Publisher of the result of a ``concurrent.futures.Future``.

Cold over a hot value: each subscriber gets the future's result (``on_next`` then
``on_complete``; a None result completes empty, as Reactor's ``Mono.fromFuture``), its
exception (``on_error``), or ``CancelledError`` if it was cancelled. Nothing waits: the
subscription is the core's ``Downstream`` (rules 1.9, 2.13, 3.9, 3.13 and the trace are
its), whose drain delivers ``on_subscribe`` first and the result once there is demand and
the future is done (rule 1.3: never during ``on_subscribe``); the future's done callback
only wakes the drain. Cancelling the subscription does not cancel the future, which other
subscribers may share: it removes the done callback, so a pending future keeps no
cancelled subscription (rule 3.13).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._core.downstream import ACTIVE, SUBSCRIBED, Downstream

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


class _FutureSubscription(Downstream[T]):
    __slots__ = ("_future", "_watching")

    def __init__(self, subscriber: Subscriber[T], future: concurrent.futures.Future[T]) -> None:
        super().__init__(subscriber, "from_future")
        self._future = future
        self._watching = False  # the done callback is registered (the drain's own field)

    def __repr__(self) -> str:
        return f"<from_future subscription {self._sid or hex(id(self))}>"

    def start(self) -> None:
        if self._enter():
            self._drain()  # the first round delivers on_subscribe (rule 1.9)

    def _on_done(self, _: concurrent.futures.Future[Any]) -> None:
        if self._enter():
            self._drain()  # the result, from the drain (rule 1.3)

    def _drain_round(self) -> bool:
        if self._pub is SUBSCRIBED:
            self._deliver_subscribe()  # a raise cancels (2.13); subscribe() returns (1.9)
        if self._pub is not ACTIVE:
            self._unwatch()  # cancelled: the future keeps no callback of ours (3.13)
            return False
        if self._answer_bad_request() or self._requested == 0:  # rules 3.9, 1.1
            return False
        future = self._future
        if not future.done():
            if not self._watching:
                self._watching = True
                future.add_done_callback(self._on_done)  # done meanwhile: runs here, wakes us
            return False
        self._emit(future)
        return False

    def _emit(self, future: concurrent.futures.Future[T]) -> None:
        if future.cancelled():
            self._finish(concurrent.futures.CancelledError("from_future: cancelled"))
            return
        error = future.exception()
        if error is not None:
            self._finish(error)
            return
        result = future.result()
        downstream = self._downstream
        if result is not None:
            if downstream is None or not self._send(downstream, result):
                return  # cancelled, or the subscriber raised (2.13: cancelled)
            self._delivered(1)
        self._finish(None)  # rule 3.9's error instead, if one was made during on_next

    def _released(self) -> None:
        self._unwatch()

    def _unwatch(self) -> None:
        if self._watching:
            self._watching = False
            _forget(self._future, self._on_done)


def _forget(future: concurrent.futures.Future[Any], callback: object) -> None:
    """Remove ``callback`` from ``future``'s done callbacks: ``concurrent.futures`` has no
    public way, so its list, under its condition (as ``add_done_callback`` does)."""
    condition = getattr(future, "_condition", None)
    callbacks = getattr(future, "_done_callbacks", None)
    if condition is None or not isinstance(callbacks, list):
        return  # another Future implementation: the callback stays, and is harmless
    with condition, contextlib.suppress(ValueError):
        callbacks.remove(callback)
