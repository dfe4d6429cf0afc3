"""The pipeline machine's cell of ``Flow.never()`` (operators/_never.py): as the other
publisher of ``take_until`` it is subscribed, asked for one element, never answers, and
is cancelled at the end, so the flow passes whole."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec

from reactive_streams.flow import Flow


def never(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return flow.take_until(Flow.never(), prefetch=op.k + 1), expect


CELLS = (Cell("never", never),)
