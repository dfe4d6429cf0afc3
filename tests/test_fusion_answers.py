"""The sources' fusion answers are the core's: ``just``, ``range`` and ``from_iterable``
answer ``__rs_sync__`` through ``scalar_source``/``items_source`` (``_core/fusion.py``),
one copy of each answer's fields, and no module outside the core builds an answer
without its constructor. Fields pinned: kind, value, hop, nulls, error, the factory's
elements (a fused chain's hop and a re-subscribe read them)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from reactive_streams import sources
from reactive_streams._core.fusion import SyncSource, items_source, scalar_source

pytestmark = pytest.mark.timeout(60)

PACKAGE = Path(__file__).resolve().parent.parent / "impl" / "reactive_streams"
CORE = "_core/fusion.py"


def _fields(sync: SyncSource | None) -> tuple[Any, ...]:
    assert sync is not None
    elements = list(sync.factory())
    assert elements == list(sync.factory())  # each call a fresh iterable: a re-subscribe
    return (type(sync).__name__, sync.kind, sync.value, sync.hop, sync.nulls, sync.error, elements)


_ANSWERS: list[tuple[Any, Any, tuple[Any, ...]]] = [
    # (source, the core helper's answer, its fields as documented)
    (
        lambda: sources.just(5),
        lambda: scalar_source(5, "just"),
        ("ScalarAnswer", "scalar", 5, "just", None, None, [5]),
    ),
    (
        lambda: sources.range(7, 8),
        lambda: scalar_source(7, "range"),
        ("ScalarAnswer", "scalar", 7, "range", None, None, [7]),
    ),
    (
        lambda: sources.range(3, 6),
        lambda: items_source(range(3, 6).__iter__, range(3, 6), "range"),
        ("SyncSource", "items", range(3, 6), "range", None, None, [3, 4, 5]),
    ),
    (
        lambda: sources.just(1, 2),
        lambda: items_source((1, 2).__iter__, (1, 2), "just"),
        ("SyncSource", "items", (1, 2), "just", None, None, [1, 2]),
    ),
]


@pytest.mark.parametrize(
    ("source", "helper", "fields"), _ANSWERS, ids=["just-one", "range-one", "range", "just-tuple"]
)
def test_a_sources_answer_is_the_core_helpers(source: Any, helper: Any, fields: Any) -> None:
    assert _fields(source().__rs_sync__()) == _fields(helper()) == fields


def test_a_from_iterable_answers_an_iterable_that_may_hold_a_none() -> None:
    answer = sources.from_iterable((1, None)).__rs_sync__()
    assert answer is not None
    assert (answer.kind, answer.hop, answer.nulls) == ("iterable", "from_iterable", "")


# ------------------------------------------------- one copy: built only in the core
def _answer_builds(text: str) -> list[str]:
    """Lines that build a fusion answer field by field (``object.__new__(SyncSource)``,
    the ``ScalarAnswer`` class) instead of calling a core helper or the constructor."""
    hits = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and node.id == "ScalarAnswer":
            hits.append(f"{node.lineno}: ScalarAnswer")
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) not in ("isinstance", "issubclass")
            and any(isinstance(arg, ast.Name) and arg.id == "SyncSource" for arg in node.args)
        ):
            hits.append(f"{node.lineno}: {ast.unparse(node)}")
    return hits


def test_no_module_outside_the_core_builds_a_fusion_answer_by_hand() -> None:
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where != CORE:
            hits += [f"{where}:{hit}" for hit in _answer_builds(path.read_text(encoding="utf-8"))]
    assert hits == [], "build answers with scalar_source/items_source (one copy)"


def test_the_answer_scan_sees_what_it_forbids() -> None:
    assert _answer_builds("sync: SyncSource = _new_scalar(SyncSource)\n")
    assert _answer_builds("sync: ScalarAnswer = _new_answer(ScalarAnswer)\n")
    assert not _answer_builds("return SyncSource(factory, hop=self._name)\n")
    assert not _answer_builds("if not isinstance(sync, SyncSource):\n    pass\n")
    assert not _answer_builds("return scalar_source(self.value, self._name)\n")
