"""Planted bug of operators/_partition.py, killed by the pipeline machine's cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "partition-second-half-repeats-the-first",
        "partition's second half keeps what the predicate keeps, as the first",
        "value",
        (
            Patch(
                OPS + "_partition.py",
                "        return not self._predicate(item)\n",
                "        return bool(self._predicate(item))\n",
            ),
        ),
        PIPE,
        "partition",
    ),
)
