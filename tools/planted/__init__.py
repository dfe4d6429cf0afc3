"""Planted bugs, one module per area: each module here defines ``MUTANTS``.

``tools/mutants.py`` is the engine: it collects every module's ``MUTANTS`` beside its own
tables, applies one at a time to a copy of ``impl/`` and runs the machine the mutant names.
A fix outside the operators adds its planted bugs as a module of this folder, so two
changes never edit the same table; an operator family's planted bugs live in its family
folder, ``tests/operators/<family>/mutants.py`` (``MUTANTS``), collected here too.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

PIPE = "stateful/test_pipeline_machine.py"
#: ``tests/``: ``operators/<family>/mutants.py`` are the families' planted bugs
TESTS = Path(__file__).resolve().parent.parent.parent / "tests"
OPS = "operators/"


@dataclass(frozen=True)
class Patch:
    file: str  # relative to impl/reactive_streams
    old: str
    new: str
    count: int = 1  # how many times ``old`` must occur


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    rule: str
    patches: tuple[Patch, ...]
    machine: str = "stateful/test_publisher_machine.py"  # the test file that must kill it
    select: str = ""  # pytest -k expression (the pipeline machine's cells to run)
    examples: int = 0  # pipeline machine: examples per cell (0: the profile's 12)

    @property
    def run(self) -> tuple[str, str, int]:
        """What is run: the unmutated copy must pass exactly this run first."""
        return (self.machine, self.select, self.examples)


def collect() -> tuple[Mutant, ...]:
    """Every ``MUTANTS`` of this folder's modules, in module-name order, then every
    operator family's (``tests/operators/<family>/mutants.py``), in family order."""
    found: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(module.MUTANTS)
    return tuple(found) + collect_families()


def collect_families() -> tuple[Mutant, ...]:
    """Every operator family's ``MUTANTS`` (``operators.<family>.mutants``, ``tests/`` on
    the path, as pytest and mypy name them)."""
    found: list[Mutant] = []
    families = TESTS / "operators"
    for folder in sorted(p for p in families.iterdir() if (p / "mutants.py").exists()):
        if str(TESTS) not in sys.path:
            sys.path.insert(0, str(TESTS))
        found.extend(importlib.import_module(f"operators.{folder.name}.mutants").MUTANTS)
    return tuple(found)


def unique(mutants: tuple[Mutant, ...]) -> tuple[Mutant, ...]:
    """``mutants``, refusing two of one name (``-k`` and the kill table find them by it)."""
    names = [m.name for m in mutants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SystemExit(f"planted bugs registered twice under one name: {twice}")
    return mutants
