"""The pool-threaded subjects of ``reactive_streams.tck.gallery.pooled``, idle: each broken
one fails the check its class names on its rule, each correct one passes it
(``make kit-load`` repeats this under CPU burners)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from reactive_streams.tck import Report, run_processor_checks, run_publisher_checks
from reactive_streams.tck.gallery.pooled import (
    DoubleCompletingPublisher,
    LazyCompletingPublisher,
    PooledPublisher,
    PrefetchingProcessor,
)

END_RACE = DoubleCompletingPublisher.check
LAZY = LazyCompletingPublisher.check


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def _one(report: Report, name: str) -> tuple[str, str | None, str]:
    (result,) = [r for r in report.results if r.name == name]
    return result.outcome, result.violated, result.message


@pytest.mark.timeout(120)
def test_a_processor_may_pass_an_error_on_ahead_of_the_elements_it_holds() -> None:
    """Rule 4.2 asks for it; rules 1.4 and 1.5 ask no buffered element before on_error."""
    report = run_processor_checks(
        PrefetchingProcessor,
        only=lambda c: "spec104" in c.name or "spec402" in c.name,
        max_subscribers=1,
        timeout=3.0,
        check_timeout=10.0,
    )
    assert report.ok, report.table()
    outcome, _, message = _one(report, PrefetchingProcessor.check)
    assert outcome == "passed", message


@pytest.mark.timeout(120)
def test_on_complete_twice_as_several_threads_request_at_the_end_is_caught_on_1_7() -> None:
    report = run_publisher_checks(
        DoubleCompletingPublisher,
        only=lambda c: c.name == END_RACE,
        timeout=3.0,
        check_timeout=10.0,
    )
    outcome, violated, message = _one(report, END_RACE)
    assert (outcome, violated) == ("failed", "1.7"), message


@pytest.mark.timeout(120)
def test_the_correct_pooled_publisher_completes_once_and_without_extra_demand() -> None:
    report = run_publisher_checks(
        PooledPublisher, only=lambda c: c.name in (END_RACE, LAZY), timeout=3.0, check_timeout=10.0
    )
    assert [r.outcome for r in report.results] == ["passed", "passed"], report.table()


@pytest.mark.timeout(120)
def test_a_completion_held_for_demand_it_does_not_need_fails_the_optional_check_only() -> None:
    report = run_publisher_checks(
        LazyCompletingPublisher,
        only=lambda c: c.name == LAZY or c.name.startswith("required_spec105"),
        timeout=3.0,
        check_timeout=10.0,
    )
    outcome, violated, message = _one(report, LAZY)
    assert (outcome, violated) == ("failed-optional", "1.5"), message
    assert "one more request(1)" in message
    assert report.ok, report.table()  # every JVM completion check requests once more: passes
