"""The timed operators that thin or group a stream: ``debounce``, ``sample``
(``throttle_latest``), ``throttle_first``, ``buffer_timeout``; and ``timeout``.

Each is a :class:`~reactive_streams.operators._timed.TimedDrain`: upstream signals and
timer ticks are events of one drain (rule 1.3), and the end or the cancel cancels the
timer (3.12, 3.13). What "a tick finds no demand" does is in each class's docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.attach import Attach
from .._core.demand import MAX_DEMAND
from .._core.subscribing import subscribe_or_fail
from ._timed import COMPLETE, ERROR, NEXT, SUBSCRIBED, TICK, TimedDrain

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Scheduler

T = TypeVar("T")

__all__ = ["BufferTimeout", "Debounce", "Sample", "ThrottleFirst", "Timeout", "WindowTimeout"]


class _Latest(TimedDrain[T]):
    """Upstream unbounded; the latest element waits in ``_latest``. A value due with no
    demand waits in ``_ready`` for it, and a newer due value replaces it (latest)."""

    __slots__ = ("_has", "_latest")

    forward = 0

    def __init__(self, downstream: Subscriber[T], hop: str, scheduler: Scheduler) -> None:
        super().__init__(downstream, hop, scheduler)
        self._latest: T | None = None
        self._has = False

    def _emit_latest(self) -> None:
        if self._has:
            self._ready.clear()  # only the latest waits for demand
            self._ready.append(self._latest)  # type: ignore[arg-type]
            self._latest = None
            self._has = False

    def _clear(self) -> None:
        super()._clear()
        self._latest = None


class Debounce(_Latest[T]):
    """An element passes once ``dt`` has gone by without a newer one; the pending one
    is emitted on completion."""

    __slots__ = ("_dt",)

    def __init__(self, downstream: Subscriber[T], dt: float, scheduler: Scheduler) -> None:
        super().__init__(downstream, "debounce", scheduler)
        self._dt = dt

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind == NEXT:
            self._latest = value
            self._has = True
            self._arm(self._dt)  # every element restarts the quiet period
        elif kind == TICK:
            if not self._stale(value):
                self._timer = None
                self._emit_latest()
        elif kind == COMPLETE:
            self._emit_latest()
            self._end()


class Sample(_Latest[T]):
    """Every ``dt``, the latest element since the previous tick (none: nothing); the
    pending one is emitted on completion."""

    __slots__ = ("_dt",)

    def __init__(self, downstream: Subscriber[T], dt: float, scheduler: Scheduler) -> None:
        super().__init__(downstream, "sample", scheduler)
        self._dt = dt

    def _opened(self) -> None:
        super()._opened()
        self._arm_periodic(self._dt, self._dt)

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind == NEXT:
            self._latest = value
            self._has = True
        elif kind == TICK:
            if not self._stale(value):
                self._emit_latest()
        elif kind == COMPLETE:
            self._emit_latest()
            self._end()


class ThrottleFirst(TimedDrain[T]):
    """An element passes, then the others are dropped for ``dt``. An element that finds
    no demand is dropped and opens no window. No timer: the scheduler's clock."""

    __slots__ = ("_dt", "_gate")

    forward = 0

    def __init__(self, downstream: Subscriber[T], dt: float, scheduler: Scheduler) -> None:
        super().__init__(downstream, "throttle_first", scheduler)
        self._dt = dt
        self._gate: float | None = None  # the end of the open window

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind == NEXT:
            now = self._scheduler.now()
            if (self._gate is None or now >= self._gate) and self._room():
                self._ready.append(value)
                self._gate = now + self._dt
        elif kind == COMPLETE:
            self._end()


class BufferTimeout(TimedDrain[list[T]]):
    """Lists of up to ``n`` elements: emitted full, or ``dt`` after their first element
    arrived. Upstream is asked for ``n`` elements per requested list; a list due with
    no demand waits for it (bounded by what was requested upstream)."""

    __slots__ = ("_buffer", "_dt", "_n")

    def __init__(
        self,
        downstream: Subscriber[Any],
        n: int,
        dt: float,
        scheduler: Scheduler,
        hop: str = "buffer_timeout",
    ) -> None:
        super().__init__(downstream, hop, scheduler)
        self._k = n  # n upstream elements per requested list
        self._n = n
        self._dt = dt
        self._buffer: list[T] = []

    def _handle(self, kind: int, value: Any, source: int) -> None:
        buffer = self._buffer
        if kind == NEXT:
            buffer.append(value)
            if len(buffer) == self._n:
                self._flush()
            elif len(buffer) == 1:
                self._arm(self._dt)
        elif kind == TICK:
            if buffer and not self._stale(value):
                self._flush()
        elif kind == COMPLETE:
            if buffer:
                self._flush()
            self._end()

    def _flush(self) -> None:
        self._disarm()
        self._ready.append(self._wrap(self._buffer))
        self._buffer = []

    def _wrap(self, items: list[T]) -> Any:
        return items

    def _clear(self) -> None:
        super()._clear()
        self._buffer = []


