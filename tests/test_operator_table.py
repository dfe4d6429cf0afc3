"""docs/operators.md's operator table (tools/operator_table.py): generated from the
installed reactivex, Reactor's list and the peers' names our operators declare in their
docstrings; every name accounted for, each declaration on an operator that exists and
naming a real peer operator, and the checked-in table current."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import operator_table


def test_every_reactivex_operator_is_accounted_for_and_no_entry_is_stale() -> None:
    installed = set(operator_table.reactivex_names())
    listed = set(operator_table.table("reactivex"))
    assert installed - listed == set(), "reactivex operators neither declared nor in a row"
    assert listed - installed == set(), "names reactivex does not have (declared or in a row)"


def test_every_reactor_operator_is_accounted_for_and_no_entry_is_stale() -> None:
    flux = set(operator_table.REACTOR_FLUX)
    assert len(flux) == len(operator_table.REACTOR_FLUX), "a Reactor name listed twice"
    listed = set(operator_table.table("Reactor"))
    assert flux - listed == set(), "Reactor operators neither declared nor in a row"
    assert listed - flux == set(), "names not in REACTOR_FLUX (declared or in a row)"


@pytest.mark.parametrize(
    ("library", "name"),
    sorted(operator_table.declarations()),
)
def test_each_declaration_names_an_operator_that_exists(library: str, name: str) -> None:
    """The table's call for a declared name resolves to the object that declared it."""
    status, here = operator_table.table(library)[name]
    assert status == "ours"
    assert callable(operator_table.resolve(here))


def test_a_declaration_supersedes_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name an operator declares wins over a row for it (the row may stay until removed):
    adding an operator never requires editing tools/operator_table.py."""
    monkeypatch.setitem(operator_table.REACTIVEX, "map", ("missing", "a superseded row"))
    assert operator_table.table("reactivex")["map"] == ("ours", "map(fn)")
    assert "reactivex map" in operator_table.superseded()
    assert "a superseded row" not in operator_table.render()


def test_a_declaration_parses_or_fails_by_its_form() -> None:
    doc = "Does x.\n\nreactivex: ``a``, ``b``. Reactor:\n``c``."
    assert operator_table.peer_names(doc) == [
        ("reactivex", "a"),
        ("reactivex", "b"),
        ("Reactor", "c"),
    ]
    with pytest.raises(ValueError, match="peers paragraph"):
        operator_table.peer_names("Does x.\n\nreactivex: map.")


def test_a_name_declared_twice_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    homes = operator_table._homes()
    twice = [h for h in homes if h[0] in ("map", "filter")]
    monkeypatch.setattr(
        operator_table,
        "_homes",
        lambda: [(call, fn, "reactivex: ``map``.") for call, fn, _ in twice],
    )
    with pytest.raises(ValueError, match="reactivex 'map' is declared by"):
        operator_table.declarations()


def test_the_checked_in_table_is_current() -> None:
    doc = operator_table.DOC.read_text(encoding="utf-8")
    assert operator_table.rewrite(doc) == doc, (
        "docs/operators.md's operator table is stale: run .venv/bin/python tools/operator_table.py"
    )


def test_the_coverage_meets_the_targets() -> None:
    rx = operator_table.counts(operator_table.table("reactivex"))
    reactor = operator_table.counts(operator_table.table("Reactor"))
    assert rx["ours"] + rx["workaround"] >= 110
    assert reactor["ours"] + reactor["workaround"] >= 115
