"""Planted bug of operators/_amb.py, killed by the pipeline machine's amb cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "amb-asks-only-the-first-source",
        "before a winner is known amb asks only its first source: behind a silent one "
        "(never) the others get no demand and the stream stalls",
        "1.1",
        (
            Patch(
                OPS + "_amb.py",
                "for contender in parent._contenders if winner is None else (winner,):",
                "for contender in parent._contenders[:1] if winner is None else (winner,):",
            ),
        ),
        PIPE,
        "amb",
    ),
)
