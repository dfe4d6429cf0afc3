# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Planted bugs of the fast paths: flat_map's whole inner (flatMapIterable: a list,
tuple, range or just inner taken without a Flow, an iterator or a subscription) let past
the demand it must wait for by one element (rule 1.1), taken with a None in it (2.13),
or sent on after a cancel (3.12); and group_by's inline one-element round sent without
demand (rule 1.1)."""

from __future__ import annotations

from planted import PIPE, Mutant, Patch

FLAT_MAP = "operators/_flat_map.py"
GROUP_BY = "operators/_group_by.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "flat-map-whole-batch-overshoots-demand",
        "flat_map's one send path (_direct) sends a whole inner with demand for all but one of its elements",
        "1.1",
        (
            Patch(
                FLAT_MAP,
                "                if whole is None or len(whole) > room:\n",
                "                if whole is None or len(whole) > room + 1:\n",
            ),
        ),
        # the pipeline machine (60 examples per cell) survives it: its bounded requests
        # never end inside a multi-element whole inner; the demand tests split one there
        machine="tests/operators/flat_map/test_flat_map_iterable.py",
    ),
    Mutant(
        "flat-map-list-inner-unchecked-for-none",
        "flat_map takes a list or tuple the mapper returned whole without looking for a None in it",
        "2.13",
        (
            Patch(
                FLAT_MAP,
                "                            whole: Sequence[R] | None = result if None not in result else None\n",
                "                            whole: Sequence[R] | None = result\n",
            ),
        ),
        # no machine inner holds a None: the rule's own test kills it
        machine="tests/operators/flat_map/test_flat_map_iterable.py",
    ),
    Mutant(
        "flat-map-list-inner-sent-after-cancel",
        "flat_map sends the rest of a whole inner after a cancel from inside on_next",
        "3.12",
        (
            Patch(
                FLAT_MAP,
                "                        if self._pub is not ACTIVE:\n                            break  # cancelled (rules 3.12, 1.8)\n",
                "                        pass\n",
            ),
        ),
        # the pipeline machine (60 examples per cell) survives it: a later operator
        # drops what comes after its own cancel (rule 2.8), so no probe sees it
        machine="tests/operators/flat_map/test_flat_map_iterable.py",
    ),
    Mutant(
        "concat-map-within-takes-one-more",
        "flat_map takes one upstream element more inside a fused batch than its completed inners earned: concat_map maps an element while an inner is open",
        "3.17",
        (
            Patch(
                FLAT_MAP,
                "                    more = within(asked) if asked else []  # earned now, taken now\n",
                "                    more = within(asked + 1) if asked else []  # earned now, taken now\n",
            ),
        ),
        # the pipeline machine (60 examples per cell) survives it: its concat_map inners
        # that stay open never follow a whole one inside a fused batch
        machine="tests/operators/flat_map/test_flat_map_iterable.py",
    ),
    Mutant(
        "flat-map-direct-demand-not-spent",
        "flat_map's one send path does not spend the demand its whole inners take",
        "1.1",
        (
            Patch(
                FLAT_MAP,
                "                room -= len(whole)  # exact unless cancelled meanwhile, when it no longer counts\n",
                "                pass  # the demand is not spent\n",
            ),
        ),
        machine=PIPE,
        select="flat_map or concat_map",
        examples=60,
    ),
    Mutant(
        "group-by-inline-ignores-demand",
        "group_by's inline one-element round sends without the group subscriber's demand",
        "1.1",
        (
            Patch(
                GROUP_BY,
                "            or not self._requested\n",
                "            or self._requested < 0\n",
            ),
        ),
        # the pipeline machine's group_by cells survive it: their group subscribers'
        # demand never runs out while elements arrive
        machine="tests/operators/group_by/test_group_by_inline.py",
    ),
)
