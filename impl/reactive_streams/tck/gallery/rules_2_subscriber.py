"""Bugs that break a rule of chapter 2 (Subscriber), one small class each.

Every class mutates one of the controls (``subscribers.py``, ``publishers.py``,
``processors.py``) and names the rule it breaks, the kit check that must fail on it and
the JVM TCK's verdict. A subscriber bug runs in the suite of its check (whitebox or
blackbox).
"""

from __future__ import annotations

import threading

from ...api import Subscription
from .processors import GalleryProcessor, _Downstream
from .publishers import GalleryPublisher
from .subscribers import GallerySubscriber

__all__ = [
    "AcceptsNone",
    "CancelsActiveOnSecondSubscribe",
    "CancelsAfterTerminalLater",
    "CancelsInTerminal",
    "EmitsNone",
    "FailsOnSecondElement",
    "FailsOnThirdElement",
    "KeepsSecondSubscription",
    "KeepsUpstreamWhenAlone",
    "NeverCancels",
    "NeverRequests",
    "NoBufferWithoutDemand",
    "NotReadyForComplete",
    "NotReadyForError",
    "RaisesAfterOwnCancel",
    "RequestsAfterTerminalLater",
    "RequestsFromSecondSubscription",
    "RequestsFromTwoThreads",
    "RequestsZero",
]

_201 = "required_spec201_must_signal_demand_via_subscription_request"


# ------------------------------------------------------------------- 2.1: demand


class NeverRequests(GallerySubscriber):
    """Never requests."""

    id = "S01"
    rule = "2.1"
    check = _201
    jvm = "required_spec201"

    def ask(self, n: int) -> None:
        pass


class RequestsZero(GallerySubscriber):
    """Requests 0."""

    id = "S02"
    rule = "2.1"
    check = _201
    jvm = "ManualPublisher.expectRequest"

    def ask(self, n: int) -> None:
        super().ask(0)


class FailsOnSecondElement(GallerySubscriber):
    """Mishandles elements when run unmodified."""

    id = "S19"
    rule = "2.1"
    check = "required_spec201_blackbox_must_signal_demand_via_subscription_request"
    jvm = "not exercised (#459: blackbox 2.1 sends no element)"

    def handle(self, item: object) -> None:
        if self.received == 2:
            raise RuntimeError("mishandles the second element")
        super().handle(item)


class NoBufferWithoutDemand(GalleryProcessor):
    """Does not buffer for a subscriber without demand."""

    id = "X03"
    rule = "2.1"
    check = (
        "required_spec201_must_request_from_upstream_for_elements_that_have_been_requested_long_ago"
    )
    jvm = "required_mustRequestFromUpstreamForElementsThatHaveBeenRequestedLongAgo"

    def buffer(self, down: _Downstream, item: object) -> None:
        if down.demand:
            super().buffer(down, item)  # a subscriber without demand loses the element


class KeepsUpstreamWhenAlone(GalleryProcessor):
    """No upstream cancel when its only downstream cancels (not mandated; flagged like the JVM TCK)."""

    id = "X04"
    rule = "2.1"
    check = "required_spec201_exercise_whitebox_happy_path"
    jvm = "required_exerciseWhiteboxHappyPath (stricter than the spec)"

    def drop_upstream(self, upstream: Subscription) -> Subscription | None:
        return None


# --------------------------------------------------------- 2.3, 2.4: terminal signals


class CancelsInTerminal(GallerySubscriber):
    """Cancels inside on_complete / on_error."""

    id = "S03"
    rule = "2.3"
    check = "required_spec203_must_not_call_methods_on_subscription_or_publisher_in_on_complete"
    jvm = "required_spec203 x2"

    def after_terminal(self) -> None:
        self.subscription.cancel()  # type: ignore[union-attr]


class CancelsAfterTerminalLater(GallerySubscriber):
    """Cancels after on_complete, from another task."""

    id = "S04"
    rule = "2.3"
    check = "extra_spec203_no_subscription_calls_from_terminal_handling_on_any_thread"
    jvm = "NONE"
    uses_executor = True

    def after_terminal(self) -> None:
        subscription = self.subscription
        self.later(lambda: subscription.cancel())  # type: ignore[union-attr]


class RequestsAfterTerminalLater(GallerySubscriber):
    """Requests again after on_complete, from another task."""

    id = "S16"
    rule = "2.4"
    check = "extra_spec204_blackbox_no_subscription_calls_after_a_terminal_signal"
    jvm = "NONE"
    uses_executor = True

    def after_terminal(self) -> None:
        subscription = self.subscription
        self.later(lambda: subscription.request(1))  # type: ignore[union-attr]


