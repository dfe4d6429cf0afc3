"""The pipeline machine's cell of ``amb`` (operators/_amb.py): against ``never()`` the
flow wins whatever its position (variants a, b: ``amb_with``, c: third of three). The
flow is subscribed once: a second, simultaneous subscription of the drawn upstream would
meet its stages' checkers twice at once."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec

from reactive_streams.flow import Flow


def amb(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    if op.variant == "a":
        return Flow.amb(flow, Flow.never()), expect
    if op.variant == "b":
        return Flow.never().amb_with(flow), expect
    return Flow.amb(Flow.never(), Flow.never(), flow), expect


CELLS = (Cell("amb", amb),)
