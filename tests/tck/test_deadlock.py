"""A deadlock is found within seconds and reported once: the check's thread blocked inside
the subject, every thread of the process blocked, nothing signalled for a few seconds
(not the check's 60 s deadline); later checks that block at the same place are skipped,
naming the check that reported it."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.tck import run_publisher_checks
from reactive_streams.tck.gallery.rules_3_subscription import NotReentrant


class _StuckInSubscribe:
    """subscribe() waits for an event nobody sets (until the test ends)."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.release.wait()


@pytest.mark.timeout(120)
def test_one_deadlock_is_one_failure_found_in_seconds() -> None:
    release = threading.Event()
    started = time.monotonic()
    try:
        report = run_publisher_checks(
            lambda n: _StuckInSubscribe(release),
            only=lambda c: c.name.startswith("required_spec1"),
            check_timeout=60.0,
        )
    finally:
        release.set()
    seconds = time.monotonic() - started
    failed = [r for r in report.results if r.failed]
    assert len(failed) == 1, report.table()
    first = failed[0]
    assert first.message.startswith("deadlock: "), first.message
    assert "in subscribe" in first.message, first.message
    skipped = [r for r in report.results if "not judged" in r.message]
    assert len(skipped) >= 5, report.table()
    assert all(first.name in r.message for r in skipped)
    assert seconds < 45, f"{seconds:.1f}s: the deadlock waited for the check's deadline"


@pytest.mark.timeout(60)
def test_a_lock_taken_twice_fails_on_the_check_s_rule_in_seconds() -> None:
    started = time.monotonic()
    report = run_publisher_checks(
        lambda n: NotReentrant(n),  # request() from on_next re-takes its lock
        synchronous=True,
        check_timeout=60.0,
        only=lambda c: c.name.startswith("required_spec302"),
    )
    (result,) = report.results
    assert (result.outcome, result.violated) == ("failed", "3.2"), result.message
    assert result.message.startswith("deadlock: "), result.message
    assert time.monotonic() - started < 30
