"""The pipeline machine's cell of ``partition`` (operators/_partition.py): the first half
(variant a) or the second (b, c) of ``keeper``'s split, each a ``filter``'s model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec, keeper

from reactive_streams.flow import Flow


def partition(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    test = keeper("a")
    first = op.variant == "a"
    kept, rest = flow.partition(test)
    out_flow = kept if first else rest
    values = tuple(v for v in expect.values if bool(test(v)) == first)
    count = len(values) if expect.order == "list" else None
    return out_flow, replace(expect, values=values, count=count)


CELLS = (Cell("partition", partition),)
