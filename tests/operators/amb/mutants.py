"""Planted bug of operators/_amb.py, killed by the pipeline machine's amb cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "amb-every-source-wins",
        "amb lets every source's signals through: no winner is kept",
        "value",
        (Patch(OPS + "_amb.py", "        return winner is contender\n", "        return True\n"),),
        PIPE,
        "amb",
        60,  # the duplicating variant (amb of the flow with itself) is one draw in three
    ),
)
