# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The limit family's planted bugs (``operators/_limit.py``): ``tools/mutants.py`` applies each to
a copy of ``impl/`` and runs the machine it names, which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "skip-off-by-one",
        "skip lets the last of the skipped elements through",
        "value",
        (
            Patch(
                OPS + "_limit.py",
                "        if self._remaining > 0:\n            self._remaining -= 1\n            return SKIP\n",
                "        if self._remaining > 1:\n            self._remaining -= 1\n            return SKIP\n",
            ),
        ),
        PIPE,
        "skip",
    ),
    Mutant(
        "take-never-completes",
        "take delivers its count but never completes nor cancels upstream",
        "1.5",
        (
            Patch(
                OPS + "_limit.py",
                "        if remaining == 0:\n            self._complete_early()\n",
                "        if remaining == -1:\n            self._complete_early()\n",
            ),
        ),
        PIPE,
        "take",
    ),
)
