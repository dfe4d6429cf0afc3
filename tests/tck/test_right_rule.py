"""Publisher failures name the rule broken, not a consequence of it: a cancel() that raises
inside on_next is 3.15 (the probe records its failure instead of raising it into the
implementation, which would swallow it under 2.13); a demand that wraps past 2**63 - 1
is 3.17; an emitter that ignores cancel ends the 3.17 check on 3.12, fast; and wait
messages state the counts they saw."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.tck import run_publisher_checks
from reactive_streams.tck.gallery import GalleryPublisher
from reactive_streams.tck.gallery.rules_1_publisher import ServesMoreAfterComplete
from reactive_streams.tck.gallery.rules_3_subscription import CancelIgnored, WrapsPastMax


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


class _RaisingCancel:
    """The gallery's correct publisher, except that cancel() raises (rule 3.15)."""

    def __init__(self, n: int) -> None:
        self.inner = GalleryPublisher(n)

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.inner.subscribe(_Wrap(subscriber))


class _Wrap:
    def __init__(self, target: Subscriber[Any]) -> None:
        self.target = target

    def on_subscribe(self, subscription: Any) -> None:
        outer = self

        class Raising:
            def request(self, n: int) -> None:
                subscription.request(n)

            def cancel(self) -> None:
                subscription.cancel()
                raise RuntimeError("cancel failed")

        del outer
        self.target.on_subscribe(Raising())

    def on_next(self, item: object) -> None:
        self.target.on_next(item)

    def on_error(self, error: BaseException) -> None:
        self.target.on_error(error)

    def on_complete(self) -> None:
        self.target.on_complete()


def test_a_cancel_that_raises_inside_on_next_is_reported_as_3_15() -> None:
    names = (
        "extra_spec108_signals_stop_once_cancel_is_called_from_a_signal",
        "extra_spec312_cancel_stops_emission_with_outstanding_demand",
    )
    report = run_publisher_checks(
        _RaisingCancel, synchronous=True, timeout=2.0, only=lambda c: c.name in names
    )
    assert len(report.results) == 2
    for result in report.results:
        assert result.failed, result
        assert result.violated == "3.15", result
        assert "cancel() raised" in result.message, result


class _OneThenSilent:
    """Delivers one element, then nothing (never completes)."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        sent: list[bool] = []

        class Subscription:
            def request(self, n: int) -> None:
                if not sent:
                    sent.append(True)
                    subscriber.on_next(0)

            def cancel(self) -> None:
                pass

        subscriber.on_subscribe(Subscription())


def test_a_wait_message_states_the_counts_it_saw() -> None:
    report = run_publisher_checks(
        lambda n: _OneThenSilent(),
        synchronous=True,
        timeout=0.5,
        only=lambda c: c.name.startswith("extra_spec108"),
    )
    (result,) = report.results
    assert result.violated == "3.8", result
    assert "1 of 1000000 elements arrived" in result.message, result.message


def test_a_demand_that_wraps_past_max_is_reported_as_3_17() -> None:
    report = run_publisher_checks(
        lambda n: WrapsPastMax(n),
        synchronous=True,
        timeout=0.5,
        only=lambda c: c.rule == "3.17",
    )
    failed = report.failures()
    assert failed, report.table()
    assert {r.violated for r in failed} == {"3.17"}, report.table()


@pytest.mark.timeout(60)
def test_an_ignored_cancel_ends_the_3_17_check_on_3_12_without_its_cap() -> None:
    report = run_publisher_checks(
        lambda n: CancelIgnored(n),
        synchronous=True,
        only=lambda c: c.name.startswith("required_spec317_must_not_signal_on_error"),
    )
    (result,) = report.results
    assert result.failed, result
    assert result.violated == "3.12", result
    assert "after cancel" in result.message, result.message


def test_an_emitter_that_goes_on_after_its_end_stops_the_317_check_on_1_7() -> None:
    """Gallery P25 completes, then serves more on request: with the 3.17 check's unbounded
    demand it emits for ever inside request(). The probe records 1.7 and, past the
    over-delivery limit, aborts the emission, so the check ends on 1.7 instead of running
    to its cap (600 s, beyond this test's timeout)."""
    report = run_publisher_checks(
        lambda n: ServesMoreAfterComplete(n),
        only=lambda check: check.name.startswith("required_spec317_must_support_a_cumulative"),
        synchronous=True,
    )
    [result] = [r for r in report.results if r.outcome != "skipped"]
    assert result.failed
    assert result.violated == "1.7", result.message
    assert "deadline" not in result.message
