# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The flat_map family's planted bugs (``operators/_flat_map.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

FLAT_MAP = "operators/_flat_map.py"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "flat_map-scalar-no-recheck",
        "flat_map's scalar path does not re-check demand once it holds the drain",
        "1.1",
        (
            Patch(
                "operators/_flat_map.py",
                "        room = requested = self._requested  # demand only grows meanwhile (rule 1.1)\n",
                "        room = requested = max(self._requested, 1)  # the demand seen before the hold\n",
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and flat_map",
    ),
    Mutant(
        "flat_map-loses-inner-demand",
        "flat_map replenishes an inner one element short",
        "3.8",
        (
            Patch(
                OPS + "_flat_map.py",
                "            self.request(grant)\n",
                "            self.request(grant - 1)\n",
            ),
        ),
        PIPE,
        "flat_map or merge",
        30,  # an inner subscribed with a prefetch of 1 must be replenished
    ),
    Mutant(
        "flat_map-run-skips-joined-inners",
        "flat_map moves past a run of whole synchronous inners although inners joined it "
        "while it completed some: a later inner's element overtakes theirs",
        "order",
        (
            Patch(
                OPS + "_flat_map.py",
                "                if queue and emitted != requested and self._pub is ACTIVE:\n",
                "                if False:\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "flat_map_mix",
    ),
    Mutant(
        "flat-map-direct-ignores-demand",
        "a whole synchronous inner goes straight downstream without demand for it",
        "1.1",
        (
            Patch(
                "operators/_flat_map.py",
                "                if whole is None or len(whole) > room:\n",
                "                if whole is None:\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "flat_map",
    ),
    Mutant(
        "flat-map-direct-scalar-ignores-demand",
        "a scalar inner goes straight downstream when the demand is spent",
        "1.1",
        (
            Patch(
                "operators/_flat_map.py",
                "                room -= len(whole)  # exact unless cancelled meanwhile, when it no longer counts\n",
                "                room -= len(whole) - 1  # a scalar inner counted as no demand\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "flat_map",
    ),
    Mutant(
        "flat-map-pulls-an-inner-inside-the-hold",
        "an inner that is not whole is pulled with the drain held: its error overtakes its elements",
        "1.4",
        (
            Patch(
                "operators/_flat_map.py",
                "                    pending = (result, whole, sync)\n                    break\n",
                "                    self._dispatch(result, whole, sync)\n                    continue\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "flat_map",
    ),
    Mutant(
        "flat-map-direct-untraced",
        "the direct path calls on_next bare in a traced run: the inners' elements leave no events",
        "trace",
        (
            Patch(
                "operators/_flat_map.py",
                "        on_next = downstream.on_next if self._tracer is None else self._sender(downstream)\n"
                "        prefetch = self._prefetch\n",
                "        on_next = downstream.on_next\n        prefetch = self._prefetch\n",
            ),
        ),
        "tests/operators/flat_map/test_flat_map_direct.py",
    ),
    Mutant(
        "flat-map-batched-replenish-short",
        "inners completed in one batch ask upstream for one element per limit, not limit",
        "3.17",
        (
            Patch(
                "operators/_flat_map.py",
                "        return grants * limit if not self._main_done else 0\n",
                "        return grants if not self._main_done else 0\n",
            ),
        ),
        "tests/operators/flat_map/test_flat_map_direct.py",
    ),
    Mutant(
        "flat-map-direct-maps-after-cancel",
        "the rest of a pulled batch is mapped after downstream cancelled",
        "3.12",
        (
            Patch(
                "operators/_flat_map.py",
                "                if self._pub is not ACTIVE or self._bad is not None:\n",
                "                if self._bad is not None:\n",
            ),
        ),
        "tests/operators/flat_map/test_flat_map_direct.py",
    ),
    Mutant(
        "flat_map-batch-asks-fusion-unchecked",
        "flat_map's batch path asks __rs_sync__ itself instead of sync_of: a stranger's "
        "items answer skips the one check",
        "1.1",
        (
            Patch(
                OPS + "_flat_map.py",
                "        sync = sync_of(result)  # the answer checked (a stranger's: pulled)\n",
                '        ask = getattr(result, "__rs_sync__", None)\n'
                "        sync = None if ask is None else ask()\n",
            ),
        ),
        # the machine's lying inners reach the batch path with too little demand too
        # rarely (survived at 100 examples per cell): the answers' own test kills it
        "tests/test_fusion_answers.py",
    ),
)
