"""Bridges between publishers and Python iteration.

* ``to_iterable(publisher, prefetch)``: a blocking iterator for plain ``for`` loops;
* ``to_async_iterator(publisher, prefetch)``: an async iterator for ``async for``
  (``async with`` it to cancel on exit);
* ``from_async_iterable(aiterable, loop=...)``: a Publisher fed by an async iterable.

The iterators keep at most ``prefetch`` elements outstanding (requested and not yet
consumed), ask for more after 75 % of a prefetch has been consumed, cancel when the loop
breaks or the iterator is closed, and re-raise ``on_error``. This module imports
``asyncio``; ``import reactive_streams`` does not import it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator
from typing import Generic, TypeVar, cast

from ._blocking import check_not_on_loop, check_timeout
from ._demand import MAX_DEMAND, add_demand, check_request
from ._oneshot import OneShotAsync
from .api import Publisher, Subscriber, Subscription

__all__ = [
    "AsyncFlowIterator",
    "AsyncIterablePublisher",
    "from_async_iterable",
    "to_async_iterator",
    "to_iterable",
]

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")


def _replenish_size(prefetch: int) -> int:
    message = check_request(prefetch)
    if message is not None:
        raise ValueError(message.replace("request(n)", "prefetch"))
    return max(1, prefetch - prefetch // 4)  # ask again after 75 % are consumed


class _BufferingSubscriber(Generic[T]):
    """Buffers up to ``prefetch`` elements; the consumer side takes them and replenishes."""

    def __init__(self, prefetch: int) -> None:
        self._prefetch = prefetch
        self._limit = _replenish_size(prefetch)
        self._consumed = 0
        self._lock = threading.Lock()
        self._buffer: deque[T] = deque()
        self._done = False
        self._error: BaseException | None = None
        self._subscription: Subscription | None = None
        self._cancelled = False

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        with self._lock:
            if self._subscription is not None or self._cancelled:
                duplicate = True
            else:
                duplicate = False
                self._subscription = subscription
        if duplicate:
            subscription.cancel()  # rule 2.5
            return
        subscription.request(self._prefetch)

    def on_next(self, item: T) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        with self._lock:
            if self._cancelled:
                return  # rule 2.8: a late element after the cancel is dropped
            self._buffer.append(item)
        self._wake()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        with self._lock:
            self._error = error
            self._done = True
            self._subscription = None  # rule 3.13 (subscriber side): the subscription is over
        self._wake()

    def on_complete(self) -> None:
        with self._lock:
            self._done = True
            self._subscription = None
        self._wake()

    def _wake(self) -> None:
        raise NotImplementedError

    def _consumed_one(self) -> None:
        """Consumer side, after taking an element: replenish demand at 75 %."""
        self._consumed += 1
        if self._consumed == self._limit:
            self._consumed = 0
            subscription = self._subscription
            if subscription is not None:
                subscription.request(self._limit)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            subscription, self._subscription = self._subscription, None
            self._buffer.clear()
        self._wake()  # a consumer waiting now ends, as after the end of the stream
        if subscription is not None:
            subscription.cancel()


class _BlockingSubscriber(_BufferingSubscriber[T]):
    def __init__(self, prefetch: int) -> None:
        super().__init__(prefetch)
        self._ready = threading.Condition(self._lock)

    def _wake(self) -> None:
        with self._ready:
            self._ready.notify_all()

    def _takeable(self) -> bool:
        return bool(self._buffer) or self._done or self._cancelled

    def take(self, timeout: float | None) -> tuple[bool, T | None]:
        """(True, item), or (False, None) at completion or once closed; raises the
        upstream error."""
        with self._ready:
            if not self._ready.wait_for(self._takeable, timeout):
                raise TimeoutError(f"no element within {timeout}s")
            if self._cancelled:
                return False, None  # closed: the iteration is over
            if self._buffer:
                item = self._buffer.popleft()
            elif self._error is not None:
                raise self._error
            else:
                return False, None
        self._consumed_one()  # outside the lock: a synchronous publisher emits right here
        return True, item


def to_iterable(
    publisher: Publisher[T], prefetch: int = 128, *, timeout: float | None = None
) -> Iterator[T]:
    """Iterate ``publisher`` with a blocking ``for`` loop.

    Subscribes on the first ``next()``. ``timeout`` bounds each wait for the next
    element, not the whole loop (``TimeoutError``). Breaking out of the loop (or
    closing the generator) cancels.
    """
    _replenish_size(prefetch)
    check_timeout("blocking_iter", timeout)
    return _iterate(publisher, prefetch, timeout)


def _iterate(publisher: Publisher[T], prefetch: int, timeout: float | None) -> Iterator[T]:
    check_not_on_loop("iterating a flow (for, list(), blocking_iter)", "async for x in flow")
    subscriber: _BlockingSubscriber[T] = _BlockingSubscriber(prefetch)
    publisher.subscribe(subscriber)
    try:
        while True:
            ok, item = subscriber.take(timeout)
            if not ok:
                return
            yield item  # type: ignore[misc]
    finally:
        subscriber.cancel()


class _LoopSubscriber(_BufferingSubscriber[T]):
    """Wakes a consumer coroutine on ``loop`` (signals may come from any thread)."""

    def __init__(self, prefetch: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(prefetch)
        self._loop = loop
        self._event = asyncio.Event()
        self._waiting = False

    def _wake(self) -> None:
        with self._lock:
            if not self._waiting:
                return
            self._waiting = False
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            self._loop.call_soon_threadsafe(self._event.set)

    async def take(self) -> tuple[bool, T | None]:
        while True:
            with self._lock:
                if self._cancelled:
                    return False, None  # closed (aclose, a cancelled __anext__): it is over
                if self._buffer:
                    item = self._buffer.popleft()
                    break
                if self._done:
                    if self._error is not None:
                        raise self._error
                    return False, None
                self._event.clear()
                self._waiting = True
            await self._event.wait()
        self._consumed_one()
        return True, item


class AsyncFlowIterator(Generic[T]):
    """The async iterator of a publisher: ``async for``, and ``async with`` to cancel.

    Subscribes on the first ``__anext__`` (inside a running loop). Cancels upstream when
    the stream ends, when ``aclose()`` is called, when an ``async with`` block exits, and
    when the iterator is dropped: breaking out of ``async for`` over an iterator that
    nothing else references cancels at once (no garbage-collection cycle is involved).
    """

    __slots__ = ("__weakref__", "_prefetch", "_publisher", "_subscriber")

    def __init__(self, publisher: Publisher[T], prefetch: int = 128) -> None:
        _replenish_size(prefetch)
        self._publisher: Publisher[T] | None = publisher
        self._prefetch = prefetch
        self._subscriber: _LoopSubscriber[T] | None = None

    def __aiter__(self) -> AsyncFlowIterator[T]:
        return self

    async def __anext__(self) -> T:
        subscriber = self._subscriber
        if subscriber is None:
            publisher = self._publisher
            if publisher is None:
                raise StopAsyncIteration
            self._publisher = None
            subscriber = _LoopSubscriber(self._prefetch, asyncio.get_running_loop())
            self._subscriber = subscriber
            publisher.subscribe(subscriber)
        try:
            ok, item = await subscriber.take()
        except BaseException:
            self.close()
            raise
        if not ok:
            self.close()
            raise StopAsyncIteration
        return item  # type: ignore[return-value]

    def close(self) -> None:
        """Cancel upstream (idempotent, callable from any thread)."""
        self._publisher = None
        subscriber = self._subscriber
        if subscriber is not None:
            subscriber.cancel()

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> AsyncFlowIterator[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def to_async_iterator(publisher: Publisher[T], prefetch: int = 128) -> AsyncFlowIterator[T]:
    """Iterate ``publisher`` with ``async for`` (call inside a running event loop).

    ``break`` cancels at once when the loop held the only reference; otherwise use
    ``async with to_async_iterator(p) as items:`` (or ``aclose()``) to cancel on exit.
    """
    return AsyncFlowIterator(publisher, prefetch)


class _ResultSubscriber(Generic[T]):
    """Unbounded demand (one for ``first``); keeps the first, the last or every element
    and calls ``finished`` once (from the signalling thread)."""

    def __init__(self, mode: str, finished: Callable[[], None]) -> None:
        self._mode = mode
        self._finished = finished
        self.items: list[T] = []
        self.error: BaseException | None = None
        self._subscription: Subscription | None = None
        self._over = False
        self._lock = threading.Lock()

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        with self._lock:
            duplicate = self._subscription is not None or self._over
            if not duplicate:
                self._subscription = subscription
        if duplicate:
            subscription.cancel()  # rule 2.5
            return
        subscription.request(1 if self._mode == "first" else MAX_DEMAND)

    def on_next(self, item: T) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        if self._over:
            return  # rule 2.8
        if self._mode == "list":
            self.items.append(item)
        elif self._mode == "last":
            self.items[:] = (item,)
        else:
            self.items.append(item)
            self.cancel()
            self._finished()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._end():
            self.error = error
            self._finished()

    def on_complete(self) -> None:
        if self._end():
            self._finished()

    def _end(self) -> bool:
        with self._lock:
            was_over, self._over = self._over, True
            self._subscription = None  # rule 2.4
        return not was_over

    def cancel(self) -> None:
        with self._lock:
            self._over = True
            subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.cancel()

    def result(self, what: str) -> object:
        if self.error is not None:
            raise self.error
        if self._mode == "list":
            return self.items
        if not self.items:
            raise LookupError(f"{what}: the flow completed without an element")
        return self.items[0]


def wait_result(publisher: Publisher[T], mode: str, what: str, timeout: float | None) -> object:
    """Block until ``publisher`` ends (``first``: its first element); ``timeout`` bounds
    the whole wait (``TimeoutError``, after cancelling)."""
    check_timeout(what, timeout)
    check_not_on_loop(f"{what}()", f"await flow.aio.{what}()")
    done = threading.Event()
    subscriber: _ResultSubscriber[T] = _ResultSubscriber(mode, done.set)
    publisher.subscribe(subscriber)
    if not done.wait(timeout):
        subscriber.cancel()
        raise TimeoutError(
            f"{what}: not complete within {timeout}s ({len(subscriber.items)} elements so far)"
        )
    return subscriber.result(what)


async def await_result(publisher: Publisher[T], mode: str, what: str) -> object:
    """``wait_result`` for asyncio: the loop is never blocked; cancelling the awaiting
    task cancels the subscription (wrap in ``asyncio.timeout`` for a deadline)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def finished() -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            loop.call_soon_threadsafe(_resolve, done)

    subscriber: _ResultSubscriber[T] = _ResultSubscriber(mode, finished)
    publisher.subscribe(subscriber)
    try:
        await done
    finally:
        subscriber.cancel()
    return subscriber.result(what)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _AsyncIterableSubscription(Generic[T]):
    """Pulls from an async iterator on ``loop``, one element per unit of demand.

    Every signal is sent from one task on the loop, so they are serial (rule 1.3);
    ``request``/``cancel`` only schedule work on the loop (rules 3.3, 3.5). A cancel while
    the source awaits its next element cancels that await: the task then drops the
    subscriber and acloses the iterator (rules 3.12, 3.13).
    """

    def __init__(
        self,
        subscriber: Subscriber[T],
        iterable: AsyncIterable[T],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self._subscriber: Subscriber[T] | None = subscriber
        self._iterable: AsyncIterable[T] | None = iterable
        self._loop = loop
        self._demand = 0
        self._wakeup = asyncio.Event()
        self._cancelled = False
        self._bad_request: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._pulling = False  # the task awaits the source's next element

    def start(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._begin)
        except RuntimeError:  # the loop is closed: nothing will ever run there
            self._refuse(
                RuntimeError(
                    f"rule 1.9: from_async_iterable: the event loop {self._loop!r} is closed; "
                    "the subscriber gets on_error instead of elements"
                )
            )

    def _refuse(self, error: Exception) -> None:
        """On the subscribing thread: on_subscribe, then ``error`` (rules 1.9, 1.4)."""
        if self._call("on_subscribe", self):
            self._terminate("on_error", error)  # not after a cancel from on_subscribe
        self._subscriber = None  # rule 3.13
        self._iterable = None

    def _begin(self) -> None:
        self._task = self._loop.create_task(self._pump())

    def request(self, n: int) -> None:
        if self._cancelled:
            return  # rule 3.6
        message = check_request(n)
        with contextlib.suppress(RuntimeError):  # a closed loop: the stream is over
            self._loop.call_soon_threadsafe(self._add_demand, n, message)

    def _add_demand(self, n: int, message: str | None) -> None:
        if message is not None:
            if self._bad_request is None:
                self._bad_request = message
        else:
            self._demand = add_demand(self._demand, n)  # rule 3.17
        self._wakeup.set()

    def cancel(self) -> None:
        if self._cancelled:
            return  # rule 3.5
        self._cancelled = True
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._stop)

    def _stop(self) -> None:
        """On the loop, after a cancel: wake the task, and cancel its wait for an element
        (never its ``aclose()``), so a quiet source stops at once (rule 3.12)."""
        task = self._task
        if self._pulling and task is not None:
            task.cancel()
        self._wakeup.set()

    def _call(self, method: str, *args: object) -> bool:
        subscriber = self._subscriber
        if subscriber is None:
            return False
        try:
            getattr(subscriber, method)(*args)
        except Exception:
            _log.exception("rule 2.13: %s raised; subscription cancelled", method)
            self._cancelled = True
            return False
        return True

    async def _pump(self) -> None:
        iterable = self._iterable
        iterator: AsyncIterator[T] | None = None
        try:
            if not self._call("on_subscribe", self) or iterable is None:
                return
            try:
                iterator = aiter(iterable)
                while not self._cancelled:
                    if self._bad_request is not None:
                        self._terminate("on_error", ValueError(self._bad_request))
                        return
                    if self._demand == 0:
                        self._wakeup.clear()
                        await self._wakeup.wait()
                        continue
                    self._pulling = True
                    try:
                        item = await anext(iterator)
                    except StopAsyncIteration:
                        self._terminate("on_complete")
                        return
                    finally:
                        self._pulling = False
                    if self._cancelled:
                        return
                    if item is None:
                        self._terminate(
                            "on_error", TypeError("rule 2.13: a publisher must not emit None")
                        )
                        return
                    if self._demand != MAX_DEMAND:
                        self._demand -= 1
                    if not self._call("on_next", item):
                        return
            except Exception as exc:  # the source failed
                self._terminate("on_error", exc)
        finally:
            self._subscriber = None  # rule 3.13
            self._iterable = None
            closer = getattr(iterator, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:
                    _log.exception("closing the async iterator raised")

    def _terminate(self, method: str, *args: object) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._call(method, *args)


class AsyncIterablePublisher(Generic[T]):
    """A cold Publisher over an async iterable; signals are sent from ``loop``."""

    def __init__(self, iterable: AsyncIterable[T], loop: asyncio.AbstractEventLoop) -> None:
        self._iterable = iterable
        self._loop = loop

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _AsyncIterableSubscription(subscriber, self._iterable, self._loop).start()


def from_async_iterable(
    iterable: AsyncIterable[T], *, loop: asyncio.AbstractEventLoop | None = None
) -> AsyncIterablePublisher[T]:
    """A Publisher pulling from ``iterable`` on ``loop`` (default: the running loop).

    ``__aiter__`` is called per subscription; an element is pulled only when there is
    demand. The loop may run in another thread: subscribers are called on the loop.
    """
    if not hasattr(iterable, "__aiter__"):
        raise TypeError(
            f"from_async_iterable: iterable must be an async iterable (with __aiter__), got "
            f"{type(iterable).__name__} (for a plain iterable use Flow.from_iterable)"
        )
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "from_async_iterable: no event loop runs on this thread; call it inside a "
                "coroutine (async def, under asyncio.run), or pass loop= a loop that runs "
                "in another thread"
            ) from None
    elif not isinstance(loop, asyncio.AbstractEventLoop):
        raise TypeError(
            f"from_async_iterable: loop must be an asyncio event loop, got {type(loop).__name__}"
        )
    if hasattr(iterable, "__anext__"):  # an async generator: one subscriber only
        iterable = OneShotAsync(cast("AsyncIterator[T]", iterable))
    return AsyncIterablePublisher(iterable, loop)
