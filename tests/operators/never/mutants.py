"""Planted bug of operators/_never.py, killed by the pipeline machine's never cell (the
silent other of ``take_until``: a ``never`` that completes ends the flow early)."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "never-source-completes",
        "never completes at its first drain round",
        "value",
        (
            Patch(
                OPS + "_never.py",
                "        return False  # no element, no terminal signal\n",
                "        self._finish(None)\n        return False\n",
            ),
        ),
        PIPE,
        "never",
    ),
)
