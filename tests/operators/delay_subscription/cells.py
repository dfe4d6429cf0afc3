"""The delay_subscription family's pipeline-machine cells (``operators/_delay_subscription.py``):
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

from reactive_streams import ManualExecutor
from reactive_streams.flow import Flow


def _delay_subscription(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """delay_subscription(dt), on a "timer" ManualExecutor: the same values."""
    clock = m.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    return flow.delay_subscription(dt, scheduler=clock), subscribes_late(expect, m)


CELLS: tuple[Cell, ...] = (Cell("delay_subscription", _delay_subscription, timed=True),)
