"""The operator families' structure (``stateful/families.py``): every module of
``reactive_streams/operators`` (and the multicast package) has its family folder
``tests/operators/<family>/`` with ``cells.py`` and ``kit.py``, and every public ``Flow``
method that is an operator is exercised by at least one pipeline-machine cell and at
least one kit factory. "Exercised" is measured, not declared: each cell and each factory
is built and run once here with every public ``Flow`` method wrapped to record its
calls (a method another one delegates to counts: its code ran)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from stateful import families
from stateful.families import Cell, collect_cells, collect_kit, family_names
from stateful.pipeline_model import COMPLETE, INNER_PROBLEMS, Expect, OpSpec, Stage

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow

OPERATORS = Path(__file__).resolve().parent.parent / "impl" / "reactive_streams" / "operators"

#: public ``Flow`` methods that are not operators, each with the reason
NOT_OPERATORS = {
    "source": "the wrapped publisher (a property)",
    "subscribe": "the terminal call every test makes",
    "from_publisher": "a source: the machine's sources and the kit's factories build on these",
    "range": "a source",
    "range_count": "a source",
    "from_iterable": "a source",
    "just": "a source",
    "empty": "a source",
    "error": "a source",
    "from_callable": "a source",
    "generate": "a source",
    "from_future": "a source (the bridges' tests)",
    "from_async_iterable": "a source (the bridges' tests)",
    "interval": "a timed source: the timed_sources family's kit factories check it",
    "timer": "a timed source: the timed_sources family's kit factories check it",
    "pipe": "composition: applies the user's functions, no stage of its own",
    "transform": "composition: pipe(fn), no stage of its own",
    "to_list": "a blocking terminal (tests/test_bridges.py)",
    "first": "a blocking terminal",
    "last": "a blocking terminal",
    "blocking_iter": "a blocking terminal (tests/test_bridges.py)",
    "to_async_iterator": "an asyncio terminal (tests/test_bridges.py)",
    "aio": "the asyncio terminals' namespace",
}

#: operators with a kit factory but no cell of their own, each with the reason
NO_CELL = {
    "share": "publish(n).ref_count() in one call; the ref_count cell draws that pipeline "
    "with the connection the machine inspects (share hides it)",
}


def _public_methods() -> dict[str, Any]:
    return {name: attr for name, attr in vars(Flow).items() if not name.startswith("_")}


def test_every_operators_module_has_a_family_folder() -> None:
    """``operators/_x.py`` -> ``tests/operators/x/`` with ``cells.py`` and ``kit.py``;
    the multicast package -> ``tests/operators/multicast/``."""
    modules = sorted(
        p.stem.removeprefix("_") for p in OPERATORS.glob("_*.py") if p.name != "__init__.py"
    )
    missing = [
        f"tests/operators/{name}/{part}"
        for name in [*modules, "multicast"]
        for part in ("__init__.py", "cells.py", "kit.py")
        if not (families.FAMILIES / name / part).exists()
    ]
    assert not missing, f"operator families without their folder's files: {missing}"
    assert set(modules) | {"multicast"} <= set(family_names())


def test_collectors_refuse_a_name_registered_twice() -> None:
    """A cell (or kit factory) is found by its name: two of one name fail loudly."""
    some = collect_cells()[0]
    clash = [(some.name, "transform"), (some.name, "limit")]
    with pytest.raises(ValueError, match="registered twice: by family 'transform' and by"):
        families._unique("cell", clash)
    families._unique("cell", [(c.name, c.family) for c in collect_cells()])
    families._unique("kit factory", [(f.name, f.family) for f in collect_kit()])


class _Recorder:
    """Wraps every public ``Flow`` method to record the names called while active."""

    def __init__(self) -> None:
        self.called: set[str] = set()

    def __enter__(self) -> _Recorder:
        self._saved = _public_methods()
        for name, attr in self._saved.items():
            if isinstance(attr, staticmethod):
                setattr(Flow, name, staticmethod(self._wrap(name, attr.__func__)))
            elif isinstance(attr, classmethod):
                setattr(Flow, name, classmethod(self._wrap(name, attr.__func__)))
            elif callable(attr):
                setattr(Flow, name, self._wrap(name, attr))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, attr in self._saved.items():
            setattr(Flow, name, attr)

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        called = self.called

        def recorded(*args: Any, **kwargs: Any) -> Any:
            called.add(name)
            return fn(*args, **kwargs)

        return recorded


class _Builder:
    """What a cell's model needs (``stateful.pipeline_model.Builder``)."""

    def __init__(self) -> None:
        self.stages: list[Stage] = []
        self.coverage_extra: set[str] = set()
        self.where: list[str] = []
        self.running = "test"
        self.executors: list[ManualExecutor] = []

    def new_executor(self, role: str) -> ManualExecutor:
        ex = ManualExecutor()
        self.executors.append(ex)
        return ex


