"""Planted bug of operators/_exhaust.py, killed by the pipeline machine's cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "exhaust-map-switches",
        "exhaust_map starts an inner for every element, cancelling the running one (as "
        "switch_map): an inner is cut short",
        "value",
        (
            Patch(
                OPS + "_exhaust.py",
                "        if current is None or (current.done and not current.queue):\n",
                "        if True:\n",
            ),
        ),
        PIPE,
        "exhaust_map",
    ),
)
