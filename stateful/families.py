"""The operator families: one folder per module of ``reactive_streams/operators``,
``tests/operators/<family>/``, holding every verification fact of that family.

A family folder holds (the family's name is its module's name without the leading ``_``):

* ``cells.py``: ``CELLS: tuple[Cell, ...]``, how the pipeline machine
  (``stateful/test_pipeline_machine.py``) draws each operator and models its output;
* ``kit.py``: ``KIT: tuple[KitFactory, ...]``, the publishers the conformance kit checks
  (``tests/operators/test_tck.py``);
* ``mutants.py``: ``MUTANTS``, the planted bugs ``tools/mutants.py`` runs (``tools/planted``'s
  ``Mutant``/``Patch``);
* its contract and unit tests (``test_*.py``).

``collect_cells()`` and ``collect_kit()`` import every family's module and refuse a name
that two entries claim: a cell or factory is found by its name.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reactive_streams.api import Publisher
from reactive_streams.flow import Flow

if TYPE_CHECKING:
    from .pipeline_model import Builder, Expect, OpSpec

#: ``tests/``: its ``operators`` package holds the family folders (``operators.<family>``)
TESTS = Path(__file__).resolve().parent.parent / "tests"
FAMILIES = TESTS / "operators"

#: a cell's model: build the operator on ``flow`` (the model of whose output is ``expect``)
#: and return the new flow and the model of its output
ModelFn = Callable[["OpSpec", Flow[Any], "Expect", "Builder"], tuple[Flow[Any], "Expect"]]


@dataclass(frozen=True)
class Cell:
    """One operator as the pipeline machine draws it.

    ``name``: the operator (a ``Flow`` method, or a drawn variant of one); the machine runs
    one cell per name with that operator forced into every pipeline (``-k name``).
    ``model``: builds the operator and the model of its output (``stateful/pipeline_model``).
    ``timed``: it needs the machine's virtual clock (a "timer" ``ManualExecutor`` moved by
    the ``advance`` rule), so it is drawn only where forced, never as a random neighbour
    (the threaded pipelines draw the neighbours too).
    ``keeps_last``: its model's ``keeps_last`` (the last value is delivered at completion)
    holds at its output; any other stage after it drops that promise.
    ``interleaved``: the interleaving machine (``stateful/test_interleaved.py``) runs a
    cell for it too, real threads under the deterministic scheduler (``-k name``).
    ``family``: filled in by ``collect_cells``."""

    name: str
    model: ModelFn
    timed: bool = False
    keeps_last: bool = False
    interleaved: bool = False
    family: str = ""


def failed_map() -> Flow[Any]:
    """The kit's failed publisher by default: an error through one operator."""
    return Flow.error(RuntimeError("failed")).map(lambda x: x)


@dataclass(frozen=True)
class KitFactory:
    """One publisher the conformance kit checks.

    ``make(n)``: a publisher of exactly ``n`` elements. ``failed``: the kit's failed
    publisher (None: the kit's check of a failed publisher is skipped).
    ``timed``: it runs on the shared pool's timer (the kit judges absence by quiet
    periods): run once, not per fusion mode, and in ``make test`` only if ``sampled``
    (``make kit-operators``, ``RS_SLOW=1``, runs all).
    ``fusion``: run with fusion on and with it off (untimed factories); off: run once
    (an alias or method form of an operator run in both modes, or one on an executor).
    ``synchronous``: declared synchronous in ``make test`` (absence decided when the calls
    into the implementation returned); ``make kit-operators`` runs all undeclared.
    ``family``: filled in by ``collect_kit``."""

    name: str
    make: Callable[..., Publisher[Any]]
    failed: Callable[[], Publisher[Any]] | None = failed_map
    timed: bool = False
    sampled: bool = False
    fusion: bool = True
    synchronous: bool = True
    family: str = ""

    @classmethod
    def single(cls, name: str, op: Callable[[Flow[int]], Flow[Any]]) -> KitFactory:
        """An operator that emits one element: the kit's publisher of ``n`` elements is
        ``n`` of them in sequence (each over ``range(0, 5)``); its failed publisher is the
        operator over a failed source."""

        def make(n: int) -> Flow[Any]:
            if n == 1:
                return op(Flow.range(0, 5))
            return Flow.concat(*(op(Flow.range(0, 5)) for _ in range(n)))

        return cls(name, make, failed=lambda: op(Flow.error(RuntimeError("failed"))))

    @classmethod
    def pooled(
        cls, name: str, make: Callable[[int], Publisher[Any]], sampled: bool = False
    ) -> KitFactory:
        """A timed operator on the shared pool's timer; its failed publisher is an error
        through a delay."""
        return cls(name, make, failed=failed_delayed, timed=True, sampled=sampled)


def family_names() -> tuple[str, ...]:
    """Every family folder under ``tests/operators``, sorted."""
    return tuple(
        sorted(p.name for p in FAMILIES.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    )


def _load(family: str, module: str) -> Any:
    """``operators.<family>.<module>`` (``tests/`` on the path, as pytest and mypy name it),
    or None when the family has no such module."""
    if not (FAMILIES / family / f"{module}.py").exists():
        return None
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    return importlib.import_module(f"operators.{family}.{module}")


def _unique(kind: str, entries: list[tuple[str, str]]) -> None:
    """Fail loudly when two entries (name, family) share a name."""
    seen: dict[str, str] = {}
    for name, family in entries:
        if name in seen:
            raise ValueError(
                f"{kind} {name!r} is registered twice: by family {seen[name]!r} and by "
                f"family {family!r} (tests/operators/<family>/); names must be unique"
            )
        seen[name] = family


def _collect(module: str, attr: str, kind: str) -> list[Any]:
    """Every family's ``<module>.<attr>``, family by family, each tagged with its family."""
    found: list[Any] = []
    for family in family_names():
        loaded = _load(family, module)
        if loaded is not None:
            found.extend(replace(entry, family=family) for entry in getattr(loaded, attr))
    _unique(kind, [(entry.name, entry.family) for entry in found])
    return found


@functools.cache
def collect_cells() -> tuple[Cell, ...]:
    """Every family's ``CELLS`` (``tests/operators/<family>/cells.py``)."""
    return tuple(_collect("cells", "CELLS", "cell"))


@functools.cache
def collect_kit() -> tuple[KitFactory, ...]:
    """Every family's ``KIT`` (``tests/operators/<family>/kit.py``)."""
    return tuple(_collect("kit", "KIT", "kit factory"))


# ------------------------------------------------- sources the kit factories share


def failed_delayed() -> Flow[Any]:
    """The timed factories' failed publisher: an error through a delay."""
    return Flow.error(RuntimeError("failed")).delay(0.001)


def boom() -> Flow[Any]:
    """A fresh error per subscription: a shared exception instance keeps the traceback
    of its last raise, whose frames reach the last subscriber (rule 3.13's check)."""
    return Flow.defer(lambda: Flow.error(RuntimeError("x")))


def fails_once(n: int) -> Flow[int]:
    """``n`` elements, the first subscription failing after half of them (no element
    is repeated: the second attempt starts where the first failed)."""
    attempts: list[int] = []

    def make() -> Flow[int]:
        attempts.append(1)
        if len(attempts) == 1:
            return Flow.range(0, n // 2).concat_with(boom())
        return Flow.range(n // 2, n)

    return Flow.defer(make)


def ends_in_error(n: int, replaced: int) -> Flow[int]:
    """``n - replaced`` elements, then an error."""
    return Flow.range(0, n - replaced).concat_with(boom())
