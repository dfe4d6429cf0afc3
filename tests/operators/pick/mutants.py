"""Planted bug of operators/_pick.py, killed by the pipeline machine's single cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "single-keeps-the-last-of-many",
        "single takes a second element as the answer instead of failing with ValueError",
        "value",
        (
            Patch(
                OPS + "_pick.py",
                '            self._fail(ValueError("single: the flow has more than one '
                'element"))\n',
                "            self._last = item\n",
            ),
        ),
        PIPE,
        "single",
    ),
)
