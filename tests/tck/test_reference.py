"""The kit on Python ports of the reactive-streams-jvm 1.0.4 examples: every JVM-named
check gives the JVM TCK's verdict, and every extra check that does not pass is in the
port's table (reference/verdicts.py) with the rule text it proves."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from reactive_streams.tck import (
    Report,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)

from .reference import async_iterable_publisher as ai
from .reference import async_subscriber as asub
from .reference import range_publisher as rp
from .reference import sync_subscriber as ss
from .reference import triggered_subscriber as ts
from .reference import verdicts as v

_JVM_OF = {
    "passed": "pass",
    "failed": "fail",
    "failed-optional": "skip",
    "skipped": "skip",
    "untested": "untested",
}


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    """The JVM example tests' executor: a fixed pool of 4 threads."""
    executor = ThreadPoolExecutor(4, thread_name_prefix="jvm-example")
    logging.disable(logging.CRITICAL)  # the ports log subscriber faults, as the JVM ones print
    yield executor
    logging.disable(logging.NOTSET)
    executor.shutdown(wait=False, cancel_futures=True)


SUBJECTS: dict[str, tuple[Callable[[Any], Report], v.Table]] = {
    "RangePublisher": (lambda _e: run_publisher_checks(rp.create, synchronous=True), v.RANGE),
    "NumberIterablePublisher": (
        lambda e: run_publisher_checks(
            ai.number_factory(e),
            create_failed_publisher=lambda: ai.failed(e),
            max_elements=2**31 - 1,
        ),
        v.ITERABLE,
    ),
    "InfiniteIncrementNumberPublisher": (
        lambda e: run_publisher_checks(
            ai.infinite_factory(e),
            create_failed_publisher=lambda: ai.failed(e),
            cannot_complete=True,
        ),
        v.INFINITE,
    ),
    "SyncSubscriber-blackbox": (
        lambda _e: run_subscriber_blackbox_checks(ss.Accumulating),
        v.SYNC_SUBSCRIBER_BLACKBOX,
    ),
    "SyncSubscriber-whitebox": (
        lambda _e: run_subscriber_whitebox_checks(ss.Whitebox),
        v.SYNC_SUBSCRIBER_WHITEBOX,
    ),
    "SyncTriggeredDemandSubscriber-blackbox": (
        lambda _e: run_subscriber_blackbox_checks(ts.Summing, trigger_request=ts.trigger),
        v.TRIGGERED_SUBSCRIBER_BLACKBOX,
    ),
    "SyncTriggeredDemandSubscriber-whitebox": (
        lambda _e: run_subscriber_whitebox_checks(ts.Whitebox),
        v.TRIGGERED_SUBSCRIBER_WHITEBOX,
    ),
    "AsyncSubscriber-blackbox": (
        lambda e: run_subscriber_blackbox_checks(lambda: asub.Accepting(e)),
        v.ASYNC_SUBSCRIBER_BLACKBOX,
    ),
}


def compare(report: Report, table: v.Table) -> list[str]:
    """Every disagreement between the report and the table."""
    wrong: list[str] = []
    names = {r.name for r in report.results}
    for name in [*table.jvm, *table.extras]:
        if name not in names:
            wrong.append(f"{name}: in the table but not a check of this suite")
    for r in report.results:
        if r.jvm is not None:
            default = "untested" if r.status == "untested" else "pass"
            want = table.jvm.get(r.name, default).split(":", 1)[0]
            got = _JVM_OF[r.outcome]
            if got != want:
                wrong.append(f"{r.name}: JVM verdict {want}, kit {r.outcome}: {r.message}")
        else:
            expected, why = table.extras.get(r.name, ("passed", ""))
            if r.outcome != expected:
                wrong.append(f"{r.name}: table says {expected}, kit {r.outcome}: {r.message}")
            elif r.outcome == "failed" and not why.startswith(f"rule {r.violated} "):
                wrong.append(f"{r.name}: violated {r.violated}, the table cites {why[:12]!r}")
    return wrong


#: ports run by ``make slow-checks`` only (``make test`` runs the other ports)
SLOW_PORTS = frozenset({"NumberIterablePublisher"})


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=pytest.mark.skipif(
                name in SLOW_PORTS and os.environ.get("RS_SLOW") != "1",
                reason="the longest port (19 s): make slow-checks",
            ),
        )
        for name in sorted(SUBJECTS)
    ],
)
def test_the_kit_gives_the_jvm_verdicts_on_the_reference_ports(
    name: str, pool: ThreadPoolExecutor
) -> None:
    run, table = SUBJECTS[name]
    report = run(pool)
    wrong = compare(report, table)
    assert not wrong, "\n".join(wrong)
