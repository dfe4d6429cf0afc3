"""Bridges between publishers and Python iteration.

* ``to_iterable(publisher, prefetch)``: a blocking iterator for plain ``for`` loops;
* ``to_async_iterator(publisher, prefetch)``: an async iterator for ``async for``
  (``async with`` it to cancel on exit);
* ``from_async_iterable(aiterable, loop=...)``: a Publisher fed by an async iterable.

The iterators keep at most ``prefetch`` elements outstanding (requested and not yet
consumed), ask for everything consumed once at least 75 % of a prefetch was consumed and
the buffer ran dry (in bulk: one request, and one producer wake-up, per window), cancel
when the loop breaks or the iterator is closed, and re-raise ``on_error``. This module imports
``asyncio``; ``import reactive_streams`` does not import it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator
from typing import Any, Generic, TypeVar, cast

from ._blocking import check_not_on_loop, check_timeout
from ._core.demand import MAX_DEMAND, check_request
from ._core.downstream import ACTIVE, Downstream, null_element_error
from ._core.fusion import fusion_enabled, subscribe_fused
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
        self._lock = threading.Lock()
        self._buffer: deque[T] = deque()
        self._done = False
        self._error: BaseException | None = None
        self._subscription: Subscription | None = None
        self._cancelled = False
        self._waiting = False  # the consumer waits (or is about to): wake it

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
        if self._cancelled:
            return  # rule 2.8: a late element after the cancel is dropped
        self._buffer.append(item)  # no lock: deque.append is atomic under the GIL
        if self._waiting:  # read after the append: a consumer that set it sees the item
            self._wake()

    def on_next_batch(self, items: list[T]) -> None:
        # the fusion protocol: ``on_next`` for each, in one call (PulledUpstream has
        # already cut the batch at a None and signals rule 2.13's error after it)
        if self._cancelled:
            return  # rule 2.8
        self._buffer.extend(items)
        if self._waiting:
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

    def replenish(self, taken: int) -> None:
        """Consumer side: the buffer ran dry after ``taken >= limit`` elements were taken
        since the last request: ask for as many, so the window stays ``prefetch`` (a
        synchronous publisher emits right here, outside the lock). Asked in bulk when the
        consumer would wait, not at 75 %: a producer on another thread is woken once per
        window, when the consumer is about to release the GIL (bench/README.md, "Thread
        hops")."""
        subscription = self._subscription
        if subscription is not None:
            subscription.request(taken)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            subscription, self._subscription = self._subscription, None
            self._buffer.clear()
        self._wake()  # a consumer waiting now ends, as after the end of the stream
        if subscription is not None:
            subscription.cancel()


class _BlockingSubscriber(_BufferingSubscriber[T]):
    """Moves elements to a blocking consumer in batches: ``on_next`` appends without a
    lock (``deque.append`` is atomic under the GIL) and takes the lock only to wake a
    consumer that waits; the consumer pops everything buffered (``popleft`` is atomic)
    and takes the lock only when the buffer is empty."""

    def __init__(self, prefetch: int) -> None:
        super().__init__(prefetch)
        self._ready = threading.Condition(self._lock)
        self._waiting = False  # the consumer waits (or is about to): wake it

    def _wake(self) -> None:
        with self._ready:
            if not self._waiting:
                return  # nobody waits, or it was woken: it looks at the buffer next
            self._waiting = False  # one wake-up per wait, not one per element
            self._ready.notify_all()

    def _takeable(self) -> bool:
        # under the lock, before every wait: set before the buffer is looked at, so a
        # producer appending meanwhile sees it and wakes the consumer (no lost wake-up)
        self._waiting = True
        return bool(self._buffer) or self._done or self._cancelled

    def wait(self, timeout: float | None) -> bool:
        """Block until an element is buffered (True), or the stream ended or was closed
        (False); raises the upstream error once the elements before it were taken."""
        with self._ready:
            try:
                if not self._ready.wait_for(self._takeable, timeout):
                    raise TimeoutError(f"no element within {timeout}s")
            finally:
                self._waiting = False
            if self._cancelled:
                return False  # closed: the iteration is over
            if self._buffer:
                return True
            if self._error is not None:
                raise self._error
            return False


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
    return _iterate(publisher, prefetch, timeout, fusion_enabled())


def _iterate(
    publisher: Publisher[T], prefetch: int, timeout: float | None, fuse: bool
) -> Iterator[T]:
    check_not_on_loop("iterating a flow (for, list(), blocking_iter)", "async for x in flow")
    subscriber: _BlockingSubscriber[T] = _BlockingSubscriber(prefetch)
    if not subscribe_fused(publisher, subscriber, fuse):  # a synchronous source: pulled
        publisher.subscribe(subscriber)
    buffer = subscriber._buffer
    popleft = buffer.popleft
    limit = subscriber._limit
    taken = 0  # since the last request
    try:
        while True:
            if not buffer:
                if taken >= limit:  # ran dry after 75 %: ask for all taken (bulk)
                    subscriber.replenish(taken)
                    taken = 0
                if not buffer and not subscriber.wait(timeout):
                    return
            # everything buffered now, without the lock: only this consumer pops
            # (appends meanwhile join the next batch)
            batch = len(buffer)
            taken += batch
            for _ in range(batch):
                yield popleft()
    finally:
        subscriber.cancel()


class _LoopSubscriber(_BufferingSubscriber[T]):
    """Wakes a consumer coroutine on ``loop`` (signals may come from any thread), in
    batches: ``on_next`` appends without a lock (atomic under the GIL) and wakes the
    consumer only when it waits; the consumer pops without a lock while elements are
    buffered (``AsyncFlowIterator.__anext__``) and locks only to wait. A fused source
    (``PulledUpstream``) hands over whole batches (``on_next_batch``)."""

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
        """The next element, waiting for it (the caller counts it, ``replenish``)."""
        while True:
            with self._lock:
                if self._cancelled:
                    return False, None  # closed (aclose, a cancelled __anext__): it is over
                self._waiting = True  # set before the buffer is looked at (no lost wake-up)
                if self._buffer:
                    self._waiting = False
                    item = self._buffer.popleft()
                    break
                if self._done:
                    self._waiting = False
                    if self._error is not None:
                        raise self._error
                    return False, None
                self._event.clear()
            await self._event.wait()
        return True, item


_CLOSED: deque[Any] = deque(maxlen=0)  # the buffer of a closed iterator: always empty


class AsyncFlowIterator(Generic[T]):
    """The async iterator of a publisher: ``async for``, and ``async with`` to cancel.

    Subscribes on the first ``__anext__`` (inside a running loop). Cancels upstream when
    the stream ends, when ``aclose()`` is called, when an ``async with`` block exits, and
    when the iterator is dropped: breaking out of ``async for`` over an iterator that
    nothing else references cancels at once (no garbage-collection cycle is involved).

    Over a publisher that answers the fusion protocol (``__rs_sync__``, fusion on when
    the iterator is made) the source is pulled on the loop's thread, batch by batch, by
    the requests below (``PulledUpstream``): no thread hop, no signal per element, and
    the same elements, end and error as the subscribed source.
    """

    __slots__ = (
        "__weakref__",
        "_buffer",
        "_fuse",
        "_prefetch",
        "_publisher",
        "_subscriber",
        "_taken",
    )

    def __init__(self, publisher: Publisher[T], prefetch: int = 128) -> None:
        _replenish_size(prefetch)  # checks prefetch
        self._taken = 0  # elements taken since the last request
        self._publisher: Publisher[T] | None = publisher
        self._prefetch = prefetch
        self._subscriber: _LoopSubscriber[T] | None = None
        self._buffer: deque[T] = _CLOSED  # the subscriber's, once subscribed
        self._fuse = fusion_enabled()  # per pipeline: read when it is built

    def __aiter__(self) -> AsyncFlowIterator[T]:
        return self

    async def __anext__(self) -> T:
        buffer = self._buffer
        if buffer:
            # buffered: one consumer, no lock (popleft is atomic); counted for the bulk
            # replenish, which the slow path makes once the buffer ran dry
            try:
                item = buffer.popleft()
            except IndexError:  # emptied by a close() meanwhile
                pass
            else:
                self._taken += 1
                return item
        return await self._next()

    async def _next(self) -> T:
        subscriber = self._subscriber
        if subscriber is not None and self._taken >= subscriber._limit:
            # ran dry after 75 %: ask for all taken (bulk); a synchronous source emits here
            count, self._taken = self._taken, 0
            subscriber.replenish(count)
            buffer = self._buffer
            if buffer:
                try:
                    item = buffer.popleft()
                except IndexError:  # emptied by a close() meanwhile
                    pass
                else:
                    self._taken = 1
                    return item
        if subscriber is None:
            publisher = self._publisher
            if publisher is None:
                raise StopAsyncIteration
            self._publisher = None
            subscriber = _LoopSubscriber(self._prefetch, asyncio.get_running_loop())
            self._subscriber = subscriber
            self._buffer = subscriber._buffer
            if not subscribe_fused(publisher, subscriber, self._fuse):
                publisher.subscribe(subscriber)
            else:
                self.__class__ = _PulledFlowIterator  # pulled on this thread: no count
        try:
            ok, taken = await subscriber.take()
        except BaseException:
            self.close()
            raise
        if not ok:
            self.close()
            raise StopAsyncIteration
        self._taken += 1
        return taken  # type: ignore[return-value]

    def close(self) -> None:
        """Cancel upstream (idempotent, callable from any thread)."""
        self._publisher = None
        self._buffer = _CLOSED  # no element after the close, even one appended meanwhile
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


class _PulledFlowIterator(AsyncFlowIterator[T]):
    """An ``AsyncFlowIterator`` over a fused synchronous source (``PulledUpstream``):
    ``request`` fills the buffer on this thread before it returns, so the buffer is
    refilled with ``prefetch`` elements when it is empty, not counted per element (rule
    3.17: at most ``prefetch`` buffered). The end, the error and a close are ``_next``'s,
    as before."""

    __slots__ = ()

    async def __anext__(self) -> T:
        try:
            return self._buffer.popleft()  # one consumer: no lock, no count
        except IndexError:
            pass
        subscriber = self._subscriber
        subscription = None if subscriber is None else subscriber._subscription
        if subscription is not None:
            subscription.request(self._prefetch)  # the source fills the empty buffer here
        try:
            return self._buffer.popleft()  # (a close() meanwhile left it empty)
        except IndexError:
            pass
        return await self._next()  # the end, the error, or closed (no IndexError context)


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


class _AsyncIterableSubscription(Downstream[T]):
    """Pulls from an async iterator on ``loop``, one element per unit of demand.

    The protocol (demand through ``_demand``, rule 3.9, cancel, 2.13, 3.13, the trace
    of the ``from_async_iterable`` hop) is the core's :class:`Downstream`. Every signal
    is sent from one task on the loop, so they are serial (rule 1.3); ``request`` and
    ``cancel`` record their effect at once and only wake that task (rules 3.3, 3.5). A
    cancel while the source awaits its next element cancels that await: the task then
    drops the subscriber and acloses the iterator (rules 3.12, 3.13).
    """

    __slots__ = ("_iterable", "_loop", "_pulling", "_task", "_wakeup")

    def __init__(
        self,
        subscriber: Subscriber[T],
        iterable: AsyncIterable[T],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        super().__init__(subscriber, "from_async_iterable")
        self._iterable: AsyncIterable[T] | None = iterable
        self._loop = loop
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pulling = False  # the task awaits the source's next element

    def __repr__(self) -> str:
        return f"<from_async_iterable subscription {self._sid or hex(id(self))}>"

    def start(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._begin)
        except RuntimeError:  # the loop is closed: nothing will ever run there
            # on the subscribing thread: on_subscribe, then the error (rules 1.9, 1.4)
            self._finish(
                RuntimeError(
                    f"rule 1.9: from_async_iterable: the event loop {self._loop!r} is closed; "
                    "the subscriber gets on_error instead of elements"
                )
            )
            self._released()

    def _begin(self) -> None:
        self._task = self._loop.create_task(self._pump())

    # ------------------------------------------------------- the core's hooks
    def _work(self) -> bool:
        return True  # no drain loop: the pump task is the one emitter (rule 1.3)

    def _wake(self, cancel: bool) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: the stream is over
            self._loop.call_soon_threadsafe(self._stop if cancel else self._wakeup.set)

    def _released(self) -> None:
        self._downstream = None  # rule 3.13
        self._iterable = None

    def _stop(self) -> None:
        """On the loop, after a cancel: wake the task, and cancel its wait for an element
        (never its ``aclose()``), so a quiet source stops at once (rule 3.12)."""
        task = self._task
        if self._pulling and task is not None:
            task.cancel()
        self._wakeup.set()

    # --------------------------------------------------------------- the pump
    async def _pump(self) -> None:
        iterable = self._iterable
        iterator: AsyncIterator[T] | None = None
        try:
            if not self._deliver_subscribe() or iterable is None:
                if isinstance(iterable, OneShotAsync):  # cancelled before the first pull
                    iterator = iterable.unclaimed()  # closed below all the same (rule 3.12)
                return
            try:
                iterator = aiter(iterable)
                while self._pub is ACTIVE:
                    if self._answer_bad_request():  # rule 3.9
                        return
                    if self._requested == 0:
                        self._wakeup.clear()
                        await self._wakeup.wait()
                        continue
                    self._pulling = True
                    try:
                        item = await anext(iterator)
                    except StopAsyncIteration:
                        self._finish(None)
                        return
                    finally:
                        self._pulling = False
                    downstream = self._downstream
                    if self._pub is not ACTIVE or downstream is None:
                        return
                    if item is None:
                        self._finish(null_element_error("from_async_iterable"))
                        return
                    if self._answer_bad_request() or not self._send(downstream, item):
                        return  # rule 3.9's error, or the subscriber raised (2.13)
                    self._delivered(1)  # rule 3.17: unbounded stays
            except Exception as exc:  # the source failed
                self._finish(exc)
        finally:
            self._released()
            closer = getattr(iterator, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:
                    _log.exception("closing the async iterator raised")


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
