"""The timed sources: ``interval`` and ``timer`` (hops of
:class:`~reactive_streams.operators._timed.TimedDrain` without an upstream)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._backpressure import BufferOverflowError
from ._timed import TICK, TimedDrain

if TYPE_CHECKING:
    from ..api import Subscriber
    from ..executors import Scheduler

__all__ = ["Interval", "Timer"]


class Interval(TimedDrain[int]):
    """0, 1, 2... every ``period``. A tick that finds no demand ends the stream with
    ``BufferOverflowError`` (rule 1.1 forbids the element; Reactor's answer)."""

    __slots__ = ("_count", "_initial", "_period")

    def __init__(
        self, downstream: Subscriber[int], period: float, initial: float, scheduler: Scheduler
    ) -> None:
        super().__init__(downstream, "interval", scheduler)
        self._period = period
        self._initial = initial
        self._count = 0

    def _opened(self) -> None:
        self._arm_periodic(self._initial, self._period)

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind != TICK or self._stale(value):
            return
        if not self._room():
            self._fail_now(
                BufferOverflowError(
                    f"rule 1.1: interval({self._period}) could not emit tick {self._count}: "
                    "no demand (request more, or add on_backpressure_drop/latest/buffer)"
                ),
                source,
            )
            return
        self._ready.append(self._count)
        self._count += 1


class Timer(TimedDrain[int]):
    """0 after ``delay``, then complete; a due 0 waits for demand."""

    __slots__ = ("_delay",)

    def __init__(self, downstream: Subscriber[int], delay: float, scheduler: Scheduler) -> None:
        super().__init__(downstream, "timer", scheduler)
        self._delay = delay

    def _opened(self) -> None:
        self._arm(self._delay)

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind == TICK and not self._stale(value):
            self._timer = None
            self._ready.append(0)
            self._done = True  # complete after the 0 is delivered
