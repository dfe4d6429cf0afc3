"""Shared pieces of the operators: the pass-through operator subscriber and helpers.

A pass-through operator (map, filter, take, ...) is one object that is the Subscriber of
its upstream and the Subscription of its downstream. Upstream obeys rule 1.3, so its
``on_*`` calls never overlap and the operator calls downstream serially too; operators
that emit on their own (buffers, flat_map, observe_on) use the core ``DrainLoop``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import NOOP
from .._core.hop import traced
from .._demand import check_request
from .._serial import SerialSubscription

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["CANCELLED", "Operator", "OperatorPublisher"]

CANCELLED: Subscription = NOOP  # stands in for a released upstream


class Operator(Generic[T, R]):
    """Subscriber of ``T`` upstream and Subscription downstream, emitting ``R``.

    Subclasses override ``on_next`` (and whatever else they change). ``_fail`` is the
    path for a user function that raised: cancel upstream, then ``on_error`` downstream.
    """

    __slots__ = ("_bad", "_done", "_downstream", "_upstream")

    def __init__(self, downstream: Subscriber[R]) -> None:
        self._downstream: Subscriber[R] | None = downstream
        self._upstream: Subscription = CANCELLED
        self._done = False
        self._bad: str | None = None  # rule 3.9: an invalid request this hop received

    # --------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not CANCELLED or self._done:
            subscription.cancel()  # rule 2.5: one active subscription
            return
        # the operator's own calls and the forwarded ones are serial (rule 2.7)
        self._upstream = SerialSubscription(subscription)
        downstream = self._downstream
        if downstream is not None:
            try:
                downstream.on_subscribe(self)
            except Exception:
                self.cancel()  # rule 2.13: drop it (3.13); upstream is told by the raise
                raise

    def on_next(self, item: T) -> None:
        raise NotImplementedError

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._done:
            return  # rule 2.8 / 1.7: after our own terminal signal, ignore
        self._done = True
        downstream, self._downstream = self._downstream, None  # rule 3.13
        self._upstream = CANCELLED
        if downstream is not None:
            downstream.on_error(error if self._bad is None else ValueError(self._bad))

    def on_complete(self) -> None:
        if self._bad is not None:
            self.on_error(ValueError(self._bad))  # rule 3.9: no completion after it
            return
        if self._done:
            return
        self._done = True
        downstream, self._downstream = self._downstream, None
        self._upstream = CANCELLED
        if downstream is not None:
            downstream.on_complete()

    # ------------------------------------------------------------- Subscription
    def request(self, n: int) -> None:
        if type(n) is not int or n <= 0:
            self._refuse(n)
        self._upstream.request(n)  # upstream applies rules 3.9 and 3.17 too

    def _refuse(self, n: object) -> None:
        """Rule 3.9: remember the first invalid request; the terminal signal is its error."""
        if self._bad is None:
            self._bad = check_request(n)

    def cancel(self) -> None:
        self._done = True
        self._downstream = None  # rule 3.13
        self._upstream.cancel()  # serial: queued while another thread calls upstream

    def _late(self) -> None:
        """An element after downstream cancelled: upstream still emits (maybe for ever,
        with the cancel queued behind its request). Cancel from inside that emission."""
        self._upstream.cancel()

    # ---------------------------------------------------------------- helpers
    def _fail(self, error: BaseException) -> None:
        """A user function raised: cancel upstream, signal ``error`` downstream (once)."""
        if self._done:
            return
        upstream, self._upstream = self._upstream, CANCELLED
        upstream.cancel()
        self.on_error(error)

    def _complete_early(self) -> None:
        """Stop before upstream ends (take, take_while): cancel upstream, complete."""
        if self._done:
            return
        upstream, self._upstream = self._upstream, CANCELLED
        upstream.cancel()
        self.on_complete()


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
        self._source.subscribe(self._make(traced(subscriber, self._name)))


def deliver_subscribe_then_error(subscriber: Subscriber[Any], error: BaseException) -> None:
    """Rule 1.9 then 1.4: ``on_subscribe`` with a dead subscription, then ``on_error``."""
    subscriber.on_subscribe(CANCELLED)
    subscriber.on_error(error)