class _Drain:
    """Requests everything; ``done`` is set at the terminal signal."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def on_subscribe(self, subscription: Any) -> None:
        subscription.request(1 << 62)

    def on_next(self, item: Any) -> None:
        pass

    def on_error(self, error: BaseException) -> None:
        self.done.set()

    def on_complete(self) -> None:
        self.done.set()


def _run_cell(cell: Cell, variant: str) -> None:
    """Build ``cell`` over ``range(0, 3)`` and run it to its end on its executors."""
    machine = _Builder()
    op = OpSpec(cell.name, k=1, variant=variant, other=2)
    expect = Expect((0, 1, 2), frozenset({COMPLETE}))
    flow, _ = cell.model(op, Flow.range(0, 3), expect, machine)
    drain = _Drain()
    flow.subscribe(drain)
    for stage in reversed(machine.stages):
        if stage.conn is not None:
            stage.conn.connect()
    for _ in range(10_000):  # bounded: a cell that never ends fails its own machine
        busy = [ex for ex in machine.executors if len(ex)]
        if busy:
            busy[0].run(0)
        elif any(ex.scheduled for ex in machine.executors):
            for ex in machine.executors:
                ex.advance_by(5.0)
        else:
            break


def _cells_exercise() -> dict[str, set[str]]:
    """Flow method -> the cells whose run called it (every variant of each cell)."""
    found: dict[str, set[str]] = {}
    try:
        for cell in collect_cells():
            for variant in "abc":
                with _Recorder() as rec:
                    _run_cell(cell, variant)
                for name in rec.called:
                    found.setdefault(name, set()).add(cell.name)
    finally:
        INNER_PROBLEMS.clear()  # the models' own checks: judged by the machine, not here
    return found


def _kit_exercises() -> dict[str, set[str]]:
    """Flow method -> the kit factories whose publishers of 1 and 3 elements called it."""
    found: dict[str, set[str]] = {}
    for factory in collect_kit():
        with _Recorder() as rec:
            for n in (1, 3):  # default_if_empty's factory is the operator only at 1
                drain = _Drain()
                factory.make(n).subscribe(drain)
                if factory.timed:  # they end on the pool's timer thread
                    drain.done.wait(5.0)
        for name in rec.called:
            found.setdefault(name, set()).add(factory.name)
    return found


def _operators() -> list[str]:
    return sorted(set(_public_methods()) - set(NOT_OPERATORS))


def test_the_exemptions_name_flow_methods() -> None:
    """The lists above name public ``Flow`` methods (a removed one must go too)."""
    stale = sorted((set(NOT_OPERATORS) | set(NO_CELL)) - set(_public_methods()))
    assert not stale, f"not public Flow methods: {stale}"


def test_every_operator_is_drawn_by_a_cell() -> None:
    """Each public ``Flow`` operator runs in at least one pipeline-machine cell."""
    found = _cells_exercise()
    missing = [name for name in _operators() if name not in found and name not in NO_CELL]
    assert not missing, (
        f"Flow operators no cell exercises: {missing} (add a Cell to its family's cells.py)"
    )


def test_every_operator_is_run_by_a_kit_factory() -> None:
    """Each public ``Flow`` operator runs in at least one kit factory."""
    found = _kit_exercises()
    missing = [name for name in _operators() if name not in found]
    assert not missing, (
        f"Flow operators no kit factory exercises: {missing} "
        "(add a KitFactory to its family's kit.py)"
    )


def test_the_recorder_sees_an_unexercised_method() -> None:
    """The measure can fail: a method nobody calls is not recorded."""
    with _Recorder() as rec:
        Flow.range(0, 2).map(lambda x: x).subscribe(_Drain())
    assert {"range", "map", "subscribe"} <= rec.called
    assert "merge_with" not in rec.called
