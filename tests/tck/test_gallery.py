"""The kill table, generated from the gallery's bug classes: each broken class fails the
kit check it names, on its rule; each control passes every check its bugs name; the legal
variants fail no required check; docs/conformance.md shows ``render_kill_table()``."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.tck import (
    CheckResult,
    Report,
    all_check_names,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck.gallery import (
    BUGS,
    UNREPRODUCIBLE,
    AsyncSubscriber,
    Specimen,
    control_of,
    render_kill_table,
    run,
    suite_of,
    summary,
)

BROKEN = [b for b in BUGS if not b.legal]
LEGAL = [b for b in BUGS if b.legal]
TIGHT: dict[str, Any] = {"check_timeout": 5.0, "check_cap": 5.0, "timeout": 1.0}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def _catches(bug: type[Specimen], result: CheckResult) -> bool:
    """A failure of the bug's check is on the bug's rule: the check's own, or the one its
    failure cites (a 3.5 check that sees two signals overlap cites 1.3)."""
    return result.failed and bug.rule in (result.rule, result.violated)


def _groups() -> dict[tuple[Any, ...], set[str]]:
    """The checks the broken classes name, by the control and mode they run with."""
    groups: dict[tuple[Any, ...], set[str]] = {}
    for bug in BROKEN:
        key = (control_of(bug), suite_of(bug), bug.synchronous, bug.uses_executor)
        groups.setdefault(key, set()).add(str(bug.check))
    return groups


GROUPS = sorted(_groups().items(), key=lambda kv: repr(kv[0]))


@pytest.mark.parametrize(
    ("key", "checks"),
    GROUPS,
    ids=[
        f"{k[0].__name__}-{k[1]}-{'sync' if k[2] else 'timed'}{'-executor' if k[3] else ''}"
        for k, _ in GROUPS
    ],
)
def test_each_control_passes_every_check_its_bugs_name(
    key: tuple[Any, ...], checks: set[str]
) -> None:
    """Correct subjects run before the bugs: a broken emitter's thread may run on after its
    check (P51 stops only when the kit aborts it, 500,000 elements after cancel()), and
    absence is judged by every thread's CPU time. A generated check tries its boundary
    cases and 1 drawn one here (25 drawn in test_kit_on_own_implementations)."""
    control, suite, synchronous, executor = key
    report = run(
        control,
        suite=suite,
        executor=executor,
        synchronous=synchronous,
        examples=1,
        only=lambda c: c.name in checks,
    )
    assert {r.name for r in report.results} == checks
    assert not report.failures(), report.table()


@pytest.mark.parametrize("bug", LEGAL, ids=lambda b: b.id)
def test_legal_variants_fail_no_required_check(bug: type[Specimen]) -> None:
    report = run(bug)  # default deadlines: a correct subject must not fail on a busy machine
    assert report.ok, report.table()
    _every_failure_names_its_rule(report)


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


@pytest.mark.parametrize("bug", BROKEN, ids=lambda b: b.id)
def test_each_bug_fails_the_check_it_names(bug: type[Specimen]) -> None:
    report = run(bug, only=lambda c: c.name == bug.check, **TIGHT)
    named = [r for r in report.results if r.name == bug.check]
    assert named, f"{bug.id}: the kit ran no check named {bug.check}"
    assert all(_catches(bug, r) for r in named), (
        f"{bug.id} ({summary(bug)}) was not caught on rule {bug.rule}: {report.table()}"
    )
    _every_failure_names_its_rule(report)


def test_the_gallery_covers_every_bug_class_of_the_catalogue() -> None:
    """Same ids as the catalogue (P01-P53, S01-S19, X01-X06), each once; every broken
    class names an existing check and a rule, every legal one neither."""
    ids = [b.id for b in BUGS] + [u.id for u in UNREPRODUCIBLE]
    expected = (
        {f"P{i:02d}" for i in range(1, 54)}
        | {f"S{i:02d}" for i in range(1, 20)}
        | {f"X{i:02d}" for i in range(1, 7)}
    )
    assert sorted(ids) == sorted(expected)
    names = set(all_check_names())
    for bug in BUGS:
        assert summary(bug), f"{bug.__name__}: the docstring's first line is its summary"
        assert bug.jvm, f"{bug.__name__}: say how the JVM TCK fares"
        if bug.legal:
            assert (bug.rule, bug.check) == ("-", None)
        else:
            assert bug.check in names, f"{bug.id}: no kit check {bug.check}"
            assert re.fullmatch(r"\d\.\d+", str(bug.rule)), bug.rule


def test_the_docs_kill_table_is_rendered_from_the_classes() -> None:
    """docs/conformance.md holds ``render_kill_table()`` verbatim (regenerate it with
    ``python tools/gen_kill_table.py``)."""
    assert render_kill_table() in DOCS.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RS_SLOW") != "1", reason="whole suites: set RS_SLOW=1")
@pytest.mark.timeout(900)
@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.id)
def test_whole_suites_every_failure_names_its_rule(bug: type[Specimen]) -> None:
    """Every class through its whole suite: every failure, whatever ended it (a violation,
    a deadline, an abort, a Hypothesis group), names a rule; a broken class is caught by
    its check, a legal one passes. ``RS_KILL_TABLE=FILE`` appends the row."""
    report = run(bug) if bug.legal else run(bug, **TIGHT)
    _every_failure_names_its_rule(report)
    caught = [r.name for r in report.results if not bug.legal and _catches(bug, r)]
    table = os.environ.get("RS_KILL_TABLE")
    if table:
        verdict = ("passes (legal)" if report.ok else "FAILS") if bug.legal else "caught"
        names = ", ".join(f"`{name}`" for name in caught)
        with open(table, "a", encoding="utf-8") as out:
            out.write(
                f"| {bug.id} | {bug.rule} | {summary(bug)} | {bug.jvm} | "
                f"{verdict if bug.legal or caught else 'MISSED'} | {names} |"
                f" {report.seconds:.0f}s\n"
            )
    if bug.legal:
        assert report.ok, report.table()
    else:
        assert bug.check in caught, report.table()


def _every_failure_names_its_rule(report: Report) -> None:
    unnamed = [f"{r.name}: {r.message}" for r in report.failures() if not r.violated]
    assert not unnamed, "failures without a violated rule:\n" + "\n".join(unnamed)
