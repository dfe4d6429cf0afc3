"""The sources' fusion answers are the core's: ``just``, ``range`` and ``from_iterable``
answer ``__rs_sync__`` through ``scalar_source``/``items_source`` (``_core/fusion.py``),
one copy of each answer's fields, and no module outside the core builds an answer
without its constructor. Fields pinned: kind, value, hop, nulls, error, the factory's
elements (a fused chain's hop and a re-subscribe read them)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
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
        ("ItemsAnswer", "items", range(3, 6), "range", None, None, [3, 4, 5]),
    ),
    (
        lambda: sources.just(1, 2),
        lambda: items_source((1, 2).__iter__, (1, 2), "just"),
        ("ItemsAnswer", "items", (1, 2), "just", None, None, [1, 2]),
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
        if isinstance(node, ast.Name) and node.id in ("ScalarAnswer", "ItemsAnswer"):
            hits.append(f"{node.lineno}: {node.id}")
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
    assert _answer_builds("sync = _new_answer(ItemsAnswer)\n")
    assert not _answer_builds("return SyncSource(factory, hop=self._name)\n")
    assert not _answer_builds("if not isinstance(sync, SyncSource):\n    pass\n")
    assert not _answer_builds("return scalar_source(self.value, self._name)\n")


# ------------------------------------------------ a stranger's answer, checked once
class _NoLen:
    """An "items" value without ``len()``."""

    def __init__(self, items: list[int]) -> None:
        self._items = items

    def __iter__(self) -> Any:
        return iter(self._items)


class _LenRaises(_NoLen):
    def __len__(self) -> int:
        raise RuntimeError("len raised")


class _LenLies(_NoLen):
    def __len__(self) -> int:
        return 1  # it holds more


class _Stranger:
    """A third-party publisher: subscribed, it emits ``elements`` (on demand, serially);
    asked ``__rs_sync__``, it answers ``answer()`` (which may raise)."""

    def __init__(self, elements: list[Any], answer: Callable[[], object]) -> None:
        self.elements = elements
        self._answer = answer

    def subscribe(self, subscriber: Any) -> None:
        sources.from_iterable(self.elements).subscribe(subscriber)

    def __rs_sync__(self) -> object:
        return self._answer()


def _same(answer: object) -> object:
    return answer


def _raise() -> object:
    raise RuntimeError("__rs_sync__ raised")


_ELEMENTS = [1, 2, 3, 4, 5]


def _factory() -> Any:
    return iter(_ELEMENTS)


# (id, answer maker, the elements then the terminal: None = completes, else an error type)
_STRANGERS: list[tuple[str, Callable[[], object], type[BaseException] | None]] = [
    ("items-without-len", lambda: SyncSource(_factory, "items", _NoLen(_ELEMENTS)), None),
    ("items-len-raises", lambda: SyncSource(_factory, "items", _LenRaises(_ELEMENTS)), None),
    ("items-len-lies", lambda: SyncSource(_factory, "items", _LenLies(_ELEMENTS)), None),
    ("items-nulls-claim", lambda: SyncSource(_factory, "items", _ELEMENTS, nulls=None), None),
    ("scalar-None", lambda: SyncSource(_factory, "scalar", None), None),
    ("empty-claim", lambda: SyncSource(_factory, "empty"), None),
    ("error-claim-no-error", lambda: SyncSource(_factory, "error"), None),
    ("answer-raises", _raise, RuntimeError),
    ("not-a-SyncSource", lambda: [1, 2], TypeError),
    ("factory-not-callable", lambda: SyncSource(_ELEMENTS, "iterable"), TypeError),  # type: ignore[arg-type]
    ("unknown-kind", lambda: SyncSource(_factory, "bag"), TypeError),
]


def _joining(name: str, stranger: _Stranger) -> Any:
    from reactive_streams.flow import Flow

    return {
        "flat_map": lambda: Flow.range(0, 1).flat_map(lambda _: stranger),  # a pulled batch
        "flat_map-pushed": lambda: Flow(_Pushed()).flat_map(lambda _: stranger),  # on_next
        "concat_map": lambda: Flow.range(0, 1).concat_map(lambda _: stranger),
        "merge": lambda: Flow.merge(stranger, Flow.empty()),
        "observe_on": lambda: Flow(stranger).observe_on(_inline()),
    }[name]()


class _Pushed:
    """One element, pushed by a plain (unfused) publisher."""

    def subscribe(self, subscriber: Any) -> None:
        sources.from_iterable([0]).subscribe(subscriber)


def _inline() -> Any:
    from reactive_streams.executors import ImmediateExecutor

    return ImmediateExecutor()


@pytest.mark.parametrize(
    "operator", ["flat_map", "flat_map-pushed", "concat_map", "merge", "observe_on"]
)
@pytest.mark.parametrize(
    ("answer", "error"), [(a, e) for _, a, e in _STRANGERS], ids=[i for i, _, _ in _STRANGERS]
)
def test_a_strangers_answer_never_escapes_subscribe(
    operator: str, answer: Callable[[], object], error: type[BaseException] | None
) -> None:
    """Rule 1.9: ``subscribe`` returns; rule 1.1: a lying length never outruns demand;
    the stranger's elements arrive (pulled through its factory, or subscribed), or its
    faulty answer is one ``on_error`` naming the field (``observe_on``: it subscribes)."""
    from reactive_streams.testing import TestSubscriber

    subscriber: TestSubscriber[Any] = TestSubscriber()
    _joining(operator, _Stranger(list(_ELEMENTS), answer)).subscribe(subscriber)
    subscriber.await_subscribed(5.0)
    subscriber.request(2)
    subscriber.assert_no_violations()  # rule 1.1: at most 2 so far
    assert len(subscriber.values) <= 2
    subscriber.request(10)
    subscriber.await_terminal(5.0)
    if error is None or operator == "observe_on":  # subscribe_fused falls back to subscribe
        subscriber.assert_values(*_ELEMENTS).assert_complete()
    else:
        subscriber.assert_error(error)


def test_a_strangers_malformed_field_is_named() -> None:
    from reactive_streams.operators import sync_of

    stranger = _Stranger([], lambda: SyncSource(_factory, "items", hop=7))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hop must be a str, got 7"):
        sync_of(stranger)
    stranger = _Stranger([], lambda: SyncSource(_factory, "bag"))
    with pytest.raises(TypeError, match="kind must be one of"):
        sync_of(stranger)


def test_a_strangers_promise_is_pulled_and_a_none_is_rule_2_13() -> None:
    """An "items" answer vouching no None, whose factory yields one: pulled and checked."""
    from reactive_streams.flow import Flow
    from reactive_streams.testing import TestSubscriber

    def factory() -> Any:
        return iter([1, None])

    stranger = _Stranger([1], lambda: SyncSource(factory, "items", (1, None), nulls=None))
    subscriber: TestSubscriber[Any] = TestSubscriber(10)
    Flow.range(0, 1).flat_map(lambda _: stranger).subscribe(subscriber)
    subscriber.await_terminal(5.0).assert_error(TypeError, "2.13")
    assert subscriber.values == [1]


def test_the_cores_answers_are_taken_at_their_word() -> None:
    """The core's own answers pass unchanged (flat_map's hot path: no copy, no check);
    a stranger's well-formed "iterable" answer too; its promise does not."""
    from reactive_streams.operators import sync_of

    answers: list[object] = [
        scalar_source(5, "just"),
        items_source((1, 2).__iter__, (1, 2), "just"),
        SyncSource(_factory, hop="stranger"),
        SyncSource(_factory, "items", (1, 2), hop="stranger"),  # an exact tuple, no None
        SyncSource(_factory, "scalar", 1, hop="stranger"),
    ]
    for answer in answers:
        assert sync_of(_Stranger([], functools.partial(_same, answer))) is answer
    promise = SyncSource(_factory, "items", _LenLies(_ELEMENTS), hop="stranger")
    pulled = sync_of(_Stranger([], lambda: promise))
    assert pulled is not None
    assert pulled is not promise
    assert (pulled.kind, pulled.hop, pulled.nulls, list(pulled.factory())) == (
        "iterable",
        "stranger",
        "",
        _ELEMENTS,
    )
