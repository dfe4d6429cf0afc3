"""The pipeline machine's cells of ``materialize`` (each notification unwrapped to a
value: the element, ``("complete",)`` or ``("error", class name)``) and ``dematerialize``
(of the materialized flow: the flow itself), operators/_notification.py."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import COMPLETE, Builder, Expect, Model, OpSpec, exact, unknown

from reactive_streams.flow import Flow
from reactive_streams.operators import Notification

_DONE = frozenset({COMPLETE})


def unwrap(n: Notification[Any]) -> Any:
    if n.kind == "on_next":
        return n.value
    if n.kind == "on_complete":
        return ("complete",)
    return ("error", type(n.error).__name__)


def materialize(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    out_flow = flow.materialize().map(unwrap)
    if not exact(expect):
        return out_flow, unknown(expect, _DONE)
    (end,) = expect.ends
    last = ("complete",) if end == COMPLETE else ("error", end)
    return out_flow, Expect((*expect.values, last), _DONE, most=None)


def dematerialize(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return flow.materialize().dematerialize(), expect


CELLS = (Cell("materialize", materialize), Cell("dematerialize", dematerialize))
