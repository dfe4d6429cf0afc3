"""Every broken implementation in the gallery fails a check of the rule it breaks; the
legal variants fail no required check. (The kill table in docs/conformance.md.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from reactive_streams.tck import Report
from reactive_streams.tck.gallery import ENTRIES, Entry

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
        {f"P{i:02d}" for i in range(1, 51)}
        | {f"S{i:02d}" for i in range(1, 20)}
        | {f"X{i:02d}" for i in range(1, 7)}
    )
    assert ids == expected
    for entry in ENTRIES:
        assert entry.legal or entry.unreproducible or entry.rule != "-"
