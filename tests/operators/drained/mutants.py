"""The drained family's planted bugs (``operators/_drained.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

FAMILIES = "stateful/test_interleaved_families.py"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "merge-overlaps-on-next",
        "a signal drains even while a drain runs: merge/flat_map re-enter on_next",
        "1.3",
        (
            Patch(
                OPS + "_drained.py",
                "        if self._enter():\n            self._wake(False)\n",
                "        if self._enter() or True:  # enters the drain even while it runs\n"
                "            self._wake(False)\n",
            ),
        ),
        PIPE,
        "merge or flat_map",
        60,  # the inner draws (issue 21) moved the derandomized example that kills it
    ),
    Mutant(
        "inner-cancel-skips-slot",
        "a cancelled inner (flat_map, zip, switch_map) leaves its subscription uncancelled (D1)",
        "3.12",
        (
            Patch(
                OPS + "_drained.py",
                "        self.queue.clear()\n        Attach.cancel(self)",
                "        self.queue.clear()",
            ),
        ),
        machine=PIPE,
        select="switch_map or flat_map or zip",
    ),
    Mutant(
        "explorer-inner-check-then-set",
        "an inner's on_subscribe checks its slot, then stores: a cancel in between leaves "
        "the inner requested and never cancelled (D1)",
        "3.12",
        (
            Patch(
                OPS + "_drained.py",
                "    def on_subscribe(self, subscription: Subscription) -> None:\n"
                "        self.set(subscription)  # rules 2.5, 3.12: refused and cancelled after "
                "a cancel\n",
                "    def on_subscribe(self, subscription: Subscription) -> None:\n"
                "        if self._upstream is not None or self._parent is None:\n"
                "            subscription.cancel()\n"
                "            return\n"
                "        self._upstream = serial = SerialSubscription(subscription)  # D1\n"
                "        n, self._early = self._early, 0\n"
                "        serial.request(n)\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[zip]",
    ),
)
