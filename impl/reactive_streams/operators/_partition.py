"""``partition``: the two halves of a flow by a predicate, each a ``filter``.

``Flow.partition(p)`` returns ``(filter(p), filter(Not(p)))``: each half subscribes the
flow on its own (cold), with ``filter``'s demand (a dropped element replaced by
``request(1)`` upstream unless demand is unbounded) and fusion. ``Not`` is the second
half's predicate: a raising ``p`` raises there too (``filter`` cancels upstream and
signals the error).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

__all__ = ["Not"]


class Not(Generic[T]):
    """``not predicate(x)``, named after the predicate in errors and reprs."""

    __slots__ = ("_predicate",)

    def __init__(self, predicate: Callable[[T], object]) -> None:
        self._predicate = predicate

    def __repr__(self) -> str:
        return f"not {getattr(self._predicate, '__name__', repr(self._predicate))}"

    def __call__(self, item: T) -> bool:
        return not self._predicate(item)
