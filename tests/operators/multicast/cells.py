"""The multicast family's pipeline-machine cells (``reactive_streams/multicast/``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    Builder,
    Expect,
    OpSpec,
    Stage,
    overtaking,
)

from reactive_streams.flow import Flow
from reactive_streams.multicast import ConnectableFlow, publish, replay


def _multicast(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    ex = machine.new_executor("multicast") if op.manual else None
    buffer = op.k + 1
    # variant c on no executor of its own: the Flow methods (their default batch size)
    method = op.variant == "c" and ex is None
    conn: ConnectableFlow[Any]
    if op.name == "replay" or (op.name == "ref_count" and op.variant == "b"):
        bound = None if op.variant == "a" else buffer
        conn = flow.replay(bound) if method else replay(flow, bound, executor=ex, batch_size=2)
        kind = "replay"
    else:
        conn = flow.publish(buffer) if method else publish(flow, buffer, executor=ex, batch_size=2)
        kind = "publish"
        # docs/multicast.md: a source error overtakes the buffered elements
        expect = overtaking(expect, expect.ends - {COMPLETE})
    if op.name == "ref_count":
        out: Flow[Any] = conn.ref_count()
        machine.stages.append(Stage(out, expect, kind, None, conn, buffer))
        return out, expect
    machine.stages.append(Stage(conn, expect, kind, conn, conn, buffer))
    return conn, expect


CELLS: tuple[Cell, ...] = (
    Cell("publish", _multicast, interleaved=True),
    Cell("replay", _multicast, interleaved=True),
    Cell("ref_count", _multicast, interleaved=True),
)
