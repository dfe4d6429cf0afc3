"""The pipeline machine's cells of ``first_element``, ``last_element`` and ``single``
(operators/_pick.py): one element, or the default (variant a), ``IndexError`` on an empty
flow, ``single``'s ``ValueError`` at a second element."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import COMPLETE, Builder, Expect, Model, OpSpec, exact

from reactive_streams.flow import Flow

_SHORT = frozenset({"IndexError"})


def _build(op: OpSpec, flow: Flow[Any]) -> tuple[Flow[Any], tuple[Any, ...]]:
    default = ("d", op.k)
    if op.variant == "a":
        return getattr(flow, op.name)(default), (default,)
    return getattr(flow, op.name)(), ()


def _empty(expect: Expect, default: tuple[Any, ...]) -> Expect:
    """The flow ended without an element: its error, or the default / IndexError."""
    if COMPLETE not in expect.ends:
        return Expect((), expect.ends, most=1)
    return Expect(default, (expect.ends - {COMPLETE}) | (_SHORT if not default else {COMPLETE}))


def _vague(expect: Expect) -> Expect:
    ends = expect.ends | {COMPLETE, "IndexError", "ValueError"}
    return Expect((), frozenset(ends), "none", most=1, anytime=expect.anytime)


def first_element(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """values[0] then complete (upstream cancelled); empty: the default or IndexError."""
    out_flow, default = _build(op, flow)
    if expect.order != "list":
        return out_flow, _vague(expect)
    if expect.values:
        return out_flow, Expect((expect.values[0],), frozenset({COMPLETE}), most=1)
    return out_flow, _empty(expect, default)


def last_element(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """values[-1] at completion; an error passes on; empty: the default or IndexError."""
    out_flow, default = _build(op, flow)
    if not exact(expect):
        return out_flow, _vague(expect)
    if COMPLETE not in expect.ends:
        return out_flow, Expect((), expect.ends, most=1)
    if expect.values:
        return out_flow, Expect((expect.values[-1],), expect.ends, most=1)
    return out_flow, _empty(expect, default)


def single(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """A second element: ValueError (upstream cancelled); one: it, at completion."""
    out_flow, default = _build(op, flow)
    if expect.order == "list" and len(expect.values) > 1:
        return out_flow, Expect((), frozenset({"ValueError"}), most=1)
    if not exact(expect):
        return out_flow, _vague(expect)
    if COMPLETE not in expect.ends:
        return out_flow, Expect((), expect.ends, most=1)
    if expect.values:
        return out_flow, Expect(expect.values, expect.ends, most=1)
    return out_flow, _empty(expect, default)


CELLS = (
    Cell("first_element", first_element),
    Cell("last_element", last_element),
    Cell("single", single),
)
