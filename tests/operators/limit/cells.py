"""The limit family's pipeline-machine cells (``operators/_limit.py``): how the machine
(``stateful/test_pipeline_machine.py``) builds each operator and models its output."""

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
    key_of,
    pick_target,
)

from reactive_streams.flow import Flow


def _take(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    n = op.k
    most = n if expect.most is None else min(n, expect.most)
    if listy:
        head = expect.values[:n]
        ends = frozenset({COMPLETE}) if len(expect.values) >= n else expect.ends
        return flow.take(n), Expect(head, ends, most=most)
    count = None
    if expect.count is not None:
        count = min(n, expect.count)
    return flow.take(n), replace(expect, ends=expect.ends | {COMPLETE}, count=count, most=most)


def _skip(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    n = op.k
    if listy:
        return flow.skip(n), replace(expect, values=expect.values[n:], count=None)
    return flow.skip(n), expect.degrade()


def _take_while(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    target = pick_target(expect, op.fault)  # the first element that fails the test
    if not listy:
        return flow.take_while(lambda x: True), expect
    if target is None:
        return flow.take_while(lambda x: True), expect
    i = [key_of(v) for v in expect.values].index(key_of(target))
    key = key_of(target)
    return flow.take_while(lambda x: key_of(x) != key), Expect(
        expect.values[:i], frozenset({COMPLETE})
    )


CELLS: tuple[Cell, ...] = (
    Cell("take", _take, interleaved=True),
    Cell("skip", _skip),
    Cell("take_while", _take_while),
)
