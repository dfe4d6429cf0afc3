"""The timed operators' core (``TimedDrain``) and ``delay``.

Rule 1.3 with a clock: a timer fires on its scheduler's thread while upstream signals on
its own. Neither signals downstream: each records an event (``_events``) and wakes the
one drain (the core ``DrainLoop``), which handles the events in order and emits what
demand allows from ``_ready``. So a tick and an element never overlap downstream.

A hop holds at most one timer (``_timer``); re-arming cancels the previous one, and the
end or the cancel cancels it (rules 3.12, 3.13: no timer keeps the subscriber). A tick
handed to the executor just before its cancel may still arrive: each tick carries the
arming it belongs to (``_armed``, a count every arm and cancel moves on), and ``_stale``
drops a tick of an arming no longer current. Never the clock: a scheduler may run a timer
a little before its due time by its own ``now()`` (asyncio's ``call_at``, within the
clock's resolution), and the current timer's tick must fire (rule 1.4: eventually).

Upstream demand: ``forward = k`` asks upstream for ``k`` elements per requested output
(delay, timeout: 1; buffer_timeout: n); ``forward = 0`` asks for everything at once (the
operators that drop: debounce, sample, throttle_first).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from .._core.demand import MAX_DEMAND, add_demand
from .._core.downstream import ACTIVE
from .._core.subscribing import subscribe_or_fail
from ._base import deliver_subscribe_then_error
from ._drained import DemandDrain

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Cancellable, Scheduler

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "COMPLETE",
    "ERROR",
    "NEXT",
    "SUBSCRIBED",
    "TICK",
    "Delay",
    "TimedDrain",
    "TimedPublisher",
    "check_seconds",
    "scheduler_of",
]

NEXT, ERROR, COMPLETE, TICK, SUBSCRIBED = range(5)


def check_seconds(operator: str, seconds: float, *, positive: bool = False) -> None:
    """A duration argument: a real number of seconds, >= 0 (``positive``: > 0)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds != seconds:
        raise TypeError(f"{operator}: seconds must be a number, got {seconds!r}")
    if seconds < 0 or (positive and seconds == 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{operator}: seconds must be {bound}, got {seconds!r}")


def scheduler_of(scheduler: object) -> Scheduler:
    """The ``scheduler=`` argument: None is the shared pool, ``default_executor()``."""
    from ..executors import as_scheduler, default_executor

    return as_scheduler(default_executor() if scheduler is None else scheduler)


class TimedDrain(DemandDrain[R]):
    """A drained hop whose upstream signals and timer ticks are events of one drain."""

    __slots__ = (
        "_armed",
        "_done",
        "_due",
        "_events",
        "_k",
        "_owed",
        "_ready",
        "_scheduler",
        "_timer",
    )

    forward: ClassVar[int] = 1

    def __init__(self, downstream: Subscriber[R], hop: str, scheduler: Scheduler) -> None:
        super().__init__(downstream, hop)
        self._scheduler = scheduler
        self._events: deque[tuple[int, Any, int]] = deque()  # (kind, value, source)
        self._ready: deque[R] = deque()  # outputs waiting for demand
        self._done = False  # the stream ends once _ready is delivered (error: at once)
        self._timer: Cancellable | None = None
        self._armed = 0  # the current arming: a tick carries the one it was armed in
        self._due = 0.0  # when the armed timer is due (its tick: due, however early)
        self._owed = 0  # demand to forward upstream (rule 3.17: saturating)
        self._k = self.forward  # upstream elements per requested output (0: unbounded)

    # --------------------------------------------------------------- upstream
    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def on_next(self, item: Any) -> None:
        self._event(NEXT, item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._event(ERROR, error)

    def on_complete(self) -> None:
        self._event(COMPLETE, None)

    def _event(self, kind: int, value: Any, source: int = 0) -> None:
        self._events.append((kind, value, source))
        self._signal()  # rule 1.3: only the drain signals downstream

    # ------------------------------------------------------------------ timer
    def _ticks(self) -> Callable[[], None]:
        """The timer's task: a TICK event carrying the current arming (its value)."""
        return functools.partial(self._event, TICK, self._armed)

    def _arm(self, delay: float) -> None:
        """(Re-)arm the one timer, ``delay`` seconds from now."""
        self._disarm()
        self._due = self._scheduler.now() + delay
        try:
            self._timer = self._scheduler.schedule(delay, self._ticks())
        except Exception as exc:  # rules 1.9, 1.4: the scheduler refused (a closed loop)
            self._fail_now(exc, 0)

    def _arm_periodic(self, initial: float, period: float) -> None:
        self._disarm()
        try:
            self._timer = self._scheduler.schedule_periodic(initial, period, self._ticks())
        except Exception as exc:  # rules 1.9, 1.4: the scheduler refused
            self._fail_now(exc, 0)

    def _disarm(self) -> None:
        self._armed += 1  # the ticks already handed to the executor are stale
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _stale(self, arming: int) -> bool:
        """A tick (its value: ``arming``) of a timer cancelled after it was handed to the
        executor, or after its one-shot tick was handled."""
        return self._timer is None or arming != self._armed

    # ----------------------------------------------------------------- demand
    def _receive_request(self, n: Any, message: str | None) -> None:
        super()._receive_request(n, message)
        if message is None and self._k:
            k = n * self._k
            self._owed = add_demand(self._owed, k if k < MAX_DEMAND else MAX_DEMAND)

    def _opened(self) -> None:
        if not self._k:
            self._upstream.request(MAX_DEMAND)  # rule 3.17: the hop drops, upstream runs free

    def _room(self) -> bool:
        """Demand for one more output beyond those waiting."""
        requested = self._requested
        return requested == MAX_DEMAND or requested > len(self._ready)

    # --------------------------------------------------------------- the drain
    def _round(self) -> bool:
        downstream = self._downstream
        if downstream is None:
            return False
        if self._owed:
            with self._lock:
                owed, self._owed = self._owed, 0
            self._upstream.request(owed)
        events = self._events
        while events and self._pub is ACTIVE and not (self._done and self._error is not None):
            kind, value, source = events.popleft()
            if kind == ERROR:
                self._fail_now(value, source)
            else:
                self._handle(kind, value, source)
        ready = self._ready
        on_next = self._sender(downstream)
        requested = self._requested
        emitted = 0
        try:
            while ready and emitted != requested and self._pub is ACTIVE:
                on_next(ready.popleft())
                if requested != MAX_DEMAND:
                    emitted += 1
        except Exception as exc:
            self._next_raised(exc)
            return False
        self._delivered(emitted)
        ended = self._done and not ready and self._pub is ACTIVE
        if ended and (self._error is not None or self._finished()):
            self._finish(self._error)  # rule 3.9's error instead, if one is due
        return False

    def _handle(self, kind: int, value: Any, source: int) -> None:
        """One event (NEXT, COMPLETE, TICK, SUBSCRIBED) from ``source``, in the drain."""
        raise NotImplementedError

    def _finished(self) -> bool:
        """After ``_done``, with ``_ready`` delivered: nothing more to wait for."""
        return True

    def _fail_now(self, error: BaseException, source: int) -> None:
        """An error ends the stream at once: what waits is dropped (rule 1.4)."""
        self._ready.clear()
        self._done = True
        self._error = error
        self._disarm()
        self._upstream.cancel()  # a no-op after upstream's own error

    def _end(self) -> None:
        """Upstream completed: the stream ends once ``_ready`` is delivered."""
        self._done = True
        self._disarm()

    def _clear(self) -> None:
        self._disarm()  # rules 3.12, 3.13: no timer keeps the subscriber
        self._ready.clear()
        self._events.clear()


class TimedPublisher(Generic[R]):
    """Subscribes ``make(subscriber)`` to ``source``; a source hop (no upstream) drains at
    once: the first round delivers ``on_subscribe`` and arms its timer."""

    __slots__ = ("_make", "_source")

    def __init__(
        self, source: Publisher[Any] | None, make: Callable[[Subscriber[R]], TimedDrain[R]]
    ) -> None:
        self._source = source
        self._make = make

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop = self._make(subscriber)
        if self._source is None:
            hop._signal()
        else:  # rule 1.9: a raising source is on_subscribe then on_error to the hop
            refused = functools.partial(deliver_subscribe_then_error, hop)
            subscribe_or_fail(self._source, hop, refused)


# ============================================================== the operators
class Delay(TimedDrain[T]):
    """Each element ``dt`` later than it arrived, in order; the completion after the last
    element; an error at once (the elements still waiting are dropped). Upstream is asked
    for what downstream asks, so a due element always finds demand."""

    __slots__ = ("_dt", "_waiting")

    def __init__(self, downstream: Subscriber[T], dt: float, scheduler: Scheduler) -> None:
        super().__init__(downstream, "delay", scheduler)
        self._dt = dt
        self._waiting: deque[tuple[float, T]] = deque()  # (due, element)

    def _handle(self, kind: int, value: Any, source: int) -> None:
        waiting = self._waiting
        if kind == NEXT:
            due = self._scheduler.now() + self._dt
            waiting.append((due, value))
            if len(waiting) == 1:
                self._arm(self._dt)
                self._due = due
        elif kind == COMPLETE:
            self._done = True
        elif kind == TICK:
            now = self._scheduler.now()
            if not self._stale(value):
                self._timer = None  # the one-shot fired: its due time has come
                now = max(now, self._due)
            while waiting and waiting[0][0] <= now:
                self._ready.append(waiting.popleft()[1])
            if waiting and self._timer is None:
                self._arm(waiting[0][0] - self._scheduler.now())
                self._due = waiting[0][0]

    def _finished(self) -> bool:
        return not self._waiting

    def _clear(self) -> None:
        super()._clear()
        self._waiting.clear()