# ------------------------------------------------------ 2.5, 2.6: which subscription


class KeepsSecondSubscription(GallerySubscriber):
    """Does not cancel a second subscription."""

    id = "S05"
    rule = "2.5"
    check = "required_spec205_must_call_subscription_cancel_if_it_already_has_an_subscription_and_receives_another_on_subscribe_signal"
    jvm = "required_spec205"

    def second_subscription(self, subscription: Subscription) -> None:
        pass


class RequestsFromSecondSubscription(GallerySubscriber):
    """Requests from the second subscription."""

    id = "S06"
    rule = "2.5"
    check = "required_spec205_blackbox_must_call_subscription_cancel_if_it_already_has_an_subscription_and_receives_another_on_subscribe_signal"
    jvm = "required_spec205_blackbox"

    def second_subscription(self, subscription: Subscription) -> None:
        subscription.request(1)
        super().second_subscription(subscription)


class CancelsActiveOnSecondSubscribe(GallerySubscriber):
    """Cancels the active subscription on a second on_subscribe."""

    id = "S07"
    rule = "2.5"
    check = "extra_spec205_keeps_the_active_subscription"
    jvm = "NONE"

    def second_subscription(self, subscription: Subscription) -> None:
        self.subscription.cancel()  # type: ignore[union-attr]
        super().second_subscription(subscription)


class NeverCancels(GallerySubscriber):
    """Told it is no longer needed, it does not cancel."""

    id = "S15"
    rule = "2.6"
    check = "extra_spec206_must_cancel_when_no_longer_needed"
    jvm = "NONE"

    def stop(self) -> None:
        pass  # it just stops listening


# ------------------------------------------------- 2.7-2.10: calls and readiness


class RequestsFromTwoThreads(GallerySubscriber):
    """Requests from two threads at once."""

    id = "S13"
    rule = "2.7"
    check = "extra_spec207_subscription_calls_never_overlap"
    jvm = "NONE"

    def handle(self, item: object) -> None:
        if self.probe is not None:
            self.probe.register_on_next(item)
        subscription = self.subscription
        assert subscription is not None
        other = threading.Thread(target=lambda: subscription.request(1), daemon=True)
        other.start()
        subscription.request(1)  # from two threads at once: not serial
        other.join(5)


class RaisesAfterOwnCancel(GallerySubscriber):
    """Raises on on_next after its own cancel."""

    id = "S10"
    rule = "2.8"
    check = "required_spec208_must_be_prepared_to_receive_on_next_signals_after_having_called_subscription_cancel"
    jvm = "required_spec208"

    def on_next(self, item: object) -> None:
        if item is not None and self.cancelled:
            raise RuntimeError("but I thought it's cancelled!")
        super().on_next(item)


class NotReadyForComplete(GallerySubscriber):
    """Not ready for on_complete without a request."""

    id = "S11"
    rule = "2.9"
    check = "required_spec209_must_be_prepared_to_receive_an_on_complete_signal_without_preceding_request_call"
    jvm = "required_spec209"

    def on_complete(self) -> None:
        if not self.requested:
            raise RuntimeError("not ready for on_complete before a request")
        super().on_complete()


class NotReadyForError(GallerySubscriber):
    """Not ready for on_error without a request."""

    id = "S12"
    rule = "2.10"
    check = "required_spec210_must_be_prepared_to_receive_an_on_error_signal_without_preceding_request_call"
    jvm = "required_spec210"

    def on_error(self, error: BaseException) -> None:
        if error is not None and not self.requested:
            raise RuntimeError("not ready for on_error before a request")
        super().on_error(error)


# ------------------------------------------------------------- 2.13: None, raising


class AcceptsNone(GallerySubscriber):
    """Accepts None arguments."""

    id = "S08"
    rule = "2.13"
    check = "required_spec213_on_next_must_throw_npe_when_parameters_are_null"
    jvm = "required_spec213 x3"

    def refuse_none(self, signal: str) -> None:
        pass


class FailsOnThirdElement(GallerySubscriber):
    """on_next raises on an ordinary element."""

    id = "S09"
    rule = "2.13"
    check = "extra_spec213_blackbox_signal_methods_return_normally"
    jvm = "NONE"

    def handle(self, item: object) -> None:
        if self.received == 3:
            raise RuntimeError("fails on an ordinary element")
        super().handle(item)


class EmitsNone(GalleryPublisher):
    """Emits a None element."""

    id = "P44"
    rule = "2.13"
    check = "extra_spec213_elements_are_never_none"
    jvm = "misdiagnosed (null reads as end-of-stream)"

    class Subscription(GalleryPublisher.Subscription):
        def element(self, index: int) -> object:
            return None if index == 2 else index
