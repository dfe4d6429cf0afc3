# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Planted bugs of flat_map's whole-inner path (flatMapIterable: a list, tuple, range
or just inner taken without an iterator or a subscription): each lets a whole inner
past the demand it must wait for (rule 1.1), by one element."""

from __future__ import annotations

from planted import PIPE, Mutant, Patch

FLAT_MAP = "operators/_flat_map.py"

MUTANTS: tuple[Mutant, ...] = (
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
        machine=PIPE,
        select="flat_map or concat_map",
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
