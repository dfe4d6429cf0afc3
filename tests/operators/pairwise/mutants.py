"""Planted bug of operators/_pairwise.py, killed by the pipeline machine's pairwise cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "pairwise-pairs-reversed",
        "pairwise emits (current, previous)",
        "value",
        (
            Patch(
                OPS + "_pairwise.py",
                "        return (previous, item)\n",
                "        return (item, previous)\n",
            ),
        ),
        PIPE,
        "pairwise",
    ),
)
