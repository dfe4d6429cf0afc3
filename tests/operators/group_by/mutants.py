# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The group_by family's planted bugs (``operators/_group_by.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

RACES = "tests/operators/test_attach_races.py"
FAMILIES = "stateful/test_interleaved_families.py"
GROUP_BY = "operators/_group_by.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "group-subscribe-check-then-store",
        "a group's subscribe checks its slot, then stores: two racing subscribers both attach (D4)",
        "2.5",
        (
            Patch(
                OPS + "_group_by.py",
                "        if not self.claim(subscriber):  # check and store in one step (a racing second)",
                "        if self._held is not None:  # checked, then stored below",
            ),
            Patch(OPS + "_group_by.py", "        self.swap(sub)\n", "        self._held = sub\n"),
        ),
        machine=RACES,
        select="d4",
    ),
    Mutant(
        "explorer-group-check-then-set",
        "a group's subscribe checks that it has no subscriber, then stores one: two racing "
        "subscribers are both admitted, neither refused (D4)",
        "2.5",
        (
            Patch(
                OPS + "_group_by.py",
                "        if not self.claim(subscriber):  # check and store in one step (a racing "
                "second)\n",
                "        if self._held is not None:  # D4: checked here, stored by swap below\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[group_by]",
    ),
)
