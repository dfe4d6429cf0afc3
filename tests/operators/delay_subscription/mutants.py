"""The delay_subscription family's planted bugs (``operators/_delay_subscription.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

FAMILIES = "stateful/test_interleaved_families.py"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "delay-subscription-timer-kept",
        "delay_subscription's cancel leaves the timer armed, holding the subscriber (D2, 3.13)",
        "3.13",
        (
            Patch(
                OPS + "_delay_subscription.py",
                "            self._timer.dispose()  # rule 3.13: the timer",
                "            pass  # rule 3.13: the timer",
            ),
        ),
        machine=PIPE,
        select="delay_subscription",
    ),
    Mutant(
        "explorer-delay-subscription-check-then-set",
        "delay_subscription's on_subscribe checks outside the slot's lock, then stores: "
        "upstream subscribed after a cancel is never cancelled (D2)",
        "3.12",
        (
            Patch(
                OPS + "_delay_subscription.py",
                "from .._core.relay import Relay\n",
                "from .._core.relay import Relay\nfrom .._core.serial import SerialSubscription\n",
            ),
            Patch(
                OPS + "_delay_subscription.py",
                "        self._slot.set(subscription)  # rules 2.5, 3.12: refused after a cancel, "
                "atomically\n",
                "        slot = self._slot\n"
                "        if slot._upstream is not None or self._pub is not ACTIVE:\n"
                "            subscription.cancel()\n"
                "            return\n"
                "        slot._upstream = serial = SerialSubscription(subscription)  # D2\n"
                "        n, slot._early = slot._early, 0\n"
                "        if n:\n"
                "            serial.request(n)\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[delay_subscription]",
    ),
)