class WindowTimeout(BufferTimeout[T]):
    """``buffer_timeout``'s lists, each emitted as a window ``wrap(list)`` (a Flow of
    its elements): a window is emitted full or ``dt`` after its first element, so it
    holds at most ``n`` elements and its subscriber may come at any time (as ``window``)."""

    __slots__ = ("_wrapper",)

    def __init__(
        self,
        downstream: Subscriber[Any],
        n: int,
        dt: float,
        scheduler: Scheduler,
        wrap: Callable[[list[T]], Any],
    ) -> None:
        super().__init__(downstream, n, dt, scheduler, "window_timeout")
        self._wrapper = wrap

    def _wrap(self, items: list[T]) -> Any:
        return self._wrapper(items)


class _FallbackInner:
    """The subscriber of ``timeout``'s fallback: its signals are events of the hop."""

    __slots__ = ("_hop", "_source", "slot")

    def __init__(self, hop: Timeout[Any], source: int) -> None:
        self._hop = hop
        self._source = source
        self.slot = Attach()  # the fallback's subscription, set once against the hop's end

    def on_subscribe(self, subscription: Subscription) -> None:
        if self.slot.set(subscription):  # rules 2.13, 3.12: refused once the hop ended
            self._hop._event(SUBSCRIBED, self.slot, self._source)

    def on_next(self, item: Any) -> None:
        self._hop._event(NEXT, item, self._source)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._hop._event(ERROR, error, self._source)

    def on_complete(self) -> None:
        self._hop._event(COMPLETE, None, self._source)


class Timeout(TimedDrain[T]):
    """Each element (the first counted from the subscription) must arrive within ``dt``
    of the previous one. On a timeout upstream is cancelled, then ``on_error(TimeoutError)``
    or, with a ``fallback``, the fallback is subscribed and asked for the outstanding
    demand (no timeout on it). Signals of a cancelled upstream are ignored. ``first_only``:
    only the first element is timed."""

    __slots__ = ("_current", "_dt", "_fallback", "_first_only", "_inner")

    def __init__(
        self,
        downstream: Subscriber[T],
        dt: float,
        fallback: Publisher[T] | None,
        scheduler: Scheduler,
        first_only: bool = False,
    ) -> None:
        super().__init__(downstream, "timeout", scheduler)
        self._dt = dt
        self._fallback = fallback
        self._first_only = first_only
        self._current = 0  # the source whose signals count (1: the fallback)
        self._inner: _FallbackInner | None = None

    def _opened(self) -> None:
        self._arm(self._dt)  # the first element counts from the subscription

    def _fail_now(self, error: BaseException, source: int) -> None:
        if source == self._current:
            super()._fail_now(error, source)

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if source != self._current:
            if kind == SUBSCRIBED:
                value.cancel()  # rule 2.5: not ours (never happens: one fallback)
            return
        if kind == NEXT:
            self._ready.append(value)
            if source == 0 and self._first_only:
                self._disarm()  # the first element came in time: no more timeouts
            elif source == 0:
                self._arm(self._dt)  # per element
        elif kind == COMPLETE:
            self._end()
        elif kind == TICK:
            if source == 0 and not self._stale(value):
                self._timed_out()
        elif kind == SUBSCRIBED:
            self._upstream = value  # the fallback's Attach: serial already (rule 2.7)
            with self._lock:  # a later request is forwarded once, by the next round
                requested = self._requested
                self._owed = 0
            outstanding = requested if requested == MAX_DEMAND else requested - len(self._ready)
            if outstanding > 0:
                value.request(outstanding)  # the demand the cancelled upstream left

    def _clear(self) -> None:
        inner = self._inner
        if inner is not None:
            inner.slot.cancel()  # rule 3.12: the fallback stops, even one still on its way
        super()._clear()

    def _timed_out(self) -> None:
        self._timer = None
        self._upstream.cancel()  # rule 3.12: the late source stops
        fallback = self._fallback
        if fallback is None:
            self._fail_now(TimeoutError(f"timeout({self._dt}): no element within {self._dt} s"), 0)
            return
        self._current = 1
        self._fallback = None
        self._inner = inner = _FallbackInner(self, 1)
        subscribe_or_fail(fallback, inner, inner.on_error)  # rule 1.9: a raise is its on_error
