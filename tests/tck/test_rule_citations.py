"""Each failure cites the rule the subject broke, not a neighbour: a request() that raises
inside a signal is 3.2, for a demand of 2**63 - 1 is 3.17 (3.16 otherwise); a subscriber
unprepared for on_complete / on_error is 2.9 / 2.10 (2.13 otherwise), inside a synchronous
request() 3.10 / 3.11; a terminal signal answering a request after cancel() is 3.6, not
1.7; extra_spec308's helper threads do not report the barrier the check's thread broke;
a factory that cannot make a long stream is skipped, not blamed on 3.17."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.tck import Report, run_publisher_checks, run_subscriber_blackbox_checks
from reactive_streams.tck.gallery import GalleryPublisher

MAX = 2**63 - 1


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


class _Wrapped:
    """The gallery's correct synchronous publisher behind a subscription wrapper whose
    ``request`` may misbehave (``how``)."""

    def __init__(self, n: int, how: str) -> None:
        self.inner = GalleryPublisher(n)
        self.how = how

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.inner.subscribe(_Intercept(subscriber, self.how))


class _Intercept:
    def __init__(self, target: Subscriber[Any], how: str) -> None:
        self.target = target
        self.how = how
        self.inside = threading.local()
        self.cancelled = False

    def on_subscribe(self, subscription: Subscription) -> None:
        outer = self

        class Sub:
            def request(self, n: int) -> None:
                if outer.how == "no-request-inside-on_next" and getattr(outer.inside, "x", False):
                    raise RuntimeError("request() from within on_next is not supported")
                if outer.how == "overflow" and n >= 2**62:
                    raise OverflowError("demand too large")
                if outer.how == "error-after-cancel" and outer.cancelled and n <= 0:
                    outer.target.on_error(ValueError("rule 3.9"))  # a no-op is due (3.6)
                    return
                subscription.request(n)

            def cancel(self) -> None:
                outer.cancelled = True
                subscription.cancel()

        self.target.on_subscribe(Sub())

    def on_next(self, item: object) -> None:
        self.inside.x = True
        try:
            self.target.on_next(item)
        finally:
            self.inside.x = False

    def on_error(self, error: BaseException) -> None:
        self.target.on_error(error)

    def on_complete(self) -> None:
        self.target.on_complete()


def _verdict(report: Report, name: str) -> tuple[str, str | None, str]:
    (result,) = [r for r in report.results if r.name.startswith(name)]
    return result.outcome, result.violated, result.message


def _publisher(make: Any, name: str, **settings: Any) -> tuple[str, str | None, str]:
    report = run_publisher_checks(
        make, only=lambda c: c.name.startswith(name), synchronous=True, **settings
    )
    return _verdict(report, name)


@pytest.mark.parametrize(
    ("how", "check", "rule"),
    [
        ("no-request-inside-on_next", "required_spec302_", "3.2"),
        ("overflow", "required_spec317_must_support_a_pending_element_count_up_to", "3.17"),
        ("error-after-cancel", "extra_spec306_non_positive_request_after_cancel", "3.6"),
    ],
)
def test_a_publisher_failure_cites_the_rule_it_breaks(how: str, check: str, rule: str) -> None:
    outcome, violated, message = _publisher(lambda n: _Wrapped(n, how), check, timeout=2.0)
    assert (outcome, violated) == ("failed", rule), message


class _RaisesAtTheEnd:
    """Requests 20 on subscribe; raises from on_complete or on_error (``where``)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def on_subscribe(self, subscription: Subscription) -> None:
        subscription.request(20)

    def on_next(self, item: object) -> None:
        pass

    def on_error(self, error: BaseException) -> None:
        if self.where == "on_error":
            raise RuntimeError("not prepared for on_error")

    def on_complete(self) -> None:
        if self.where == "on_complete":
            raise RuntimeError("not prepared for on_complete")


@pytest.mark.parametrize(
    ("where", "check", "rule"),
    [
        (
            "on_complete",
            "required_spec209_blackbox_must_be_prepared_to_receive_an_on_complete_signal_with_",
            "2.9",
        ),
        (
            "on_error",
            "required_spec210_blackbox_must_be_prepared_to_receive_an_on_error_signal_with_",
            "2.10",
        ),
        ("on_complete", "extra_spec310_blackbox_works_with_a_synchronous_publisher", "3.11"),
    ],
)
def test_a_subscriber_unprepared_for_a_signal_is_cited_on_that_signal_s_rule(
    where: str, check: str, rule: str
) -> None:
    report = run_subscriber_blackbox_checks(
        lambda: _RaisesAtTheEnd(where), only=lambda c: c.name.startswith(check), timeout=2.0
    )
    outcome, violated, message = _verdict(report, check)
    assert (outcome, violated) == ("failed", rule), message


class _BlocksConcurrentRequests:
    """request() from a third thread at once blocks for ever (a lock never released)."""

    def __init__(self, n: int) -> None:
        self.inner = GalleryPublisher(n)
        self.gate = threading.Semaphore(2)

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        outer = self

        class Wrap(_Intercept):
            def on_subscribe(self, subscription: Subscription) -> None:
                class Sub:
                    def request(self, n: int) -> None:
                        if threading.current_thread().name.startswith("tck-request-"):
                            outer.gate.acquire()  # released never: the third caller blocks
                        subscription.request(n)

                    def cancel(self) -> None:
                        subscription.cancel()

                self.target.on_subscribe(Sub())

        self.inner.subscribe(Wrap(subscriber, ""))


def test_extra_spec308_reports_the_call_that_did_not_return_not_a_broken_barrier() -> None:
    report = run_publisher_checks(
        _BlocksConcurrentRequests,
        only=lambda c: c.name.startswith("extra_spec308"),
        timeout=1.0,
        check_timeout=20.0,
    )
    (result,) = report.results
    assert (result.outcome, result.violated) == ("failed", "3.4"), result.message
    assert "BrokenBarrierError" not in result.message, result.message
    assert result.evidence == "deadline", result


def test_a_factory_that_cannot_make_a_long_stream_is_skipped_not_blamed_on_3_17() -> None:
    def bounded(n: int) -> GalleryPublisher:
        if n > 100:
            raise ValueError(f"cannot make {n} elements")
        return GalleryPublisher(n)

    report = run_publisher_checks(
        bounded,
        only=lambda c: c.name.startswith("required_spec317_must_not_signal_on_error"),
        synchronous=True,
    )
    (result,) = report.results
    assert result.outcome == "skipped", result
    assert "cannot make" in result.message
    assert "max_elements" in result.message
