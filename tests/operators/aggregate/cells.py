"""The aggregate family's pipeline-machine cells (``operators/_aggregate.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    Builder,
    Expect,
    Model,
    OpSpec,
    UserFault,
    chunks,
    key_of,
    pick_target,
)

from reactive_streams.flow import Flow


def _reduce(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    target = pick_target(expect, op.fault)

    def fold(a: Any, b: Any) -> Any:
        if target is not None and key_of(b) == key_of(target):
            raise UserFault(f"reduce on {b!r}")
        return ("r", a, b)

    if not listy:
        out = replace(expect.degrade(), most=1)
        return flow.reduce(fold), out.with_error("UserFault") if target is not None else out
    vals = expect.values
    if target is not None and key_of(target) in [key_of(v) for v in vals[1:]]:
        return flow.reduce(fold), Expect((), frozenset({"UserFault"}))
    if COMPLETE not in expect.ends:
        return flow.reduce(fold), Expect((), expect.ends)
    if not vals:
        return flow.reduce(fold), Expect((), expect.ends)
    total = vals[0]
    for v in vals[1:]:
        total = ("r", total, v)
    return flow.reduce(fold), Expect((total,), expect.ends)


def _batches(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    name = op.name
    size = op.k + 1
    if name == "buffer":
        # variant c: its alias batch(n)
        out_flow = flow.batch(size) if op.variant == "c" else flow.buffer(size)
    else:
        out_flow = flow.window(size).concat_map(lambda w: w.collect())
    if not listy:
        return out_flow, expect.degrade()
    tail = COMPLETE in expect.ends
    return out_flow, replace(expect, values=chunks(expect.values, size, tail), count=None)


CELLS: tuple[Cell, ...] = (
    Cell("reduce", _reduce),
    Cell("buffer", _batches),
    Cell("window", _batches),
)
