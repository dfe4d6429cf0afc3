"""Bugs that break a rule of chapter 1 (Publisher), one small class each.

Every class mutates one of the controls (``publishers.py``, ``processors.py``) and names
the rule it breaks, the kit check that must fail on it and the JVM TCK's verdict.
Several widen a race window with a tiny sleep: they model the bug, they are not
evidence of anything.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from ..._core.demand import MAX_DEMAND, add_demand, check_request
from ...api import Subscriber
from .processors import GalleryProcessor, _Downstream
from .publishers import FailedPublisher, FailingPublisher, GalleryPublisher, ThreadedPublisher

__all__ = [
    "AcceptsNoneSubscriber",
    "CompletesBeforeOnSubscribe",
    "CompletesOnCancel",
    "CompletesTwice",
    "EagerPush",
    "ErrorOnlyAfterRequest",
    "ErrorReachesFirstSubscriberOnly",
    "ErrorWithoutOnSubscribe",
    "ErrsOnBadRequestAfterComplete",
    "IgnoresCancelInOnSubscribe",
    "IgnoresDemandOnTwoThreads",
    "NeverCompletes",
    "NeverSignalsError",
    "NeverSubscribes",
    "OneMoreAcross1024",
    "OneSubscriberOnly",
    "OverlapsOnSubscribe",
    "SendsOneMore",
    "ServesMoreAfterComplete",
    "SharesDemand",
    "ShufflesPerSubscriber",
    "SignalsAfterError",
    "SubscribesTwice",
    "SwallowsSourceFailure",
    "TrampolinedPerThread",
    "UnboundedFrom1024",
    "UnserialisedDrains",
]

_101 = (
    "required_spec101_subscription_request_must_result_in_the_correct_number_of_produced_elements"
)
_103 = "extra_spec103_no_signal_overlaps_a_running_signal"
_109 = "required_spec109_must_issue_on_subscribe_for_non_null_subscriber"


# ---------------------------------------------------------------- 1.1: demand bounds


class EagerPush(GalleryPublisher):
    """Emits before any request (eager push)."""

    id = "P01"
    rule = "1.1"
    check = _101
    jvm = "required_spec101"

    class Subscription(GalleryPublisher.Subscription):
        def start(self) -> None:
            super().start()
            self.add_demand(MAX_DEMAND)


class SendsOneMore(GalleryPublisher):
    """Sends n+1 per request(n)."""

    id = "P02"
    rule = "1.1"
    check = _101
    jvm = "required_spec101, spec102, spec107, spec306, spec317"

    class Subscription(GalleryPublisher.Subscription):
        def add_demand(self, n: int) -> None:
            super().add_demand(n + 1)


class IgnoresDemandOnTwoThreads(GalleryPublisher):
    """Ignores demand, emitting from two threads."""

    id = "P03"
    rule = "1.1"
    check = _101
    jvm = "required_spec312, spec317"
    synchronous = False

    class Subscription(GalleryPublisher.Subscription):
        def add_demand(self, n: int) -> None:
            with self.lock:
                self.demand = add_demand(self.demand, n)
            for _ in range(2):
                threading.Thread(target=self.flood, args=(n,), daemon=True).start()

        def flood(self, n: int) -> None:
            try:
                for _ in range(n + 1):
                    if self.cancelled or self.next >= self.n:
                        return
                    index = self.next
                    self.next += 1
                    self.signal("on_next", index)
            except BaseException:  # the kit aborts an overdue check by raising into its probes
                return


class OneMoreAcross1024(GalleryPublisher):
    """One extra element when cumulative demand crosses 1024."""

    id = "P04"
    rule = "1.1"
    check = "extra_spec101_generated_request_sequences_never_over_deliver"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        total = 0

        def add_demand(self, n: int) -> None:
            before, self.total = self.total, self.total + n
            super().add_demand(n + 1 if before < 1024 <= self.total else n)


class UnboundedFrom1024(GalleryPublisher):
    """Demand of 1024 or more treated as unbounded."""

    id = "P10"
    rule = "1.1"
    check = "extra_spec101_generated_request_sequences_never_over_deliver"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def unbounded(self) -> bool:
            return self.demand >= 1024


# ------------------------------------------------------------- 1.3: serial signals


class CompletesOnCancel(GalleryPublisher):
    """cancel() signals on_complete on the cancelling thread, overlapping a running on_next."""

    id = "P27"
    rule = "1.3"
    check = "extra_spec305_cancel_does_not_wait_for_a_running_on_next"
    jvm = "required_spec307 (reads 3.7 as: no signal at all after cancel)"

    class Subscription(GalleryPublisher.Subscription):
        def cancel(self) -> None:
            self.cancelled = True
            if not self.done:
                self.done = True
                subscriber = self.subscriber
                if subscriber is not None:
                    subscriber.on_complete()
            self.release("cancel")


class TrampolinedPerThread(GalleryPublisher):
    """Signals from a requesting thread overlap a running on_next."""

    id = "P36"
    rule = "1.3"
    check = _103
    jvm = "stochastic_spec103 only"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.local = threading.local()  # the bug: one trampoline per thread

        def drain(self) -> None:
            if getattr(self.local, "busy", False):
                self.local.again = True
                return
            self.local.busy = True
            try:
                self.local.again = True
                while self.local.again:
                    self.local.again = False
                    self.emit()
            finally:
                self.local.busy = False


class OverlapsOnSubscribe(GalleryPublisher):
    """on_next on another thread while on_subscribe runs."""

    id = "P37"
    rule = "1.3"
    check = _103
    jvm = "stochastic_spec103 only"
    synchronous = False

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.serial = threading.RLock()

        def add_demand(self, n: int) -> None:
            with self.lock:
                self.demand = add_demand(self.demand, n)
            threading.Thread(target=self.drain_aside, daemon=True).start()

        def drain_aside(self) -> None:
            try:
                self.drain()
            except BaseException:  # the kit aborts an overdue check by raising into its probes
                return

        def drain(self) -> None:
            with self.serial:  # serial among drains, but not with on_subscribe
                self.emit()


class UnserialisedDrains(ThreadedPublisher):
    """Unserialised asynchronous drain: a drain thread per request."""

    id = "P52"
    rule = "1.3"
    check = _103
    jvm = "stochastic_spec103 only"

    class Drained(ThreadedPublisher.Drained):
        def schedule(self) -> None:  # no work-in-progress guard
            threading.Thread(target=self.drain, name="gallery-drain", daemon=True).start()

        def drain(self) -> None:
            me = self.drainer = threading.get_ident()
            try:
                self.emit()
            except BaseException:  # the kit aborts an overdue check by raising into its probes
                self.subscriber = None
            finally:
                if self.drainer == me:
                    self.drainer = None


# ----------------------------------------------------------------- 1.4: errors


class NeverSignalsError(FailedPublisher):
    """Failed publisher never signals on_error."""

    id = "P34"
    rule = "1.4"
    check = "optional_spec104_must_signal_on_error_when_fails"
    jvm = "required_spec109_mayReject..."

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscriber.on_subscribe(self.Dead())


class SwallowsSourceFailure(FailingPublisher):
    """Mid-stream source failure swallowed (completes instead)."""

    id = "P35"
    rule = "1.4"
    check = "extra_spec104_mid_stream_failure_signals_on_error"
    jvm = "NONE"

    class Subscription(FailingPublisher.Subscription):
        def complete(self) -> None:
            GalleryPublisher.Subscription.complete(self)


class ErrorOnlyAfterRequest(FailedPublisher):
    """Failed publisher signals on_error only after a request."""

    id = "P50"
    rule = "1.4"
    check = "optional_spec104_must_signal_on_error_when_fails"
    jvm = "required_spec109_mayReject, optional_spec104 (contested, #559)"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscriber.on_subscribe(self.Late(subscriber, self.error()))

    class Late:
        def __init__(self, subscriber: Subscriber[Any], error: BaseException) -> None:
            self.subscriber = subscriber
            self.error = error
            self.done = False

        def request(self, n: int) -> None:
            if not self.done:
                self.done = True
                self.subscriber.on_error(self.error)

        def cancel(self) -> None:
            self.done = True


class ErrorReachesFirstSubscriberOnly(GalleryProcessor):
    """on_error reaches only the first subscriber."""

    id = "X02"
    rule = "1.4"
    check = "required_spec104_must_call_on_error_on_all_its_subscribers_if_it_encounters_a_non_recoverable_error"
    jvm = "required_spec104_mustCallOnErrorOnAllItsSubscribers..."

    def error_reaches(self, down: _Downstream, first: _Downstream | None) -> bool:
        return down is first


# ---------------------------------------------------------- 1.5-1.8: terminal signals


class NeverCompletes(GalleryPublisher):
    """No on_complete for a finite stream."""

    id = "P23"
    rule = "1.5"
    check = "required_spec105_must_signal_on_complete_when_finite_stream_terminates"
    jvm = "required_spec105, createPublisher1/3"

    class Subscription(GalleryPublisher.Subscription):
        def complete(self) -> None:
            pass


class ErrsOnBadRequestAfterComplete(GalleryPublisher):
    """request(n <= 0) after on_complete signals on_error."""

    id = "P16"
    rule = "1.6"
    check = "extra_spec106_request_and_cancel_after_on_complete_are_nops"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def request(self, n: int) -> None:
            message = check_request(n)
            if message is not None and self.done and not self.cancelled:
                self.signal("on_error", ValueError(message))
                return
            super().request(n)

        def release(self, why: str = "terminal") -> None:
            if why == "terminal":
                self.done = True  # keeps the subscriber, and signals it again
                return
            super().release(why)


class CompletesTwice(GalleryPublisher):
    """on_complete signalled twice."""

    id = "P24"
    rule = "1.7"
    check = "required_spec107_must_not_emit_further_signals_once_on_complete_has_been_signalled"
    jvm = "incidental (receptacle)"

    class Subscription(GalleryPublisher.Subscription):
        def complete(self) -> None:
            subscriber = self.subscriber
            super().complete()
            if subscriber is not None:
                self.terminal(subscriber, "on_complete")


class ServesMoreAfterComplete(GalleryPublisher):
    """Completes, then serves more on request."""

    id = "P25"
    rule = "1.7"
    check = "required_spec107_must_not_emit_further_signals_once_on_complete_has_been_signalled"
    jvm = "required_spec107"

    class Subscription(GalleryPublisher.Subscription):
        def request(self, n: int) -> None:
            if self.done and not self.cancelled and check_request(n) is None:
                self.done = False
                self.n += n  # "completed", yet a later request serves more
                self.add_demand(n)
                return
            super().request(n)

        def complete(self) -> None:
            self.done = True  # keeps the subscriber
            subscriber = self.subscriber
            if subscriber is not None:
                self.terminal(subscriber, "on_complete")


class SignalsAfterError(GalleryPublisher):
    """Signals after on_error (a mid-stream 3.9 error)."""

    id = "P26"
    rule = "1.7"
    check = "extra_spec107_no_signals_after_on_error"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        def request(self, n: int) -> None:
            if self.done and not self.cancelled and check_request(n) is None:
                self.done = False  # a request resurrects a failed stream
            super().request(n)

        def fail(self) -> None:
            error, self.bad = self.bad, None
            self.done = True  # keeps the subscriber
            subscriber = self.subscriber
            if subscriber is not None and error is not None:
                subscriber.on_error(error)


class IgnoresCancelInOnSubscribe(GalleryPublisher):
    """cancel() inside on_subscribe ignored."""

    id = "P48"
    rule = "1.8"
    check = "extra_spec108_signals_stop_once_cancel_is_called_from_a_signal"
    jvm = "NONE"

    class Subscription(GalleryPublisher.Subscription):
        in_on_subscribe = False

        def introduce(self, subscriber: Subscriber[Any]) -> None:
            self.in_on_subscribe = True
            try:
                super().introduce(subscriber)
            finally:
                self.in_on_subscribe = False

        def cancel(self) -> None:
            if not self.in_on_subscribe:
                super().cancel()


# --------------------------------------------------------------- 1.9: subscribe


class CompletesBeforeOnSubscribe(GalleryPublisher):
    """on_complete before on_subscribe."""

    id = "P28"
    rule = "1.9"
    check = _109
    jvm = "required_spec109_mustIssueOnSubscribeForNonNullSubscriber"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is not None:
            subscriber.on_complete()
        super().subscribe(subscriber)


class NeverSubscribes(GalleryPublisher):
    """on_subscribe never called."""

    id = "P29"
    rule = "1.9"
    check = _109
    jvm = "required_spec109_mustIssueOnSubscribeForNonNullSubscriber"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")


class SubscribesTwice(GalleryPublisher):
    """on_subscribe called twice."""

    id = "P30"
    rule = "1.9"
    check = _109
    jvm = "required_spec109_mustIssueOnSubscribeForNonNullSubscriber"

    class Subscription(GalleryPublisher.Subscription):
        def start(self) -> None:
            subscriber = self.subscriber
            super().start()
            if subscriber is not None:
                subscriber.on_subscribe(self)


class AcceptsNoneSubscriber(GalleryPublisher):
    """subscribe(None) returns normally."""

    id = "P31"
    rule = "1.9"
    check = "required_spec109_subscribe_throw_npe_on_null_subscriber"
    jvm = "required_spec109_subscribeThrowNPEOnNullSubscriber"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is not None:
            super().subscribe(subscriber)


class OneSubscriberOnly(GalleryPublisher):
    """subscribe() raises for a second subscriber."""

    id = "P32"
    rule = "1.9"
    check = "extra_spec109_subscribe_never_raises_for_a_subscriber"
    jvm = "NONE (required level)"

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.subscribed = 0

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is not None:
            self.subscribed += 1
            if self.subscribed > 1:
                raise RuntimeError("only one subscriber allowed")
        super().subscribe(subscriber)


class ErrorWithoutOnSubscribe(FailedPublisher):
    """Failed publisher: on_error without on_subscribe."""

    id = "P33"
    rule = "1.9"
    check = "required_spec109_may_reject_calls_to_subscribe_if_publisher_is_unable_or_unwilling_to_serve_them_rejection_must_trigger_on_error_after_on_subscribe"
    jvm = "required_spec109_mayReject..."

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscriber.on_error(self.error())


# -------------------------------------------------------------- 1.11: multicast


class ShufflesPerSubscriber(GalleryPublisher):
    """Claims multicast, sends each subscriber a different order."""

    id = "P45"
    rule = "1.11"
    check = "optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_one_by_one"
    jvm = "optional_spec111 (skip only)"

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            self.order: list[int] = []
            if self.n <= 10_000:
                self.order = list(range(self.n))
                random.shuffle(self.order)

        def element(self, index: int) -> object:
            return self.order[index] if self.order else index


class SharesDemand(GalleryPublisher):
    """Per-subscription demand shared by all subscribers."""

    id = "P46"
    rule = "1.11"
    check = "extra_spec111_each_subscription_keeps_its_own_demand"
    jvm = "NONE"

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.shared = [0]  # one counter for every subscription
        self.subscriptions: list[GalleryPublisher.Subscription] = []

    class Subscription(GalleryPublisher.Subscription):
        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            super().__init__(publisher, subscriber)
            assert isinstance(publisher, SharesDemand)
            self.shared = publisher.shared
            self.others = publisher.subscriptions
            self.others.append(self)

        def add_demand(self, n: int) -> None:
            with self.lock:
                self.shared[0] = add_demand(self.shared[0], n)
            for other in list(self.others):
                other.drain()  # one publisher-level loop serves every subscription

        def take(self) -> bool:
            with self.lock:
                if self.shared[0] <= 0:
                    return False
                self.shared[0] -= 1
                return True
