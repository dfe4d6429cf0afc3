"""Planted bug of operators/_never.py. ``never`` has no pipeline machine cell (it emits
nothing and never ends, which the machine's value oracle cannot tell from a stall), so
its contract test kills it."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

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
        "tests/operators/never/test_contract.py",
    ),
)
