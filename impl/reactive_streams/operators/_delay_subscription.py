"""``delay_subscription(dt)``: subscribe upstream ``dt`` seconds after the subscriber.

The hop is a :class:`~reactive_streams._core.relay.Relay` whose upstream is an
:class:`~reactive_streams._core.attach.Attach` slot from the start: ``on_subscribe``
reaches the subscriber at once (rule 1.9), its requests are summed in the slot until
upstream's subscription arrives, then go upstream (3.17); an invalid request is answered
at once, not when the timer fires (3.9); a cancel before then cancels the timer and
whatever subscription arrives later (rules 3.12, 3.13), atomically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from .._core.attach import Attach, Slot
from .._core.downstream import ACTIVE
from .._core.relay import Relay
from .._subscribing import subscribe_or_fail

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Cancellable, Scheduler

T = TypeVar("T")

__all__ = ["DelaySubscriptionPublisher"]


class _DelaySubscription(Relay[T, T]):
    __slots__ = ("_slot", "_source", "_timer")

    hop = "delay_subscription"

    def __init__(self, downstream: Subscriber[T], source: Publisher[T]) -> None:
        super().__init__(downstream)
        self._source: Publisher[T] | None = source
        self._slot = Attach(on_invalid=self._refused)
        self._upstream = self._slot  # the relay's requests and cancel go to the slot
        self._timer: Slot[Cancellable] = Slot()

    def start(self, dt: float, scheduler: Scheduler) -> None:
        self._out = self._downstream
        if self._deliver_subscribe():  # rule 1.9: first, now
            try:
                timer = scheduler.schedule(dt, self._subscribe_upstream)
            except Exception as exc:  # rules 1.9, 1.4: the scheduler refused (a closed loop)
                self._finish(exc)
                return
            self._timer.swap(timer)  # cancelled at once if the subscriber cancelled meanwhile

    def _subscribe_upstream(self) -> None:
        source, self._source = self._source, None
        if source is not None and self._pub is ACTIVE:
            subscribe_or_fail(source, self, self._finish)  # rule 1.9: a raise is on_error

    def on_subscribe(self, subscription: Subscription) -> None:
        self._slot.set(subscription)  # rules 2.5, 3.12: refused after a cancel, atomically

    def _refused(self, message: str) -> None:
        """Rule 3.9 before upstream is subscribed (the core latched it): the error now."""
        self._slot.cancel()  # upstream is never subscribed now
        self._answer_bad_request()

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._timer.dispose()  # rule 3.13: the timer does not keep the subscriber
            self._source = None
        super()._wake(cancel)  # the slot: cancels upstream, or what arrives later

    def _released(self) -> None:
        super()._released()
        self._timer.dispose()  # ended before the timer fired (rule 3.9): it never fires
        self._source = None


class DelaySubscriptionPublisher(Generic[T]):
    __slots__ = ("_dt", "_scheduler", "_source")

    def __init__(self, source: Publisher[T], dt: float, scheduler: Scheduler) -> None:
        self._source = source
        self._dt = dt
        self._scheduler = scheduler

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _DelaySubscription(subscriber, self._source).start(self._dt, self._scheduler)
