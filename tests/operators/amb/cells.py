"""The pipeline machine's cell of ``amb`` (operators/_amb.py): against ``never()`` the
flow wins whatever its position (variants a, b: ``amb_with``); against itself (c: two
subscriptions of one cold pipeline) either copy wins and the output is the flow's, once."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec, subscribes_late

from reactive_streams.flow import Flow


def amb(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    if op.variant == "a":
        return Flow.amb(flow, Flow.never()), expect
    if op.variant == "b":
        return Flow.never().amb_with(flow), expect
    return Flow.amb(flow, flow), subscribes_late(expect, m)


CELLS = (Cell("amb", amb),)
