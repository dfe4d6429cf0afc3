"""``pairwise``: each element with the one before it, as ``(previous, current)``.

A :class:`~reactive_streams._core.relay.Relay`: downstream requests pass upstream as they
are, plus one element asked at subscription, the first, which forms no pair alone (as
``skip_last`` asks for its held elements); so ``request(n)`` gets ``n`` pairs (rule 1.1)
and a flow of fewer than two elements completes empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .._core.relay import SKIP, Relay, SkipMarker
from ._tail import MISSING

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")

__all__ = ["Pairwise"]


class Pairwise(Relay[T, tuple[T, T]]):
    __slots__ = ("_previous",)

    hop = "pairwise"

    def __init__(self, downstream: Subscriber[tuple[T, T]]) -> None:
        super().__init__(downstream)
        self._previous: Any = MISSING  # upstream's signals are serial (rule 1.3)

    def _opened(self) -> None:
        self._upstream.request(1)  # the first element, held: it forms no pair alone

    def _apply(self, item: T) -> tuple[T, T] | SkipMarker:
        previous, self._previous = self._previous, item
        if previous is MISSING:
            return SKIP
        return (previous, item)

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._previous = MISSING
