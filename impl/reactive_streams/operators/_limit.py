"""Operators that end or thin a stream by count or condition: ``take``, ``skip``,
``take_while``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.relay import SKIP, Relay, SkipMarker

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")

__all__ = ["Skip", "Take", "TakeWhile"]


class Take(Relay[T, T]):
    """The first ``count`` elements, then cancel upstream and complete.

    Upstream is never asked for more than ``count`` elements in total: requests are
    capped (``take(3)`` under ``request(2**63 - 1)`` requests 3 upstream).
    """

    __slots__ = ("_limit", "_remaining", "_requested_up")

    hop = "take"

    def __init__(self, downstream: Subscriber[T], count: int) -> None:
        super().__init__(downstream)
        self._limit = count
        self._remaining = count
        self._requested_up = 0

    def _opened(self) -> None:
        if self._limit == 0:
            self._complete_early()  # take(0): complete without demand (rule 1.5)

    def _forward(self, n: Any) -> None:
        if type(n) is not int or n <= 0:
            self._upstream.request(n)  # rule 3.9: upstream signals the error too
            return
        with self._lock:  # requests may come from several threads (rule 2.7 allows it)
            allowed = self._limit - self._requested_up
            grant = n if n < allowed else allowed
            if grant > 0:
                self._requested_up += grant
        if grant > 0:
            self._upstream.request(grant)

    def _apply(self, item: T) -> T | SkipMarker:
        remaining = self._remaining - 1
        self._remaining = remaining
        if remaining > 0:
            return item
        self._last(item, remaining)
        return SKIP

    def _last(self, item: T, remaining: int) -> None:
        """The ``count``-th element: sent, then upstream cancelled and completion."""
        downstream = self._out
        if downstream is not None:
            self._send(downstream, item)
        if remaining == 0:
            self._complete_early()


class Skip(Relay[T, T]):
    """Drops the first ``count`` elements; requests them upstream at subscription."""

    __slots__ = ("_remaining",)

    hop = "skip"

    def __init__(self, downstream: Subscriber[T], count: int) -> None:
        super().__init__(downstream)
        self._remaining = count

    def _opened(self) -> None:
        if self._remaining > 0:
            self._upstream.request(self._remaining)  # the skipped ones are ours to ask for

    def _apply(self, item: T) -> T | SkipMarker:
        if self._remaining > 0:
            self._remaining -= 1
            return SKIP
        return item


class TakeWhile(Relay[T, T]):
    """Elements while ``predicate`` holds; the first that fails ends the stream (not emitted)."""

    __slots__ = ("_predicate",)

    hop = "take_while"

    def __init__(self, downstream: Subscriber[T], predicate: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._predicate = predicate

    def _apply(self, item: T) -> T | SkipMarker:
        try:
            keep = self._predicate(item)
        except Exception as exc:
            self._fail(exc)
            return SKIP
        if not keep:
            self._complete_early()
            return SKIP
        return item
