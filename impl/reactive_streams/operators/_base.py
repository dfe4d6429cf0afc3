"""Shared pieces of the operators: the operator publisher and helpers.

A pass-through operator (map, filter, take, ...) is a
:class:`~reactive_streams._core.relay.Relay`: the Subscriber of its upstream and, through
the one downstream core, the Subscription of its downstream (which also records its
trace). Operators that emit on their own (buffers, flat_map, observe_on) use a drain.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import NOOP
from .._core.subscribing import subscribe_or_fail

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

R = TypeVar("R")

__all__ = ["CANCELLED", "OperatorPublisher"]

CANCELLED: Subscription = NOOP  # stands in for a released upstream


class OperatorPublisher(Generic[R]):
    """A Publisher that subscribes ``make(downstream)`` to ``source`` for every subscriber."""

    __slots__ = ("_make", "_name", "_source")

    def __init__(
        self,
        source: Publisher[Any],
        make: Callable[[Subscriber[R]], Subscriber[Any]],
        name: str = "operator",
    ) -> None:
        self._source = source
        self._make = make
        self._name = name

    def __repr__(self) -> str:
        return f"<{self._name} of {self._source!r}>"

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop = self._make(subscriber)  # the hop traces itself
        # rule 1.9: a raising source is on_subscribe then on_error to the hop
        subscribe_or_fail(self._source, hop, partial(deliver_subscribe_then_error, hop))


def deliver_subscribe_then_error(subscriber: Subscriber[Any], error: BaseException) -> None:
    """Rule 1.9 then 1.4: ``on_subscribe`` with a dead subscription, then ``on_error``."""
    subscriber.on_subscribe(CANCELLED)
    subscriber.on_error(error)
