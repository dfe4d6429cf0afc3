"""The recover family's planted bugs (``operators/_recover.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

FAMILIES = "stateful/test_interleaved_families.py"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "explorer-retry-timer-stored-after-cancel",
        "retry stores its backoff timer whatever a racing cancel did: the timer stays "
        "armed after the cancel (D3)",
        "3.13",
        (
            Patch(
                OPS + "_recover.py",
                "        self._timer.swap(timer)  # rules 3.12, 3.13: cancelled at once if a "
                "cancel came first\n",
                "        self._timer._held = timer  # D3: stored over a dispose\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[retry-backoff]",
    ),
)
