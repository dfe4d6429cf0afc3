"""The group_by family's pipeline-machine cells (``operators/_group_by.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

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
    key_of,
    stable,
    unknown,
)

from reactive_streams.flow import Flow


def _group_by(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """group_by(key) flattened: each value tagged with its key, a bag (each group's
    order kept: checked at its element); variant c bounds the groups below the keys
    (max_groups=1: ValueError naming max_groups once a second key comes)."""
    groups = 1 + op.k % 3
    bound = 1 if op.variant == "c" else groups

    def key(x: Any) -> int:
        return stable(x) % groups

    seen: dict[int, list[int]] = {}
    order: dict[Any, list[int]] = {}  # a value's places: retry repeats values
    for i, v in enumerate(expect.values):
        order.setdefault(key_of(v), []).append(i)

    def in_order(pair: Any) -> None:
        last = seen[pair[0]][-1] if seen.get(pair[0]) else -1
        index = next((i for i in order.get(key_of(pair[1]), ()) if i > last), -1)
        if seen.get(pair[0]) and index < seen[pair[0]][-1]:
            INNER_PROBLEMS.append(f"group_by: group {pair[0]} out of order at {pair!r}")
        seen.setdefault(pair[0], []).append(index)

    out_flow = flow.group_by(key, max_groups=bound, prefetch=op.k + 1).flat_map(
        lambda g: g.map(lambda v: (g.key, v)), max_concurrency=groups
    )
    if expect.order == "list":
        checked = out_flow.do_on_next(in_order)

        def subscribed() -> Flow[Any]:
            seen.clear()  # per subscription: a repeat downstream sees the values again
            return checked

        out_flow = Flow.defer(subscribed)
    tagged = tuple((key(v), v) for v in expect.values)
    out = Expect(tagged, expect.ends, "bag", anytime=expect.anytime)
    if expect.order == "none":
        out = unknown(expect, expect.ends)
    elif expect.count is not None and expect.order != "subseq":
        out = replace(out, count=expect.count)
    if bound < groups:
        out = replace(out, count=None).cut_in("ValueError")
    return out_flow, out


CELLS: tuple[Cell, ...] = (Cell("group_by", _group_by),)
