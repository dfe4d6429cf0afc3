"""Planted bugs for the interleaving explorer's line-level mode: D1, D2, D3, D4 and D11
put back where the attach primitive (``_core/attach.py``) closed them, each a check and
then a store with no lock between, and no scheduling point either: only the line-level
mode of ``stateful/interleave.py`` can stop a thread between the two. Each is killed by
its family cell in ``stateful/test_interleaved_families.py`` (``test_family_lines``,
which the ``mutants`` profile runs as ``make interleave`` does). The operators' ones live
with their families (``tests/operators/<family>/mutants.py``); these two are the core's.
"""

from __future__ import annotations

from planted import Mutant, Patch

FAMILIES = "stateful/test_interleaved_families.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "explorer-lambda-check-then-set",
        "LambdaSubscriber.on_subscribe checks done and its slot, then stores: a cancel in "
        "between is lost and the source keeps the demand (D11)",
        "3.12",
        (
            Patch(
                "subscribers.py",
                "from ._core.serial import SerialQueue\n",
                "from ._core.serial import SerialQueue, SerialSubscription\n",
            ),
            Patch(
                "subscribers.py",
                "        # cancelled; the check and the store are one step (_core.attach)\n"
                "        self._upstream.set(subscription)\n",
                "        slot = self._upstream\n"
                "        if slot._upstream is not None or self.done.is_set():\n"
                "            subscription.cancel()\n"
                "            return\n"
                "        slot._upstream = serial = SerialSubscription(subscription)  # D11\n"
                "        n, slot._early = slot._early, 0\n"
                "        serial.request(n)\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[lambda-cancel]",
    ),
)

MUTANTS = (
    *MUTANTS,
    Mutant(
        "explorer-finish-reads-3.9-latch-unlocked",
        "Downstream._finish reads rule 3.9's latch before its lock: a request(0) received in "
        "between is answered by the source's own end, not by the ValueError",
        "3.9",
        (
            Patch(
                "_core/downstream.py",
                "        tracer = self._tracer\n"
                "        with self._lock:\n"
                "            if self._pub is not ACTIVE:\n"
                "                return False\n"
                "            if self._bad is not None:  # read under the lock: a request(0) may "
                "race the end\n"
                "                error = ValueError(self._bad)  # rule 3.9 wins over the source's "
                "own end\n",
                "        if self._bad is not None:\n"
                "            error = ValueError(self._bad)\n"
                "        tracer = self._tracer\n"
                "        with self._lock:\n"
                "            if self._pub is not ACTIVE:\n"
                "                return False\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[retry-invalid-request]",
    ),
)
