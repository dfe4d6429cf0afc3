"""Port of ``SyncSubscriber`` (reactive-streams-jvm 1.0.4 examples) and the two ways the
JVM tests use it: blackbox (``SyncSubscriberTest``) and whitebox
(``SyncSubscriberWhiteboxTest``, which registers a puppet with the probe on every
``on_subscribe``, the second one included)."""

from __future__ import annotations

import logging
from typing import Any, Generic, TypeVar

from reactive_streams.api import Subscription
from reactive_streams.tck import WhiteboxProbe, WhiteboxPuppet

T = TypeVar("T")
log = logging.getLogger(__name__)


class SyncSubscriber(Generic[T]):
    """Requests one element at a time, synchronously; ``when_next`` returns False to stop."""

    def __init__(self) -> None:
        self._subscription: Subscription | None = None
        self._done = False

    def on_subscribe(self, s: Subscription) -> None:
        if s is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._subscription is not None:
            try:
                s.cancel()  # rule 2.5
            except Exception:
                log.exception("cancel raised (rule 3.15)")
        else:
            self._subscription = s  # stored before request: it may call back (rule 3.10)
            try:
                s.request(1)
            except Exception:
                log.exception("request raised (rule 3.16)")

    def on_next(self, element: T) -> None:
        if self._subscription is None:
            log.error("on_next before on_subscribe (rule 1.9)")
            return
        if element is None:
            raise TypeError("rule 2.13: on_next(None)")
        if self._done:
            return
        try:
            if self.when_next(element):
                try:
                    self._subscription.request(1)
                except Exception:
                    log.exception("request raised (rule 3.16)")
            else:
                self._finish()
        except Exception as exc:
            self._finish()
            try:
                self.on_error(exc)
            except Exception:
                log.exception("on_error raised (rule 2.13)")

    def _finish(self) -> None:
        self._done = True
        assert self._subscription is not None
        try:
            self._subscription.cancel()
        except Exception:
            log.exception("cancel raised (rule 3.15)")

    def when_next(self, element: T) -> bool:
        raise NotImplementedError

    def on_error(self, error: BaseException) -> None:
        if self._subscription is None:
            log.error("on_error before on_subscribe (rule 1.9)")
        elif error is None:
            raise TypeError("rule 2.13: on_error(None)")

    def on_complete(self) -> None:
        if self._subscription is None:
            log.error("on_complete before on_subscribe (rule 1.9)")


class Accumulating(SyncSubscriber[int]):
    """``SyncSubscriberTest.createSubscriber``: sums the elements."""

    def __init__(self) -> None:
        super().__init__()
        self.acc = 0

    def when_next(self, element: int) -> bool:
        self.acc += element
        return True


class _Puppet:
    def __init__(self, s: Subscription) -> None:
        self.s = s

    def trigger_request(self, n: int) -> None:
        self.s.request(n)

    def signal_cancel(self) -> None:
        self.s.cancel()


class Whitebox(SyncSubscriber[Any]):
    """``SyncSubscriberWhiteboxTest.createSubscriber(probe)``."""

    def __init__(self, probe: WhiteboxProbe) -> None:
        super().__init__()
        self.probe = probe

    def on_subscribe(self, s: Subscription) -> None:
        super().on_subscribe(s)
        puppet = _Puppet(s)
        self.probe.register_on_subscribe(
            WhiteboxPuppet(puppet.trigger_request, puppet.signal_cancel)
        )

    def on_next(self, element: Any) -> None:
        super().on_next(element)
        self.probe.register_on_next(element)

    def on_error(self, error: BaseException) -> None:
        super().on_error(error)
        self.probe.register_on_error(error)

    def on_complete(self) -> None:
        super().on_complete()
        self.probe.register_on_complete()

    def when_next(self, element: Any) -> bool:
        return True
