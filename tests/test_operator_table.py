"""docs/operators.md's operator table (tools/operator_table.py): generated from the
installed reactivex and the Reactor list, each ``ours`` entry an existing operator, and
the checked-in table current."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import operator_table


def test_every_reactivex_operator_has_an_entry_and_no_entry_is_stale() -> None:
    installed = set(operator_table.reactivex_names())
    listed = set(operator_table.REACTIVEX)
    assert installed - listed == set(), "reactivex operators without an entry"
    assert listed - installed == set(), "entries for operators reactivex no longer has"


@pytest.mark.parametrize(
    ("library", "name"),
    [("reactivex", n) for n, (s, _) in operator_table.REACTIVEX.items() if s == "ours"]
    + [("Reactor", n) for n, (s, _) in operator_table.REACTOR.items() if s == "ours"],
)
def test_each_ours_entry_names_an_operator_that_exists(library: str, name: str) -> None:
    table = operator_table.REACTIVEX if library == "reactivex" else operator_table.REACTOR
    assert callable(operator_table.resolve(table[name][1]))


def test_the_checked_in_table_is_current() -> None:
    doc = operator_table.DOC.read_text(encoding="utf-8")
    assert operator_table.rewrite(doc) == doc, (
        "docs/operators.md's operator table is stale: run .venv/bin/python tools/operator_table.py"
    )


def test_the_coverage_meets_the_targets() -> None:
    rx = operator_table.counts(operator_table.REACTIVEX)
    reactor = operator_table.counts(operator_table.REACTOR)
    assert rx["ours"] + rx["workaround"] >= 110
    assert reactor["ours"] + reactor["workaround"] >= 115
