"""The backpressure family's planted bugs (``operators/_backpressure.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "on_backpressure-ignores-demand",
        "on_backpressure_drop/latest deliver whether or not downstream asked",
        "1.1",
        (
            Patch(
                OPS + "_backpressure.py",
                "            if self._requested == 0:\n                return False\n",
                "            if False:\n                return False\n",
            ),
        ),
        PIPE,
        "on_backpressure_drop or on_backpressure_latest",
    ),
)
