"""The pipeline machine's cell of ``exhaust_map`` (operators/_exhaust.py): synchronous
inners (flat_map's ``inner_values``); an element arriving while the previous inner still
holds elements is dropped, so the output is whole inners, in order: checked at
completion, and the values are a subsequence of all inners'."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    INNER_PROBLEMS,
    Builder,
    Expect,
    Model,
    OpSpec,
    inner_values,
    key_of,
    lossy,
    unknown,
)

from reactive_streams.flow import Flow


def exhaust_map(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    salt = op.variant
    seen: list[Any] = []

    def whole_inners() -> None:
        """At completion: what arrived is whole inners, each in order."""
        i = 0
        while i < len(seen):
            block = inner_values(seen[i][1], salt)
            if [key_of(v) for v in seen[i : i + len(block)]] != [key_of(v) for v in block]:
                INNER_PROBLEMS.append(f"exhaust_map: a partial inner in {seen!r}")
                return
            i += len(block)

    out_flow = (
        flow.exhaust_map(lambda x: inner_values(x, salt), prefetch=op.k + 1)
        .do_on_next(seen.append)
        .do_on_complete(whole_inners)
    )
    if expect.order == "none":
        return out_flow, unknown(expect, expect.ends)
    values = tuple(v for x in expect.values for v in inner_values(x, salt))
    out = replace(lossy(expect), values=values, order="subseq", most=None, keeps_last=False)
    return out_flow, out


CELLS = (Cell("exhaust_map", exhaust_map),)
