"""The pipeline machine's cells of ``take_until`` and ``skip_until`` (operators/_until.py).
The other publisher: ``never()`` (variant a), one element on an executor of the machine
(b: it fires at a drawn moment), or ``empty()`` (c: it fires at subscription)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import COMPLETE, Builder, Expect, Model, OpSpec, lossy

from reactive_streams import from_iterable
from reactive_streams.api import Publisher
from reactive_streams.flow import Flow


def _other(op: OpSpec, m: Builder) -> Publisher[Any]:
    if op.variant == "a":
        return Flow.never()
    if op.variant == "b":
        return from_iterable([("u", 0)], executor=m.new_executor("until-other"))
    return Flow.empty()


def take_until(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """a: the flow itself; b: a prefix, then completion at any moment; c: empty, complete
    (the flow is never subscribed)."""
    out_flow = flow.take_until(_other(op, m), prefetch=op.k + 1)
    if op.variant == "a":
        return out_flow, expect
    if op.variant == "c":
        return out_flow, Expect((), frozenset({COMPLETE}))
    return out_flow, replace(lossy(expect), ends=expect.ends | {COMPLETE}, keeps_last=False)


def skip_until(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """a: every element dropped, the end passes; b: a suffix; c: the flow itself."""
    out_flow = flow.skip_until(_other(op, m), prefetch=op.k + 1)
    if op.variant == "c":
        return out_flow, expect
    if op.variant == "a":
        return out_flow, Expect((), expect.ends, "list", anytime=expect.anytime)
    return out_flow, replace(lossy(expect), keeps_last=False)


CELLS = (Cell("take_until", take_until), Cell("skip_until", skip_until))
