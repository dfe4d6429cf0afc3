"""Planted bugs, one module per area: each module here defines ``MUTANTS``.

``tools/mutants.py`` is the engine: it collects every module's ``MUTANTS`` beside its own
tables, applies one at a time to a copy of ``impl/`` and runs the machine the mutant names.
A new operator family or fix adds its planted bugs as a module of this folder, so two
changes never edit the same table.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

PIPE = "stateful/test_pipeline_machine.py"
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
    """Every ``MUTANTS`` of this folder's modules, in module-name order."""
    found: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(module.MUTANTS)
    return tuple(found)
