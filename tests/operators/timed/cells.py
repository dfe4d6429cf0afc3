"""The timed family's pipeline-machine cells (``operators/_timed.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    Builder,
    Expect,
    Model,
    OpSpec,
)

from reactive_streams import ManualExecutor
from reactive_streams.flow import Flow


def _delay(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """On a "timer" ManualExecutor. delay(dt): the same list, an error at once (waiting
    elements dropped)."""
    clock = m.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    errors = expect.ends - {COMPLETE}
    return flow.delay(dt, scheduler=clock), replace(expect, anytime=expect.anytime | errors)


CELLS: tuple[Cell, ...] = (Cell("delay", _delay, timed=True),)
