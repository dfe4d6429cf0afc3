"""The tail family's pipeline-machine cells (``operators/_tail.py``):
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
    keeper,
    unknown,
)

from reactive_streams.flow import Flow

from ..breadth.cells import relays


def _element_at(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """values[k] then complete (upstream cancelled); shorter: the default (variant a)
    or IndexError at completion."""
    index = op.k
    default = ("d", index) if op.variant == "a" else None
    out_flow = flow.element_at(index) if default is None else flow.element_at(index, default)
    short = frozenset({"IndexError"}) if default is None else frozenset({COMPLETE})
    if expect.order != "list":
        return out_flow, replace(unknown(expect, expect.ends | {COMPLETE} | short), most=1)
    if len(expect.values) > index:
        return out_flow, Expect((expect.values[index],), frozenset({COMPLETE}), most=1)
    if COMPLETE in expect.ends:
        values = () if default is None else (default,)
        return out_flow, Expect(values, (expect.ends - {COMPLETE}) | short, most=1)
    return out_flow, Expect((), expect.ends, most=1)


def _all_any(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """all(p): (False,) at the first failing element (upstream cancelled), else (True,)
    at completion; any(p): (True,) at the first passing one, else (False,)."""
    test = keeper(op.variant)
    is_all = op.name == "all"
    out_flow = flow.all(test) if is_all else flow.any(test)
    if expect.order != "list":
        return out_flow, replace(unknown(expect, expect.ends | {COMPLETE}), most=1)
    for v in expect.values:
        if bool(test(v)) != is_all:
            return out_flow, Expect((not is_all,), frozenset({COMPLETE}), most=1)
    if COMPLETE in expect.ends:
        return out_flow, Expect((is_all,), expect.ends, most=1)
    return out_flow, Expect((), expect.ends, most=1)


CELLS: tuple[Cell, ...] = (
    Cell("take_last", relays),
    Cell("count", relays),
    Cell("element_at", _element_at),
    Cell("all", _all_any),
    Cell("any", _all_any),
)
