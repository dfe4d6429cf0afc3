"""Bugs that break a rule of chapter 3 (Subscription), one small class each.

Every class mutates one of the controls (``publishers.py``, ``subscribers.py``) and
names the rule it breaks, the kit check that must fail on it and the JVM TCK's verdict.
Several widen a race window with a tiny sleep: they model the bug, they are not
evidence of anything.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from ..._core.demand import MAX_DEMAND, add_demand
from ...api import Subscriber, Subscription
from .publishers import GalleryPublisher, ThreadedPublisher
from .subscribers import GallerySubscriber

__all__ = [
    "CancelFreesTheSubscriber",
    "CancelIgnored",
    "CancelIgnoredAsync",
    "CancelTwiceRaises",
    "CancelWaitsForOnNext",
    "DeliversAfterCancel",
    "Demand32Bits",
    "FlushesOnCancel",
    "KeepsSubscriberAfterCancel",
    "KeepsSubscriberAfterComplete",
    "LogsBadRequest",
    "LostUpdate",
    "MissedWakeUp",
    "NotReentrant",
    "OverflowIsAnError",
    "RaisesOnBadRequest",
    "RequestWaitsForOnNext",
    "SilentOnBadRequest",
    "StaleDemand",
    "StoresSubscriptionAfterRequesting",
    "UnboundedRecursion",
    "UnnamedRuleOnBadRequest",
    "WrapsPastMax",
    "WrongErrorOnBadRequest",
]

_log = logging.getLogger("reactive_streams.tck.gallery")

_REGISTRY: list[object] = []  # P21, P22: a publisher-level registry that leaks

_308 = "extra_spec308_concurrent_requests_add_up_exactly"
_309 = "required_spec309_request_zero_must_signal_illegal_argument_exception"
_312 = "extra_spec312_cancel_stops_emission_with_outstanding_demand"


# ------------------------------------------------------ 3.2-3.5: calls from signals


class NotReentrant(GalleryPublisher):
    """request() not reentrant (deadlocks when called from on_next)."""

    id = "P40"
    rule = "3.2"
    check = "required_spec302_must_allow_synchronous_request_calls_from_on_next_and_on_subscribe"
    jvm = "required_spec302 (as a hang)"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.plain = threading.Lock()

        def drain(self) -> None:
            with self.plain:  # not reentrant: a request from on_next deadlocks here
                self.emit()


class UnboundedRecursion(GalleryPublisher):
    """Unbounded recursion request -> on_next -> request."""

    id = "P39"
    rule = "3.3"
    check = "required_spec303_must_not_allow_unbounded_recursion"
    jvm = "required_spec303"

    class Subscription(GalleryPublisher.Subscription):
        def drain(self) -> None:
            self.emit()  # no trampoline


class RequestWaitsForOnNext(GalleryPublisher):
    """request() blocks while on_next runs on another thread."""

    id = "P41"
    rule = "3.4"
    check = "extra_spec304_request_does_not_wait_for_a_running_on_next"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.emitting = threading.RLock()  # held while on_next runs

        def request(self, n: int) -> None:
            with self.emitting:  # waits for an on_next running on another thread
                pass
            super().request(n)

        def on_next(self, item: object) -> bool:
            with self.emitting:
                return super().on_next(item)


class CancelWaitsForOnNext(GalleryPublisher):
    """cancel() blocks while on_next runs on another thread."""

    id = "P42"
    rule = "3.5"
    check = "extra_spec305_cancel_does_not_wait_for_a_running_on_next"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.emitting = threading.RLock()  # held while on_next runs

        def cancel(self) -> None:
            with self.emitting:  # waits for an on_next running on another thread
                pass
            super().cancel()

        def on_next(self, item: object) -> bool:
            with self.emitting:
                return super().on_next(item)


class CancelFreesTheSubscriber(GalleryPublisher):
    """cancel() not thread-safe: frees what the emitter is using."""

    id = "P43"
    rule = "3.5"
    check = "extra_spec305_cancel_does_not_wait_for_a_running_on_next"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            self.subscriber = None  # without telling the emitter

        def on_next(self, item: object) -> bool:
            time.sleep(0.0002)
            self.subscriber.on_next(item)  # type: ignore[union-attr]
            return True


# ------------------------------------------------------------ 3.6, 3.7: after cancel


class DeliversAfterCancel(GalleryPublisher):
    """Elements delivered after cancel and a new request."""

    id = "P17"
    rule = "3.6"
    check = "required_spec306_after_subscription_is_cancelled_request_must_be_nops"
    jvm = "required_spec306"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            self.cancelled = True  # but the subscriber is kept...

        def stopped(self) -> bool:
            return self.done  # ...and served


class CancelTwiceRaises(GalleryPublisher):
    """A second cancel raises."""

    id = "P18"
    rule = "3.7"
    check = "required_spec307_after_subscription_is_cancelled_additional_cancelations_must_be_nops"
    jvm = "required_spec307"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            if self.cancelled:
                raise RuntimeError("already cancelled")
            super().cancel()


# ----------------------------------------------------------- 3.8: demand arithmetic


class LostUpdate(GalleryPublisher):
    """Lost update on the demand counter (unlocked read-modify-write)."""

    id = "P05"
    rule = "3.8"
    check = _308
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def take(self) -> bool:
            current = self.demand  # read-modify-write without the lock...
            if current <= 0:
                return False
            time.sleep(0.0002)  # ...so a request landing here is overwritten (lost)
            self.demand = current - 1
            return True


class MissedWakeUp(GalleryPublisher):
    """Missed wake-up: a request landing while the emitter exits is never served."""

    id = "P06"
    rule = "3.8"
    check = _308
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def drain(self) -> None:
            with self.lock:
                self.wip += 1
                if self.wip != 1:
                    return
            self.emit()
            time.sleep(0.0005)  # the emitter is leaving...
            with self.lock:
                self.wip = 0  # ...and forgets a request that arrived meanwhile


class StaleDemand(ThreadedPublisher):
    """The drain stores the demand it read before on_next (a concurrent request is lost)."""

    id = "P53"
    rule = "3.8"
    check = _308
    jvm = "NONE"

    class Drained(ThreadedPublisher.Drained):
        def spend(self) -> int:
            return self.demand  # spent only after on_next...

        def spent(self, seen: int) -> None:
            if seen != MAX_DEMAND:
                with self.lock:
                    self.demand = seen - 1  # ...overwriting a request made meanwhile


# --------------------------------------------------------------- 3.9: request(n <= 0)


class SilentOnBadRequest(GalleryPublisher):
    """request(n <= 0) silently ignored."""

    id = "P11"
    rule = "3.9"
    check = _309
    jvm = "required_spec309 x2"

    class Subscription(GalleryPublisher.Subscription):
        def reject(self, message: str) -> None:
            pass


class RaisesOnBadRequest(GalleryPublisher):
    """request(n <= 0) raises from request()."""

    id = "P12"
    rule = "3.9"
    check = _309
    jvm = "required_spec309 x2"

    class Subscription(GalleryPublisher.Subscription):
        def reject(self, message: str) -> None:
            raise ValueError(message)


class WrongErrorOnBadRequest(GalleryPublisher):
    """request(n <= 0) signals on_error of the wrong type."""

    id = "P13"
    rule = "3.9"
    check = _309
    jvm = "required_spec309 x2"

    class Subscription(GalleryPublisher.Subscription):
        def reject(self, message: str) -> None:
            self.bad = RuntimeError("bad request")
            self.drain()


class LogsBadRequest(GalleryPublisher):
    """request(n <= 0) only logged."""

    id = "P14"
    rule = "3.9"
    check = _309
    jvm = "required_spec309 x2"

    class Subscription(GalleryPublisher.Subscription):
        def reject(self, message: str) -> None:
            _log.warning("ignored %s", message)


class UnnamedRuleOnBadRequest(GalleryPublisher):
    """The rule-3.9 error does not cite the rule."""

    id = "P15"
    rule = "3.9"
    check = "optional_spec309_request_negative_number_may_signal_illegal_argument_exception_with_specific_message"
    jvm = "optional_spec309 (skip only)"

    class Subscription(GalleryPublisher.Subscription):
        def reject(self, message: str) -> None:
            self.bad = ValueError("bad request")
            self.drain()


# ------------------------------------------------------------- 3.10: synchronous call


class StoresSubscriptionAfterRequesting(GallerySubscriber):
    """Stores its subscription only after requesting."""

    id = "S17"
    rule = "3.10"
    check = "extra_spec310_blackbox_works_with_a_synchronous_publisher"
    jvm = "NONE"

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None or self.subscription is not None:
            super().on_subscribe(subscription)
            return
        subscription.request(1)  # before storing it: breaks under a synchronous publisher
        self.subscription = subscription


# ---------------------------------------------------------------- 3.12: cancel


class CancelIgnored(GalleryPublisher):
    """Cancel ignored (demand still respected)."""

    id = "P19"
    rule = "3.12"
    check = _312
    jvm = "NONE (async); a synchronous infinite one hangs spec317"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            pass


class FlushesOnCancel(GalleryPublisher):
    """Cancel ignored and the rest flushed regardless of demand."""

    id = "P20"
    rule = "3.12"
    check = "required_spec312_cancel_must_make_the_publisher_to_eventually_stop_signaling"
    jvm = "required_spec312"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            self.demand = MAX_DEMAND  # "cancel" flushes the rest, ignoring demand
            self.drain()


class CancelIgnoredAsync(ThreadedPublisher):
    """Cancel ignored by an asynchronous emitter (a starved one looks stopped)."""

    id = "P51"
    rule = "3.12"
    check = _312
    jvm = "NONE"

    class Drained(ThreadedPublisher.Drained):
        def cancel(self) -> None:
            pass  # the emitter never hears of it


# --------------------------------------------------------------- 3.13: references


class KeepsSubscriberAfterCancel(GalleryPublisher):
    """A publisher-level registry keeps the subscriber after cancel."""

    id = "P21"
    rule = "3.13"
    check = "required_spec313_cancel_must_make_the_publisher_eventually_drop_all_references_to_the_subscriber"
    jvm = "required_spec313 (timed GC)"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            _REGISTRY.append(self)

        def release(self, why: str = "terminal") -> None:
            if why == "cancel":
                self.done = True  # the registry keeps the subscription, and so the subscriber
                return
            super().release(why)


class KeepsSubscriberAfterComplete(GalleryPublisher):
    """The subscriber kept after on_complete."""

    id = "P22"
    rule = "3.13"
    check = "extra_spec313_publisher_drops_the_subscriber_after_a_terminal_signal"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            _REGISTRY.append(self)

        def release(self, why: str = "terminal") -> None:
            if why == "terminal":
                self.done = True  # the registry keeps the subscription, and so the subscriber
                return
            super().release(why)


# ----------------------------------------------------------------- 3.17: 2**63 - 1


def _wrap(value: int, bits: int) -> int:
    value &= 2**bits - 1
    return value - 2**bits if value >= 2 ** (bits - 1) else value


class WrapsPastMax(GalleryPublisher):
    """Demand wraps negative past 2**63 - 1 and emission stalls."""

    id = "P07"
    rule = "3.17"
    check = "required_spec317_must_not_signal_on_error_when_pending_above_long_max_value"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def add_demand(self, n: int) -> None:
            with self.lock:
                self.demand = _wrap(self.demand + n, 64)
            self.drain()


class OverflowIsAnError(GalleryPublisher):
    """Demand overflow signalled as on_error."""

    id = "P08"
    rule = "3.17"
    check = "required_spec317_must_not_signal_on_error_when_pending_above_long_max_value"
    jvm = "required_spec317 (cumulative / above MAX)"

    class Subscription(GalleryPublisher.Subscription):
        def add_demand(self, n: int) -> None:
            with self.lock:
                if self.demand + n > MAX_DEMAND:
                    self.bad = ValueError("demand overflow")
                else:
                    self.demand = add_demand(self.demand, n)
            self.drain()


class Demand32Bits(GalleryPublisher):
    """Demand kept in 32 bits (2**63 - 1 truncates to -1)."""

    id = "P09"
    rule = "3.17"
    check = "required_spec317_must_support_a_pending_element_count_up_to_long_max_value"
    jvm = "required_spec317_mustSupportAPendingElementCountUpToLongMaxValue"

    class Subscription(GalleryPublisher.Subscription):
        def add_demand(self, n: int) -> None:
            with self.lock:
                self.demand = _wrap(self.demand + n, 32)
            self.drain()
