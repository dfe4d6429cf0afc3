# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The aggregate family's planted bugs (``operators/_aggregate.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "buffer-drops-tail",
        "buffer drops the last, shorter list at completion",
        "value",
        (
            Patch(
                OPS + "_aggregate.py",
                "        if buffer and downstream is not None:\n            self._ending = True\n",
                "        if False and downstream is not None:\n            self._ending = True\n",
            ),
        ),
        PIPE,
        "buffer or window",
    ),
    Mutant(
        "reduce-emits-without-demand",
        "reduce emits its result whether or not it was requested",
        "1.1",
        (
            Patch(
                OPS + "_aggregate.py",
                "        if self._done and self._error is None and self._has_value and requested > 0:\n",
                "        if self._done and self._error is None and self._has_value:\n",
            ),
        ),
        PIPE,
        "reduce",
    ),
)
