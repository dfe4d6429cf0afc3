"""The pipeline machine's cell of ``buffer(count, skip)`` (operators/_sliding.py): the
lists of a list model, started every ``skip``, with the open ones at completion."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import COMPLETE, Builder, Expect, Model, OpSpec, exact, unknown

from reactive_streams.flow import Flow


def windows(values: tuple[Any, ...], count: int, skip: int, ended: bool) -> tuple[Any, ...]:
    """Full lists; with ``ended``, the lists still open at the end too."""
    out = []
    for start in range(0, len(values), skip):
        chunk = list(values[start : start + count])
        if len(chunk) == count or ended:
            out.append(chunk)
    return tuple(out)


def buffer_skip(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """count = k + 1; skip: 1 (a: sliding), count + 1 (b: gaps), count - 1 or 1 (c)."""
    count = op.k + 1
    skip = {"a": 1, "b": count + 1}.get(op.variant, max(1, count - 1))
    out_flow = flow.buffer(count, skip)
    if not exact(expect):
        return out_flow, unknown(expect, expect.ends)
    ended = COMPLETE in expect.ends  # an error drops the open lists
    return out_flow, Expect(windows(expect.values, count, skip, ended), expect.ends)


CELLS = (Cell("buffer_skip", buffer_skip),)
