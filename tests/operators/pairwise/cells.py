"""The pipeline machine's cell of ``pairwise`` (operators/_pairwise.py): the pairs of
neighbours of a list model, the same ends."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec, unknown

from reactive_streams.flow import Flow


def pairwise(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    out_flow = flow.pairwise()
    if expect.order != "list":
        return out_flow, unknown(expect, expect.ends)
    pairs = tuple(zip(expect.values, expect.values[1:], strict=False))
    most = None if expect.most is None else max(0, expect.most - 1)
    return out_flow, Expect(pairs, expect.ends, most=most, anytime=expect.anytime)


CELLS = (Cell("pairwise", pairwise),)
