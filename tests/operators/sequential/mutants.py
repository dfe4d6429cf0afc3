"""Planted bug of operators/_sequential.py, killed by the pipeline machine's cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "merge-sequential-moves-on-early",
        "merge_sequential moves to the next publisher as soon as the current one's queue "
        "is empty, before it completed: its later elements are lost",
        "value",
        (
            Patch(
                OPS + "_sequential.py",
                "            if not (inner.done and not inner.queue):\n",
                "            if inner.queue:\n",
            ),
        ),
        PIPE,
        "merge_sequential",
    ),
)
