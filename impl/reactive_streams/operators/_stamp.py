"""``timestamp`` and ``time_interval``: each element with a time read on the operator's
scheduler clock (``Scheduler.now()``: monotonic seconds, or a ``ManualExecutor``'s
virtual time), as Reactor's ``timestamp()`` / ``elapsed()`` pairs ``(time, element)``.

Both are pass-through :class:`~reactive_streams._core.relay.Relay` hops: demand passes
upstream as it is (rule 1.1), one tuple per element; no timer is armed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core.relay import Relay

if TYPE_CHECKING:
    from ..api import Subscriber
    from ..executors import Scheduler

T = TypeVar("T")

__all__ = ["TimeInterval", "Timestamp"]


class Timestamp(Relay[T, tuple[float, T]]):
    """``(clock.now(), element)`` at the element's arrival."""

    __slots__ = ("_clock",)

    hop = "timestamp"

    def __init__(self, downstream: Subscriber[tuple[float, T]], clock: Scheduler) -> None:
        super().__init__(downstream)
        self._clock = clock

    def _apply(self, item: T) -> tuple[float, T]:
        return (self._clock.now(), item)


class TimeInterval(Relay[T, tuple[float, T]]):
    """``(seconds since the previous element, element)``; the first element's interval
    counts from the subscription."""

    __slots__ = ("_clock", "_last")

    hop = "time_interval"

    def __init__(self, downstream: Subscriber[tuple[float, T]], clock: Scheduler) -> None:
        super().__init__(downstream)
        self._clock = clock
        self._last = clock.now()  # the subscription's time

    def _apply(self, item: T) -> tuple[float, T]:
        now = self._clock.now()
        interval, self._last = now - self._last, now  # upstream's signals are serial (1.3)
        return (interval, item)
