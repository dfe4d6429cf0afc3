"""Port of the JVM TCK's own test helper ``SyncTriggeredDemandSubscriber`` (1.0.4,
``tck/src/test``) and the two ways the TCK's tests use it: blackbox
(``SyncTriggeredDemandSubscriberTest``: demand comes only from ``trigger_demand``, called
by the kit's ``trigger_request``) and whitebox (``SyncTriggeredDemandSubscriberWhiteboxTest``:
the puppet requests and cancels straight on the subscription).

It runs on the publisher's thread; each element goes to ``foreach``, whose result is the
new demand: more than 0 requests that many, 0 asks for nothing, below 0 cancels.
"""

from __future__ import annotations

import logging
from typing import Any, Generic, TypeVar

from reactive_streams.api import Subscription
from reactive_streams.tck import WhiteboxProbe, WhiteboxPuppet

T = TypeVar("T")
log = logging.getLogger(__name__)


class SyncTriggeredDemandSubscriber(Generic[T]):
    def __init__(self) -> None:
        self._subscription: Subscription | None = None
        self._done = False

    def foreach(self, element: T) -> int:
        """The demand after ``element`` (the JVM class leaves it abstract)."""
        return 1

    def on_subscribe(self, s: Subscription) -> None:
        if s is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._subscription is not None:
            try:
                s.cancel()  # rule 2.5: a second subscription is cancelled
            except Exception:
                log.exception("cancel raised (rule 3.15)")
        else:
            self._subscription = s  # no request here: demand is triggered from outside

    def trigger_demand(self, n: int) -> bool:
        """Request ``n``; False without a subscription or when request raised (3.16)."""
        s = self._subscription
        if s is None:
            return False
        try:
            s.request(n)
        except Exception:
            log.exception("request raised (rule 3.16)")
            return False
        return True

    def on_next(self, element: T) -> None:
        if self._subscription is None:
            log.error("on_next before on_subscribe (rule 1.9)")
            return
        if element is None:
            raise TypeError("rule 2.13: on_next(None)")
        if self._done:
            return
        try:
            need = self.foreach(element)
            if need > 0:
                self.trigger_demand(need)
            elif need < 0:
                self._finish()
        except Exception as exc:
            self._finish()
            try:
                self.on_error(exc)
            except Exception:
                log.exception("on_error raised (rule 2.13)")

    def _finish(self) -> None:
        self._done = True  # cancel is idempotent (rule 3.7): no guard needed
        assert self._subscription is not None
        try:
            self._subscription.cancel()
        except Exception:
            log.exception("cancel raised (rule 3.15)")

    def on_error(self, error: BaseException) -> None:
        if self._subscription is None:
            log.error("on_error before on_subscribe (rule 1.9)")
        elif error is None:
            raise TypeError("rule 2.13: on_error(None)")
        # rule 2.3: no call on the subscription here; it counts as cancelled (2.4)

    def on_complete(self) -> None:
        if self._subscription is None:
            log.error("on_complete before on_subscribe (rule 1.9)")


class Summing(SyncTriggeredDemandSubscriber[int]):
    """The blackbox test's subject: adds up the elements, one request per element."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def foreach(self, element: int) -> int:
        self.total += element
        return 1


def trigger(subscriber: Any) -> None:
    """The blackbox test's ``triggerRequest``: ``trigger_demand(1)``."""
    subscriber.trigger_demand(1)


class Whitebox(SyncTriggeredDemandSubscriber[int]):
    """The whitebox test's subject: every signal is also reported to the probe."""

    def __init__(self, probe: WhiteboxProbe) -> None:
        super().__init__()
        self.probe = probe

    def on_subscribe(self, s: Subscription) -> None:
        super().on_subscribe(s)
        self.probe.register_on_subscribe(WhiteboxPuppet(s.request, s.cancel))

    def on_next(self, element: int) -> None:
        super().on_next(element)
        self.probe.register_on_next(element)

    def on_error(self, error: BaseException) -> None:
        super().on_error(error)
        self.probe.register_on_error(error)

    def on_complete(self) -> None:
        super().on_complete()
        self.probe.register_on_complete()
