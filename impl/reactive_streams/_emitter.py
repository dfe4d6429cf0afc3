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

The subscription is a :class:`~reactive_streams._core.downstream.Downstream` (demand,
rule 3.9, cancel, 2.13, tracing as the ``emitter`` hop). Signals are serialised by its
drain loop: whichever thread emits or requests drains, others only record (rule 1.3); a
``request`` from inside ``on_next`` only adds demand for the loop already running (3.3).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._blocking import check_not_on_loop, check_timeout
from ._core.downstream import ACTIVE, SUBSCRIBED, Downstream
from .operators._backpressure import BufferOverflowError

if TYPE_CHECKING:
    from .api import Subscriber
    from .flow import Flow

__all__ = ["OVERFLOW", "Emitter"]

T = TypeVar("T")

OVERFLOW = ("error", "drop_oldest", "drop_latest", "block")


class Emitter(Generic[T]):
    """A hot push source with a buffer of at most ``bound`` undelivered elements.

    ``emit(x)`` returns True if ``x`` was buffered, False if it was dropped
    (``drop_latest``, or after the subscriber cancelled). Emitting after ``complete``
    or ``error`` raises ``RuntimeError``.

    Reactor: ``create``, ``push``.
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
        self._cancelled = False  # the subscription ended: elements are refused
        self._subscription: _EmitterSubscription[T] | None = None
        self._async_waiters: list[tuple[Any, Any]] = []  # (loop, future) awaiting room

    def __repr__(self) -> str:
        return (
            f"<Emitter bound={self._bound} overflow={self._overflow} "
            f"buffered={len(self._buffer)} subscription={self._subscription!r}>"
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
        self._signal()
        return accepted

    async def emit_async(self, item: T, timeout: float | None = None) -> bool:
        """``emit`` for coroutines: with ``"block"``, awaits room without blocking the
        loop; ``timeout`` (seconds, None: forever) bounds that wait (``TimeoutError``,
        the item not emitted), as ``emit``'s."""
        import asyncio

        if item is None:
            raise TypeError("rule 2.13: Emitter.emit_async(None): elements must not be None")
        check_timeout("Emitter.emit_async", timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                accepted = self._offer_locked(item)
                if accepted is None:
                    loop = asyncio.get_running_loop()
                    waiter = loop.create_future()
                    self._async_waiters.append((loop, waiter))
            if accepted is not None:
                self._signal()
                return accepted
            left = None if deadline is None else deadline - time.monotonic()
            try:
                await asyncio.wait_for(waiter, left)  # cancels the waiter on timeout
            except TimeoutError:
                raise TimeoutError(
                    f"Emitter.emit_async: no room within timeout={timeout}s ({self!r}): the "
                    "subscriber has not requested the buffered elements (or none subscribed)"
                ) from None

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
        self._signal()

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
            second = self._subscription is not None
            if not second:
                subscription = _EmitterSubscription(self, subscriber)
                self._subscription = subscription
        if second:
            from .operators._base import deliver_subscribe_then_error

            deliver_subscribe_then_error(
                subscriber, RuntimeError("Emitter: only one subscriber (it is a unicast source)")
            )
            return
        subscription.start()

    def _signal(self) -> None:
        """Something changed for the subscriber: wake its drain (rule 1.3: one drainer)."""
        subscription = self._subscription
        if subscription is not None:
            subscription.signal()

    def _take(self, n: int) -> list[T]:
        """The drain takes up to ``n`` buffered elements (room for blocked producers)."""
        with self._lock:
            buffer = self._buffer
            if n >= len(buffer):
                taken = list(buffer)
                buffer.clear()
            else:
                taken = [buffer.popleft() for _ in range(n)]
            if taken:
                self._wake_producers_locked()
            return taken

    def _ending(self) -> BaseException | bool:
        """The end due now: False while elements wait or nothing ended; True: complete."""
        with self._lock:
            return False if self._buffer else self._end

    def _detach(self) -> None:
        """The subscription ended (cancel, or its terminal signal): drop the buffer and
        refuse later elements (rules 1.6, 3.13); blocked producers go on."""
        with self._lock:
            self._cancelled = True
            self._buffer.clear()
            self._wake_producers_locked()


class _EmitterSubscription(Downstream[T]):
    """The Emitter's one subscription, on the core: demand through ``_demand``, rule 3.9,
    cancel and 2.13 are :class:`Downstream`'s, and the hop is traced as ``emitter``.
    Whoever emits, ends or requests drains; others only record (rule 1.3)."""

    __slots__ = ("_emitter",)

    def __init__(self, emitter: Emitter[T], subscriber: Subscriber[T]) -> None:
        super().__init__(subscriber, "emitter")
        self._emitter: Emitter[T] | None = emitter

    def __repr__(self) -> str:
        return f"<emitter subscription {self._sid or hex(id(self))}>"

    def start(self) -> None:
        self._wip = 1  # on_subscribe is the first unit of work (rule 1.3)
        self._drain()

    def signal(self) -> None:
        with self._lock:
            wake = self._work()
        if wake:
            self._drain()

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._released()  # at once: later emits are refused (rule 3.13)
        self._drain()

    def _released(self) -> None:
        emitter, self._emitter = self._emitter, None
        self._downstream = None  # rule 3.13
        if emitter is not None:
            emitter._detach()

    def _drain_round(self) -> bool:
        if self._pub is not ACTIVE and not (self._pub is SUBSCRIBED and self._deliver_subscribe()):
            self._released()  # cancelled (from on_subscribe, or before this round)
            return False
        emitter = self._emitter
        downstream = self._downstream
        if emitter is None or downstream is None or self._answer_bad_request():
            return False
        while not self._stopped():
            wanted = self._requested
            if wanted == 0:
                break
            items = emitter._take(wanted)
            if not items:
                break
            sent = 0
            for item in items:
                if self._stopped() or not self._send(downstream, item):
                    break  # cancelled, a raise (2.13), or rule 3.9's error is due
                sent += 1
            self._delivered(sent)  # rule 3.17: unbounded stays
        if self._answer_bad_request():  # rule 3.9
            return False
        end = emitter._ending()
        if end is not False and not self._stopped():
            self._finish(None if end is True else end)
        return False


def _set_if_pending(future: Any) -> None:
    if not future.done():
        future.set_result(None)
