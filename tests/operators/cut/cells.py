"""The pipeline machine's cells of ``buffer_until`` and ``buffer_while``
(operators/_cut.py), cut by ``keeper``'s predicate (variant): the lists of a list model,
the open one at completion; a drawn fault makes the predicate raise on that element."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    Builder,
    Expect,
    Model,
    OpSpec,
    cut_at,
    exact,
    keeper,
    pick_target,
    raising_on,
    unknown,
)

from reactive_streams.flow import Flow


def cut(values: tuple[Any, ...], test: Any, until: bool, ended: bool) -> tuple[Any, ...]:
    """The lists emitted before the end; with ``ended``, the open one too."""
    out, current = [], []
    for v in values:
        if until:
            current.append(v)
            if test(v):
                out.append(current)
                current = []
        elif test(v):
            current.append(v)
        elif current:
            out.append(current)
            current = []
    if ended and current:
        out.append(current)
    return tuple(out)


def _model(op: OpSpec, flow: Flow[Any], expect: Expect, until: bool) -> Model:
    test = keeper(op.variant)
    target = pick_target(expect, op.fault)
    fn = raising_on(target, test)
    out_flow = flow.buffer_until(fn) if until else flow.buffer_while(fn)
    i, cut_expect = cut_at(expect, target, "UserFault")
    src = cut_expect if i is not None else expect
    if not exact(src) or (target is not None and i is None):
        ends = expect.ends | ({"UserFault"} if target is not None else set())
        return out_flow, unknown(expect, frozenset(ends))
    ended = COMPLETE in src.ends
    return out_flow, Expect(cut(src.values, test, until, ended), src.ends)


def buffer_until(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return _model(op, flow, expect, True)


def buffer_while(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return _model(op, flow, expect, False)


CELLS = (Cell("buffer_until", buffer_until), Cell("buffer_while", buffer_while))
