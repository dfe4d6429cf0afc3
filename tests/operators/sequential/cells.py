"""The pipeline machine's cells of ``merge_sequential`` and ``flat_map_sequential``
(operators/_sequential.py): ``merge_sequential``: the flow's values, then the other's,
whatever the arrival order; ``flat_map_sequential``: each value's inner elements
(flat_map's ``inner_values``), in upstream order. An error ends either eagerly (a prefix
of the model's values)."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    Builder,
    Expect,
    Model,
    OpSpec,
    ThreadedInner,
    inner_values,
    other_source,
    overtaking,
    unknown,
)

from reactive_streams.flow import Flow


def merge_sequential(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    other, theirs = other_source(op, m, "ms")
    out_flow = Flow.merge_sequential(flow, other, prefetch=op.k + 1)
    if expect.order != "list":
        return out_flow, unknown(expect, expect.ends)
    out = Expect(expect.values + theirs, expect.ends, anytime=expect.anytime)
    return out_flow, overtaking(out, expect.ends - {COMPLETE})  # an error is eager


def flat_map_sequential(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Inners of 0 to 3 elements, synchronous or on a thread of their own."""
    salt = op.variant

    def inner(x: Any) -> Any:
        values = inner_values(x, salt)
        return ThreadedInner(values) if op.inner == "thread" else Flow.from_iterable(values)

    out_flow = flow.flat_map_sequential(inner, max_concurrency=op.k + 1, prefetch=op.k + 1)
    if expect.order != "list":
        return out_flow, unknown(expect, expect.ends)
    values = tuple(v for x in expect.values for v in inner_values(x, salt))
    out = Expect(values, expect.ends, anytime=expect.anytime)
    return out_flow, overtaking(out, expect.ends - {COMPLETE})  # an error is eager


CELLS = (
    Cell("merge_sequential", merge_sequential),
    Cell("flat_map_sequential", flat_map_sequential),
)
