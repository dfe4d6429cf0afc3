"""The kit's own semantics: deadlines name their rule, options apply where they should,
checks clean up after themselves, slow but correct publishers pass."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.tck import (
    Check,
    CheckFailure,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck._env import CheckAborted, Config, Env
from reactive_streams.tck._runner import _failure_in, run_one
from reactive_streams.tck.gallery.rules_2_subscriber import (
    RaisesAfterOwnCancel,
    RequestsFromTwoThreads,
)
from reactive_streams.tck.gallery.rules_3_subscription import UnboundedRecursion

from . import factories as f
from .reference import async_iterable_publisher as ai


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


class _Silent:
    """on_subscribe, then nothing ever (a request is accepted and never served)."""

    def __init__(self) -> None:
        self.cancels = 0

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(self)

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        self.cancels += 1


def test_a_deadline_failure_says_so_and_names_a_rule() -> None:
    report = run_publisher_checks(
        lambda n: _Silent(), timeout=0.3, only=lambda c: c.name.startswith("required_spec102")
    )
    (result,) = report.results
    assert result.outcome == "failed"
    assert "deadline" in result.message
    assert result.violated == "3.8"


def test_exception_groups_yield_the_rule_of_the_failure_inside() -> None:
    group = ExceptionGroup("two", [ValueError("x"), CheckFailure("rule 1.1: over", "1.1")])
    found = _failure_in(group)
    assert found is not None
    assert found.rule == "1.1"


def test_every_check_cancels_what_it_left_open() -> None:
    made: list[_Silent] = []

    def factory(n: int) -> _Silent:
        made.append(_Silent())
        return made[-1]

    run_publisher_checks(
        factory,
        timeout=0.2,
        only=lambda c: c.name.startswith("required_spec109_must_issue"),
    )
    assert made
    assert all(p.cancels >= 1 for p in made)


def test_recursion_depth_is_on_next_depth_and_configurable() -> None:
    def only(c: Check) -> bool:
        return c.name.startswith("required_spec303_must")

    naive = run_publisher_checks(lambda n: UnboundedRecursion(n), synchronous=True, only=only)
    assert naive.results[0].outcome == "failed"
    assert naive.results[0].violated == "3.3"
    lenient = run_publisher_checks(
        lambda n: UnboundedRecursion(n), synchronous=True, only=only, bounded_depth=100
    )
    assert lenient.results[0].outcome == "passed", lenient.table()


def test_synchronous_applies_to_the_main_factory_only() -> None:
    with ThreadPoolExecutor(2) as pool:
        report = run_publisher_checks(
            f.range_publisher,
            create_failed_publisher=lambda: ai.failed(pool),  # signals on pool threads
            synchronous=True,
            only=lambda c: "failed" in c.needs,
        )
    assert len(report.results) == 2
    assert all(r.outcome == "passed" for r in report.results), report.table()


def test_blackbox_2_7_catches_requests_from_two_threads_at_once() -> None:
    report = run_subscriber_blackbox_checks(
        lambda: RequestsFromTwoThreads(),
        synchronous=True,
        only=lambda c: c.name.startswith("extra_spec207_blackbox"),
    )
    (result,) = report.results
    assert result.outcome == "failed", report.table()
    assert result.violated == "2.7"


class _Slow:
    """A correct asynchronous publisher that pauses longer than the quiet period before
    every third element (a loaded machine, or slow I/O)."""

    def __init__(self, n: int, pause: float) -> None:
        self.n, self.pause = n, pause

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        _SlowSubscription(self, subscriber).start()


class _SlowSubscription:
    def __init__(self, pub: _Slow, subscriber: Subscriber[int]) -> None:
        self.pub, self.subscriber = pub, subscriber
        self.cond = threading.Condition()
        self.demand = 0
        self.cancelled = False
        self.error: BaseException | None = None

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def request(self, n: int) -> None:
        with self.cond:
            if n <= 0:
                self.error = self.error or ValueError(f"rule 3.9: request({n})")
            else:
                self.demand = min(self.demand + n, 2**63 - 1)
            self.cond.notify()

    def cancel(self) -> None:
        with self.cond:
            self.cancelled = True
            self.cond.notify()

    def _run(self) -> None:
        self.subscriber.on_subscribe(self)
        for i in range(self.pub.n):
            with self.cond:
                self.cond.wait_for(lambda: self.demand or self.cancelled or self.error, 30)
                if self.cancelled:
                    return
                if self.error is not None:
                    self.cancelled = True
                    break
                self.demand -= 1
            if i % 3 == 2:
                time.sleep(self.pub.pause)
            self.subscriber.on_next(i)
        with self.cond:
            if self.error is not None:
                self.subscriber.on_error(self.error)
                return
        if not self.cancelled:
            self.subscriber.on_complete()


@pytest.mark.timeout(300)
def test_a_slow_but_correct_publisher_passes_the_counting_checks() -> None:
    quiet = 0.05
    report = run_publisher_checks(
        lambda n: _Slow(n, pause=3 * quiet),
        quiet=quiet,
        examples=4,
        max_elements=12,
        only=lambda c: "spec101" in c.name or "spec102" in c.name,
    )
    assert report.results
    bad = [f"{r.name}: {r.message}" for r in report.failures()]
    assert not bad, "\n".join(bad)


def _run_body(body: Any, status: Any = "required") -> Any:
    check = Check("extra_spec999_probe", "publisher", "9.9", status, None, body)
    return run_one(check, None, Config(check_timeout=2.0, check_cap=4.0), "synchronous")


def test_every_way_a_check_can_fail_names_a_rule() -> None:
    """Aborted without a recorded violation, aborted after one, a Hypothesis-style group,
    a deadline, an unexpected exception: each fails (never passes) and names a rule."""

    def aborted(env: Env, _: Any) -> None:
        raise CheckAborted

    def aborted_after_a_violation(env: Env, _: Any) -> None:
        env.flop("1.8", "rule 1.8: still signalling")
        raise CheckAborted

    def group(env: Env, _: Any) -> None:
        raise ExceptionGroup("examples", [CheckFailure("rule 1.1: over", "1.1")])

    def stuck(env: Env, _: Any) -> None:
        threading.Event().wait(30)

    def unexpected(env: Env, _: Any) -> None:
        raise KeyError("bug")

    expected = {aborted: "9.9", aborted_after_a_violation: "1.8", group: "1.1"}
    expected |= {stuck: "9.9", unexpected: "9.9"}
    for body, rule in expected.items():
        for status in ("required", "optional"):
            result = _run_body(body, status)
            assert result.failed, (body.__name__, result)
            assert result.violated == rule, (body.__name__, result)
    assert "deadline" in _run_body(stuck).message


def test_the_earliest_recorded_violation_wins_over_a_later_raised_failure() -> None:
    """A probe records 3.15 (cancel raised), then the check body fails on 3.6: the
    report names 3.15, with the recorded message."""

    def recorded_then_raised(env: Env, _: Any) -> None:
        env.flop("3.15", "rule 3.15: cancel() raised")
        raise env.fail("rule 3.6: elements after cancel")

    def raised_alone(env: Env, _: Any) -> None:
        raise env.fail("rule 3.6: elements after cancel")

    result = _run_body(recorded_then_raised)
    assert (result.violated, result.message) == ("3.15", "rule 3.15: cancel() raised")
    assert _run_body(raised_alone).violated == "3.6"


def test_a_subscriber_raising_on_next_after_its_cancel_violates_2_8() -> None:
    report = run_subscriber_whitebox_checks(
        lambda probe: RaisesAfterOwnCancel(probe),
        only=lambda c: c.name.startswith("required_spec208"),
    )
    (result,) = report.results
    assert result.failed
    assert result.violated == "2.8", result
    assert "rule 2.8: on_next raised" in result.message
