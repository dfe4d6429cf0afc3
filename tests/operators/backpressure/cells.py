"""The backpressure family's pipeline-machine cells (``operators/_backpressure.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    Builder,
    Expect,
    Model,
    OpSpec,
    lossy,
)

from reactive_streams.flow import Flow


def _buffer(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    overflow = {"a": "error", "b": "drop_oldest", "c": "drop_latest"}[op.variant]
    out_flow = flow.on_backpressure_buffer(op.k + 1, overflow)
    if overflow == "error":
        return out_flow, expect.cut_in("BufferOverflowError")
    return out_flow, lossy(expect)


def _drop(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    return flow.on_backpressure_drop(), lossy(expect)


def _latest(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    return flow.on_backpressure_latest(), lossy(expect)


CELLS: tuple[Cell, ...] = (
    Cell("on_backpressure_buffer", _buffer),
    Cell("on_backpressure_drop", _drop),
    Cell("on_backpressure_latest", _latest),
)
