"""Every broken implementation in the gallery fails a check of the rule it breaks; the
legal variants fail no required check. (The kill table in docs/conformance.md.)"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest

from reactive_streams.tck import (
    Report,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck.gallery import ENTRIES, AsyncSubscriber, Entry

REPRODUCIBLE = [e for e in ENTRIES if not e.unreproducible]


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


@pytest.mark.parametrize("entry", [e for e in REPRODUCIBLE if not e.legal], ids=lambda e: e.id)
def test_the_kit_fails_each_broken_implementation_on_its_rule(entry: Entry) -> None:
    report = entry.run(
        only=lambda c: c.rule == entry.rule or c.name in entry.cited_by,
        check_timeout=5.0,
        check_cap=5.0,
        timeout=1.0,
    )
    failed = [r for r in report.failures() if entry.caught_by(r)]
    assert failed, (
        f"{entry.id} ({entry.summary}) passed every rule {entry.rule} check: {report.table()}"
    )
    _every_failure_names_its_rule(report)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RS_SLOW") != "1", reason="whole suites: set RS_SLOW=1")
@pytest.mark.timeout(900)
@pytest.mark.parametrize("entry", REPRODUCIBLE, ids=lambda e: e.id)
def test_whole_suites_every_failure_names_its_rule(entry: Entry) -> None:
    """Every entry through its whole suite (the kill table): every failure, whatever
    ended it (a violation, a deadline, an abort, a Hypothesis group), names a rule; a
    broken entry is caught, a legal one passes. ``RS_KILL_TABLE=FILE`` appends the row."""
    tight: dict[str, Any] = {}
    if not entry.legal:
        tight = {"check_timeout": 5.0, "check_cap": 5.0, "timeout": 1.0}
    report = entry.run(**tight)
    _every_failure_names_its_rule(report)
    caught = [r.name for r in report.results if entry.caught_by(r)]
    table = os.environ.get("RS_KILL_TABLE")
    if table:
        verdict = ("passes (legal)" if report.ok else "FAILS") if entry.legal else "caught"
        names = ", ".join(f"`{name}`" for name in caught)
        with open(table, "a", encoding="utf-8") as out:
            out.write(
                f"| {entry.id} | {entry.rule} | {entry.summary} | {entry.jvm} | "
                f"{verdict if entry.legal or caught else 'MISSED'} | {names} |"
                f" {report.seconds:.0f}s\n"
            )
    if entry.legal:
        assert report.ok, report.table()
    else:
        assert caught, report.table()


def _every_failure_names_its_rule(report: Report) -> None:
    unnamed = [f"{r.name}: {r.message}" for r in report.failures() if not r.violated]
    assert not unnamed, "failures without a violated rule:\n" + "\n".join(unnamed)


@pytest.mark.parametrize("entry", [e for e in REPRODUCIBLE if e.legal], ids=lambda e: e.id)
def test_legal_variants_fail_no_required_check(entry: Entry) -> None:
    report = entry.run()  # default deadlines: a correct subject must not fail on a busy machine
    assert report.ok, report.table()
    _every_failure_names_its_rule(report)


def test_the_gallery_covers_every_bug_class_of_the_catalogue() -> None:
    ids = {e.id for e in ENTRIES}
    expected = (
        {f"P{i:02d}" for i in range(1, 54)}
        | {f"S{i:02d}" for i in range(1, 20)}
        | {f"X{i:02d}" for i in range(1, 7)}
    )
    assert ids == expected
    for entry in ENTRIES:
        assert entry.legal or entry.unreproducible or entry.rule != "-"


@pytest.mark.parametrize("executor", [False, True], ids=["own-threads", "kit-executor"])
def test_the_async_subscriber_passes_both_subscriber_suites(executor: bool) -> None:
    """The gallery's AsyncSubscriber (JVM AsyncSubscriber shape) is a correct subject."""
    if executor:

        def white(probe: Any, executor: Any) -> Any:
            return AsyncSubscriber(probe, executor=executor)

        def black(executor: Any) -> Any:
            return AsyncSubscriber(executor=executor)

        reports = [run_subscriber_whitebox_checks(white), run_subscriber_blackbox_checks(black)]
    else:
        reports = [
            run_subscriber_whitebox_checks(lambda probe: AsyncSubscriber(probe)),
            run_subscriber_blackbox_checks(lambda: AsyncSubscriber()),
        ]
    for report in reports:
        assert not report.failures(), report.table()
