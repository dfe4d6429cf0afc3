"""The zip family's pipeline-machine cells (``operators/_zip.py``):
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
    SubscribeRaises,
    ThreadedInner,
)

from reactive_streams import from_iterable
from reactive_streams.api import Publisher
from reactive_streams.flow import Flow


def _zip(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    other_values = [("z", j) for j in range(op.other)]
    ex = machine.new_executor("zip-other") if op.manual else None
    zip_other: Publisher[Any] = from_iterable(other_values, executor=ex)
    if op.inner == "raises":
        machine.coverage_extra.add("inner-subscribe-raises")
        zipped = flow.zip_with(SubscribeRaises(), prefetch=op.k + 1)
        # no row ever; the source may end first (then the other is never subscribed)
        return zipped, Expect((), expect.ends | {"InnerFailure"})
    if op.inner == "thread":
        machine.coverage_extra.add("inner-thread")
        zip_other = ThreadedInner(other_values)
    if op.variant == "c":  # the static form
        zipped = Flow.zip(flow, zip_other, prefetch=op.k + 1)
    else:
        zipped = flow.zip_with(zip_other, prefetch=op.k + 1)
    if not listy:
        return zipped, replace(expect.degrade(), ends=expect.ends | {COMPLETE})
    n, m = len(expect.values), len(other_values)
    pairs = tuple(zip(expect.values, other_values, strict=False))
    ends = expect.ends if n < m else expect.ends | {COMPLETE}
    # a source's error is signalled at once, before the rows its queued elements make
    return zipped, Expect(pairs, frozenset(ends), anytime=expect.ends - {COMPLETE})


CELLS: tuple[Cell, ...] = (Cell("zip", _zip, interleaved=True),)
