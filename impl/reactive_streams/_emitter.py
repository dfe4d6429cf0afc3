"""``Emitter``: a hot, bounded push source fed by threads or coroutines.

Producers call ``emit`` / ``complete`` / ``error`` whenever they like, from any thread,
or ``await emit_async(x)`` from a coroutine; one subscriber (``emitter.flow``) receives
what it has requested. Elements wait in a buffer of at most ``bound``; a full buffer
applies ``overflow``: ``"error"`` (the producer gets ``BufferOverflowError`` and the
stream fails after the buffered elements), ``"drop_oldest"``, ``"drop_latest"``, or
``"block"`` (``emit`` waits for room; ``emit_async`` awaits without blocking the loop).

Reactor's ``Sinks.many().unicast()`` and a bounded Subject were the models; the
single subscriber keeps the bound meaningful (a multicast bound needs a policy per
subscriber: put ``flow.publish()`` behind it).

Signals are serialised by a drain loop: whichever thread emits or requests drains,
others only enqueue (rule 1.3); a ``request`` from inside ``on_next`` only adds demand
for the loop already running (rule 3.3).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._blocking import check_not_on_loop, check_timeout
from ._demand import MAX_DEMAND, add_demand, check_request
from .operators._backpressure import BufferOverflowError

if TYPE_CHECKING:
    from .api import Subscriber
    from .flow import Flow

__all__ = ["OVERFLOW", "Emitter"]

T = TypeVar("T")

OVERFLOW = ("error", "drop_oldest", "drop_latest", "block")

_log = logging.getLogger("reactive_streams")


class Emitter(Generic[T]):
    """A hot push source with a buffer of at most ``bound`` undelivered elements.

    ``emit(x)`` returns True if ``x`` was buffered, False if it was dropped
    (``drop_latest``, or after the subscriber cancelled). Emitting after ``complete``
    or ``error`` raises ``RuntimeError``.
    """

    def __init__(self, bound: int = 256, *, overflow: str = "error") -> None:
        if type(bound) is not int or bound <= 0:
            raise ValueError(f"Emitter: bound must be an int > 0, got {bound!r}")
        if overflow not in OVERFLOW:
            raise ValueError(f"Emitter: overflow must be one of {OVERFLOW}, got {overflow!r}")
        self._bound = bound
        self._overflow = overflow
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # "block": waits for room
        self._buffer: deque[T] = deque()
        self._end: BaseException | bool = False  # True: complete; an exception: error
        self._ended = False  # complete/error called (the producer side)
        self._subscriber: Subscriber[T] | None = None
        self._subscribed = False
        self._cancelled = False
        self._demand = 0
        self._bad_request: str | None = None
        self._draining = False
        self._async_waiters: list[tuple[Any, Any]] = []  # (loop, future) awaiting room

    def __repr__(self) -> str:
        return (
            f"<Emitter bound={self._bound} overflow={self._overflow} "
            f"buffered={len(self._buffer)} demand={self._demand}>"
        )

    @property
    def flow(self) -> Flow[T]:
        """The Flow of the emitted elements (one subscriber)."""
        from .flow import Flow

        return Flow(self)

    # ---------------------------------------------------------------- producers
    def emit(self, item: T, timeout: float | None = None) -> bool:
        """Buffer ``item`` for the subscriber (thread-safe), applying ``overflow``.

        With ``"block"``, ``timeout`` (seconds, None: forever) bounds the wait for room
        (``TimeoutError``); waiting on an event loop's thread raises ``RuntimeError``."""
        if item is None:
            raise TypeError("rule 2.13: Emitter.emit(None): elements must not be None")
        check_timeout("Emitter.emit", timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                accepted = self._offer_locked(item)
                if accepted is not None:
                    break
                check_not_on_loop("Emitter.emit with overflow='block'", "await emit_async(x)")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError(
                        f"Emitter.emit: no room within timeout={timeout}s ({self!r}): the "
                        "subscriber has not requested the buffered elements (or none subscribed)"
                    )
                self._room.wait(left)  # "block"
        self._drain()
        return accepted

    async def emit_async(self, item: T) -> bool:
        """``emit`` for coroutines: with ``"block"``, awaits room without blocking the loop."""
        import asyncio

        if item is None:
            raise TypeError("rule 2.13: Emitter.emit_async(None): elements must not be None")
        while True:
            with self._lock:
                accepted = self._offer_locked(item)
                if accepted is None:
                    loop = asyncio.get_running_loop()
                    waiter = loop.create_future()
                    self._async_waiters.append((loop, waiter))
            if accepted is not None:
                self._drain()
                return accepted
            await waiter

    def complete(self) -> None:
        """End the stream after the buffered elements."""
        self._finish(True)

    def error(self, exc: BaseException) -> None:
        """Fail the stream after the buffered elements."""
        if exc is None:
            raise TypeError("rule 2.13: Emitter.error(None) requires an exception")
        self._finish(exc)

    def _finish(self, end: BaseException | bool) -> None:
        with self._lock:
            if self._ended:
                raise RuntimeError("Emitter: already completed or failed")
            self._ended = True
            self._end = end
            self._wake_producers_locked()
        self._drain()

    def _offer_locked(self, item: T) -> bool | None:
        """True: buffered; False: dropped; None: no room and the strategy is "block"."""
        if self._ended:
            raise RuntimeError("Emitter: emit after complete or error")
        if self._cancelled:
            return False
        if len(self._buffer) >= self._bound:
            overflow = self._overflow
            if overflow == "block":
                return None
            if overflow == "drop_latest":
                return False
            if overflow == "drop_oldest":
                self._buffer.popleft()
            else:
                self._ended = True
                error = BufferOverflowError(
                    f"Emitter: {self._bound} elements buffered and no demand (overflow='error')"
                )
                self._end = error
                raise error
        self._buffer.append(item)
        return True

    def _wake_producers_locked(self) -> None:
        self._room.notify_all()
        waiters, self._async_waiters = self._async_waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits it
                loop.call_soon_threadsafe(_set_if_pending, future)

    # ---------------------------------------------------------------- Publisher
    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        with self._lock:
            second = self._subscribed
            self._subscribed = True
        if second:
            from .operators._base import deliver_subscribe_then_error

            deliver_subscribe_then_error(
                subscriber, RuntimeError("Emitter: only one subscriber (it is a unicast source)")
            )
            return
        try:
            subscriber.on_subscribe(self)
        except Exception:
            _log.exception("rule 2.13: on_subscribe raised; subscription cancelled")
            self.cancel()
            return
        with self._lock:
            if self._cancelled:
                return
            self._subscriber = subscriber
        self._drain()

    # ------------------------------------------------------------- Subscription
    def request(self, n: int) -> None:
        message = check_request(n)
        with self._lock:
            if self._cancelled:
                return  # rule 3.6
            if message is not None:
                self._bad_request = self._bad_request or message  # rule 3.9
            else:
                self._demand = add_demand(self._demand, n)  # rule 3.17
        self._drain()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True  # rule 3.5: idempotent
            self._subscriber = None  # rule 3.13
            self._buffer.clear()
            self._wake_producers_locked()

    # ------------------------------------------------------------------- drain
    def _drain(self) -> None:
        with self._lock:
            if self._draining:
                return  # the running loop sees the change (rules 1.3, 3.3)
            self._draining = True
        while True:
            with self._lock:
                subscriber = self._subscriber
                if subscriber is None or self._cancelled:
                    self._draining = False
                    return
                if self._bad_request is not None:
                    signal: str = "error"
                    value: Any = ValueError(self._bad_request)
                    self._close_locked()
                elif self._buffer and self._demand > 0:
                    signal, value = "next", self._buffer.popleft()
                    if self._demand != MAX_DEMAND:
                        self._demand -= 1
                    self._wake_producers_locked()
                elif not self._buffer and self._end is not False:
                    end = self._end
                    signal, value = ("complete", None) if end is True else ("error", end)
                    self._close_locked()
                else:
                    self._draining = False
                    return
            try:
                if signal == "next":
                    subscriber.on_next(value)
                elif signal == "complete":
                    subscriber.on_complete()
                else:
                    subscriber.on_error(value)
            except Exception:
                _log.exception("rule 2.13: on_%s raised; subscription cancelled", signal)
                self.cancel()

    def _close_locked(self) -> None:
        """A terminal signal is on its way: the subscription is over (rules 1.6, 3.13)."""
        self._cancelled = True
        self._subscriber = None
        self._buffer.clear()
        self._wake_producers_locked()


def _set_if_pending(future: Any) -> None:
    if not future.done():
        future.set_result(None)
