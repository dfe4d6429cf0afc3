"""The pipeline machine's cells of ``repeat`` and ``repeat_when`` (operators/_repeat.py):
a cold upstream that completes after V gives V * (k + 1); an error passes on at once."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import COMPLETE, Builder, Expect, Model, OpSpec, exact, unknown

from reactive_streams.flow import Flow


def _repeated(op: OpSpec, expect: Expect, m: Builder) -> Expect:
    if COMPLETE not in expect.ends and not expect.anytime:
        return expect  # an error passes on at once: nothing is repeated
    if exact(expect) and not m.stages:  # a hot stage upstream is not replayed
        return replace(expect, values=expect.values * (op.k + 1), count=None, most=None)
    return unknown(expect, expect.ends)


def repeat(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """repeat(k): k + 1 subscriptions in all; variant b: of a flow that starts with an
    element (upstream's lists are often empty, and an empty list repeated shows nothing)."""
    if op.variant == "b" and exact(expect) and not m.stages:
        flow = flow.start_with(1000)
        expect = replace(expect, values=(1000, *expect.values), count=None)
    return flow.repeat(op.k), _repeated(op, expect, m)


def repeat_when(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """repeat_when(completions <= k): repeat(k)'s model."""
    times = op.k
    return flow.repeat_when(lambda completions: completions <= times), _repeated(op, expect, m)


CELLS = (Cell("repeat", repeat), Cell("repeat_when", repeat_when))
