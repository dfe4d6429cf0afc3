"""Planted bug of operators/_until.py, killed by the pipeline machine's skip_until cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "skip-until-never-closed",
        "skip_until's gate is open from the start: elements before the other fired pass",
        "value",
        (Patch(OPS + "_until.py", "        if parent._fired:\n", "        if True:\n"),),
        PIPE,
        "skip_until",
    ),
)
