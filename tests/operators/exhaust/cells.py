"""The pipeline machine's cell of ``exhaust_map`` (operators/_exhaust.py): synchronous
inners (flat_map's ``inner_values``); an element arriving while the previous inner still
holds elements is dropped (variants b, c ask one element at a time, ``limit_rate(1)``, so
inners do hold some), so the output is whole inners, in order: checked at each element,
and the values are a subsequence of all inners'."""

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


def _whole_inners(salt: str) -> Any:
    """A checker of each element: a new inner starts only after the previous one was
    delivered whole (an inner cut short is a problem at once, not only at completion)."""
    pending: list[str] = []

    def check(item: Any) -> None:
        key = key_of(item)
        if pending:
            if key != pending[0]:
                INNER_PROBLEMS.append(f"exhaust_map: {item!r} before the inner's {pending[0]}")
            pending.pop(0)
            return
        block = [key_of(v) for v in inner_values(item[1], salt)]
        if not block or block[0] != key:
            INNER_PROBLEMS.append(f"exhaust_map: {item!r} does not start an inner")
            return
        pending.extend(block[1:])

    return check


def exhaust_map(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    salt = op.variant
    out_flow = flow.exhaust_map(lambda x: inner_values(x, salt), prefetch=op.k + 1)
    if op.variant != "a":  # demand one at a time: an inner holds elements, others drop
        out_flow = out_flow.limit_rate(1)
    out_flow = out_flow.do_on_next(_whole_inners(salt))
    if expect.order == "none":
        return out_flow, unknown(expect, expect.ends)
    values = tuple(v for x in expect.values for v in inner_values(x, salt))
    out = replace(lossy(expect), values=values, order="subseq", most=None, keeps_last=False)
    return out_flow, out


CELLS = (Cell("exhaust_map", exhaust_map),)
