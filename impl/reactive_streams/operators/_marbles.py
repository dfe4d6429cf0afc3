"""The hop of ``reactive_streams.testing.marbles``: a diagram played on a clock."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._timed import TICK, TimedDrain

if TYPE_CHECKING:
    from ..api import Subscriber
    from ..executors import Scheduler

__all__ = ["Marbles"]


class Marbles(TimedDrain[Any]):
    """Plays ``events`` ((offset, character)) from the subscription time; an element due
    with no demand waits (rule 1.1), the terminal follows the waiting elements."""

    __slots__ = ("_at", "_failure", "_start", "_table", "_todo")

    def __init__(
        self,
        downstream: Subscriber[Any],
        events: list[tuple[float, str]],
        table: dict[str, Any],
        failure: BaseException,
        scheduler: Scheduler,
    ) -> None:
        super().__init__(downstream, "marbles", scheduler)
        self._todo = events
        self._at = 0
        self._table = table
        self._failure = failure
        self._start = 0.0

    def _opened(self) -> None:
        self._start = self._scheduler.now()
        self._next_timer()

    def _next_timer(self) -> None:
        if self._at < len(self._todo):
            due = self._start + self._todo[self._at][0]
            self._arm(due - self._scheduler.now())
            self._due = due

    def _handle(self, kind: int, value: Any, source: int) -> None:
        if kind != TICK or self._stale(value):
            return
        self._timer = None
        now = max(self._scheduler.now(), self._due)  # the tick may come early by the clock
        todo = self._todo
        while self._at < len(todo) and self._start + todo[self._at][0] <= now:
            c = todo[self._at][1]
            self._at += 1
            if c in "|#":
                self._error = self._failure if c == "#" else None
                self._done = True  # the terminal after the waiting elements
                return
            self._ready.append(self._table.get(c, c))
        self._next_timer()
