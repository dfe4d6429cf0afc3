"""The observe_on family's pipeline-machine cells (``operators/_observe_on.py``):
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
)

from reactive_streams.flow import Flow


def _limit_rate(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    return flow.limit_rate(op.k + 1), expect


def _observe_on(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    return flow.observe_on(machine.new_executor("observe_on"), op.k + 1), expect


CELLS: tuple[Cell, ...] = (
    Cell("observe_on", _observe_on, interleaved=True),
    Cell("limit_rate", _limit_rate, interleaved=True),
)
