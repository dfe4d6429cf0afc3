"""The pipeline machine's cell of ``merge_sequential`` (operators/_sequential.py): the
flow's values, then the other's, whatever the arrival order; an error of the flow ends
it eagerly (a prefix of the values)."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec, other_source, unknown

from reactive_streams.flow import Flow


def merge_sequential(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    other, theirs = other_source(op, m, "ms")
    out_flow = Flow.merge_sequential(flow, other, prefetch=op.k + 1)
    if expect.order != "list":
        return out_flow, unknown(expect, expect.ends)
    return out_flow, Expect(expect.values + theirs, expect.ends, anytime=expect.anytime)


CELLS = (Cell("merge_sequential", merge_sequential),)
