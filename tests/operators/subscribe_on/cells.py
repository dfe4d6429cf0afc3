"""The subscribe_on family's pipeline-machine cells (``operators/_subscribe_on.py``):
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
    subscribes_late,
)

from reactive_streams.flow import Flow


def _subscribe_on(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    out_flow = flow.subscribe_on(machine.new_executor("subscribe_on"))
    return out_flow, subscribes_late(expect, machine)


CELLS: tuple[Cell, ...] = (Cell("subscribe_on", _subscribe_on),)
