"""Planted bug of operators/_repeat.py, killed by the pipeline machine's repeat cells."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "repeat-one-time-too-many",
        "repeat(n) resubscribes n + 1 times (n + 2 subscriptions): one more copy of the "
        "elements than asked",
        "value",
        (Patch(OPS + "_repeat.py", "        return left > 0\n", "        return left >= 0\n"),),
        PIPE,
        "repeat and not repeat_when",
    ),
)
