"""``delay_subscription(dt)``: subscribe upstream ``dt`` seconds after the subscriber.

The hop is a :class:`~reactive_streams._core.relay.Relay`: ``on_subscribe`` reaches the
subscriber at once (rule 1.9), its requests wait in ``_early`` until upstream's
subscription arrives, then go upstream in order; a cancel before then cancels the timer
(rules 3.12, 3.13) and upstream is never subscribed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE, NOOP
from .._core.relay import Relay
from .._core.serial import SerialSubscription
from .._core.subscribing import subscribe_or_fail

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Cancellable, Scheduler

T = TypeVar("T")

__all__ = ["DelaySubscriptionPublisher"]


class _DelaySubscription(Relay[T, T]):
    __slots__ = ("_early", "_source", "_timer")

    hop = "delay_subscription"

    def __init__(self, downstream: Subscriber[T], source: Publisher[T]) -> None:
        super().__init__(downstream)
        self._source: Publisher[T] | None = source
        self._early: list[Any] | None = []  # requests made before upstream subscribed
        self._timer: Cancellable | None = None

    def start(self, dt: float, scheduler: Scheduler) -> None:
        self._out = self._downstream
        if self._deliver_subscribe():  # rule 1.9: first, now
            try:
                self._timer = scheduler.schedule(dt, self._subscribe_upstream)
            except Exception as exc:  # rules 1.9, 1.4: the scheduler refused (a closed loop)
                self._finish(exc)
                return
            if self._pub is not ACTIVE:  # cancelled meanwhile
                self._timer.cancel()

    def _subscribe_upstream(self) -> None:
        source, self._source = self._source, None
        if source is not None and self._pub is ACTIVE:
            subscribe_or_fail(source, self, self._stop)  # rule 1.9: on_error; 3.13: cancel

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not NOOP or self._pub is not ACTIVE:
            subscription.cancel()  # rules 2.5, 3.12: one subscription, none after a cancel
            return
        upstream = SerialSubscription(subscription)
        with self._lock:
            self._upstream = upstream
            early, self._early = self._early, None
        for n in early or ():
            upstream.request(n)  # in order; rule 3.9 answered by upstream too

    def _forward(self, n: Any) -> None:
        with self._lock:
            early = self._early
            if early is not None:
                early.append(n)
                return
        self._upstream.request(n)

    def _wake(self, cancel: bool) -> None:
        if cancel:
            timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()  # rule 3.13: the timer does not keep the subscriber
            self._source = None
        super()._wake(cancel)


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
