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
                "        if stopped or self._inners or self._requested < count:\n",
                "        if stopped or self._inners:\n",
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
                "            if len(whole) > room - sent:\n",
                "            if False:\n",
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
                "                if sent == room:\n",
                "                if False:\n",
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
                "            else:\n                pending = (publisher, sync)\n                break\n",
                "            else:\n                self._dispatch(publisher, sync)\n                continue\n",
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
                "            self._upstream.request(grants * limit)\n",
                "            self._upstream.request(grants)\n",
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
                "            if self._pub is not ACTIVE or self._bad is not None or self._error is not None:\n",
                "            if self._bad is not None or self._error is not None:\n",
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
                "                sync = sync_of(publisher)"
                "  # the answer checked (a stranger's: pulled)\n",
                '                ask = getattr(publisher, "__rs_sync__", None)\n'
                "                sync = None if ask is None else ask()\n",
            ),
        ),
        # the machine's lying inners reach the batch path with too little demand too
        # rarely (survived at 100 examples per cell): the answers' own test kills it
        "tests/test_fusion_answers.py",
    ),
    Mutant(
        "flat-map-whole-batch-overshoots-demand",
        "flat_map's batch path sends a whole inner with demand for all but one of its elements",
        "1.1",
        (
            Patch(
                FLAT_MAP,
                "            if whole is None or len(whole) > room - sent:\n",
                "            if whole is None or len(whole) > room - sent + 1:\n",
            ),
        ),
        # the pipeline machine's flat_map cells (12 examples) survive it: their bounded
        # requests never end inside a fused batch; the demand test splits an inner there
        machine="tests/operators/flat_map/test_flat_map_iterable.py",
    ),
    Mutant(
        "flat-map-whole-inner-overshoots-demand",
        "flat_map's one-by-one path sends a whole inner with demand for all but one of its elements",
        "1.1",
        (
            Patch(
                FLAT_MAP,
                "        if self._inners or self._requested < count or not self._enter():\n",
                "        if self._inners or self._requested < count - 1 or not self._enter():\n",
            ),
            Patch(
                FLAT_MAP,
                "        if stopped or self._inners or self._requested < count:\n",
                "        if stopped or self._inners or self._requested < count - 1:\n",
            ),
        ),
        machine=PIPE,
        select="flat_map or concat_map",
    ),
)
