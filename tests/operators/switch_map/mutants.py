# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The switch_map family's planted bugs (``operators/_switch_map.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "switch-map-drops-inner-queue-at-end",
        "switch_map completes once upstream and the inner completed, dropping the inner's queued elements",
        "switch_map",
        (
            Patch(
                "operators/_switch_map.py",
                "        return self._done and (current is None or (current.done and not current.queue))\n",
                "        return self._done and (current is None or current.done)\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "switch_map",
        50,  # the cell's draws since the families' cells: killed at 50 examples, not 12
    ),
)
