"""``synchronous_failed=True`` declares the failed and failing publishers synchronous:
their checks settle when the calls have returned (no quiet period), and a signal from a
thread that never called in fails the check (rule 1.3), as ``synchronous`` does for the
main factory. Without it they stay timed."""

from __future__ import annotations

import threading
from typing import Any

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow
from reactive_streams.tck import Report, run_publisher_checks

# the checks that use the failed publisher
FAILED = ("optional_spec104_must_signal_on_error", "required_spec109_may_reject")


class _Nothing:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


class _FailsOnItsOwnThread:
    """on_subscribe on the caller's thread, on_error from a thread of its own (joined
    before subscribe returns, so the signal is never late)."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(_Nothing())
        helper = threading.Thread(target=subscriber.on_error, args=(RuntimeError("failed"),))
        helper.start()
        helper.join(10)


def _run(failed: Any, **options: Any) -> Report:
    return run_publisher_checks(
        lambda n: Flow.range(0, n),
        create_failed_publisher=failed,
        synchronous=True,
        only=lambda c: c.name.startswith(FAILED),
        **options,
    )


def test_a_declared_synchronous_failed_publisher_settles_deterministically() -> None:
    report = _run(
        lambda: Flow.error(RuntimeError("failed")).map(lambda x: x), synchronous_failed=True
    )
    assert len(report.results) == 2
    for r in report.results:
        assert (r.outcome, r.evidence) == ("passed", "deterministic"), (r.name, r.message)


def test_a_foreign_thread_signal_fails_the_declaration_on_rule_1_3() -> None:
    report = _run(_FailsOnItsOwnThread, synchronous_failed=True)
    assert len(report.results) == 2
    for r in report.results:
        assert r.outcome in ("failed", "failed-optional"), r.name
        assert r.violated == "1.3", (r.name, r.message)
        assert "declared synchronous" in r.message


def test_undeclared_failed_publishers_stay_timed() -> None:
    report = _run(_FailsOnItsOwnThread)
    assert len(report.results) == 2
    for r in report.results:
        assert (r.outcome, r.evidence) == ("passed", "quiet period"), (r.name, r.message)
