"""Planted bugs for ``publish(lead=N)`` (``multicast/_lead.py``): each breaks the lead's
ring and is killed by the multicast machine (``stateful/test_multicast_machine.py``),
whose lead invariants mirror ``spec/MulticastLead.tla``."""

from __future__ import annotations

from planted import Mutant, Patch

MACHINE = "stateful/test_multicast_machine.py"
LEAD = "multicast/_lead.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "lead-demand-ignores-the-lead",
        "upstream demand counts the ring's room from the fastest subscriber, not the "
        "slowest: the source is asked for slots the slowest still holds, and they are "
        "overwritten",
        "1.1",
        (
            Patch(
                LEAD,
                "(self._upstream_requested - self._base)  # the slowest's room",
                "(self._upstream_requested - self._front)  # the slowest's room",
            ),
        ),
        MACHINE,
    ),
    Mutant(
        "lead-ring-overwrites-the-slowest",
        "the ring releases what the fastest subscriber passed: a slot the slowest has not "
        "taken is written again and the slowest reads a later element",
        "1.3",
        (
            Patch(
                LEAD,
                "            self._release(min(cursors))",
                "            self._release(max(cursors))",
            ),
        ),
        MACHINE,
    ),
    Mutant(
        "lead-tops-up-only-when-empty",
        "the source is topped up only when the whole ring is free: a subscriber with demand "
        "within the lead waits for ever behind a slow one",
        "3.8",
        (Patch(LEAD, "self._limit = max(1, lead // 2)", "self._limit = lead"),),
        MACHINE,
    ),
)
