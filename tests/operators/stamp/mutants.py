"""Planted bug of operators/_stamp.py, killed by the pipeline machine's timestamp cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "timestamp-pair-reversed",
        "timestamp emits (element, time) instead of (time, element)",
        "value",
        (
            Patch(
                OPS + "_stamp.py",
                "        return (self._clock.now(), item)\n",
                "        return (item, self._clock.now())  # type: ignore[return-value]\n",
            ),
        ),
        PIPE,
        "timestamp",
    ),
)
