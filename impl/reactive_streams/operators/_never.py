"""``never``: a source that signals nothing after ``on_subscribe``.

It is a :class:`~._drained.DemandDrain` with nothing to emit: the first drain round
delivers ``on_subscribe`` (rule 1.9), requests are recorded and left unanswered (rule 1.1
allows fewer elements than requested), an invalid request still ends it with the rule 3.9
error, and a cancel releases the subscriber (rule 3.13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._drained import DemandDrain

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = ["NeverPublisher"]


class _Never(DemandDrain[Any]):
    __slots__ = ()

    def _round(self) -> bool:
        return False  # no element, no terminal signal


class NeverPublisher:
    """The Publisher of ``Flow.never()``: every subscriber gets ``on_subscribe`` only."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<never>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _Never(subscriber, "never")._signal()  # the drain delivers on_subscribe (1.9)
