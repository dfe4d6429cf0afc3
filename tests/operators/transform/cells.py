"""The transform family's pipeline-machine cells (``operators/_transform.py``): how the machine
(``stateful/test_pipeline_machine.py``) builds each operator and models its output."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    Builder,
    Expect,
    Model,
    OpSpec,
    UserFault,
    cut_at,
    keeper,
    key_of,
    map_model,
    pick_target,
    raising_on,
    tag,
)

from reactive_streams.flow import Flow


def _map(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    target = pick_target(expect, op.fault)
    return flow.map(raising_on(target, tag)), map_model(expect, tag, target)


def bounded(op: OpSpec, out: Flow[Any]) -> Flow[Any]:
    """What a dropping stage's output goes through: a limit_rate of 1 or 2, so the
    demand it sees stays bounded (and below the source's length) whatever the
    subscriber asks: each drop must be replaced upstream (rule 1.1) or the stream stalls
    short of what was requested. ``manual``: nothing, the subscriber's own demand."""
    return out if op.manual else out.limit_rate(1 + op.other % 2)


def _filter(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    """filter, behind ``bounded``; with an even ``k``, after a dropped and a kept element
    (upstream's lists are often short: a drop under bounded demand must be met)."""
    if op.k % 2 == 0 and not op.manual and expect.order != "none":
        keep = keeper(op.variant)
        burst = (
            next(v for v in range(1000, 1100) if not keep(v)),
            next(v for v in range(1000, 1100) if keep(v)),
        )
        flow = flow.start_with(*burst)
        count = None if expect.count is None else expect.count + 2
        most = None if expect.most is None else expect.most + 2
        expect = replace(expect, values=(*burst, *expect.values), count=count, most=most)
    built, out = _filter_model(op, flow, expect)
    return bounded(op, built), out


def _filter_model(op: OpSpec, flow: Flow[Any], expect: Expect) -> Model:
    target = pick_target(expect, op.fault)
    keep = keeper(op.variant)
    i, cut = cut_at(expect, target, "UserFault")
    src = cut if i is not None else expect
    kept = tuple(v for v in src.values if keep(v) and (i is not None or v is not target))
    out = replace(src, values=kept, count=len(kept) if src.order == "list" else None)
    if target is not None and i is None and expect.order != "list":
        out = out.with_error("UserFault")
    if expect.order == "bag" and expect.count == len(expect.values):
        out = replace(out, count=len(kept))
    return flow.filter(raising_on(target, keep)), out


def _scan(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    listy = expect.order == "list"
    target = pick_target(expect, op.fault)

    def acc(a: tuple[Any, ...], x: Any) -> tuple[Any, ...]:
        if target is not None and key_of(x) == key_of(target):
            raise UserFault(f"scan on {x!r}")
        return (*a, key_of(x))

    if not listy:
        out = expect.degrade()
        return flow.scan(acc, ()), out.with_error("UserFault") if target is not None else out
    i, cut = cut_at(expect, target, "UserFault")
    src = cut if i is not None else expect
    running: list[Any] = []
    state: tuple[Any, ...] = ()
    for v in src.values:
        state = (*state, key_of(v))
        running.append(state)
    return flow.scan(acc, ()), replace(src, values=tuple(running), count=None)


def _do_on_request(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    calls = itertools.count()
    fault = op.fault

    def action(n: int) -> None:
        if fault is not None and next(calls) == fault:
            raise UserFault(f"do_on_request({n})")

    # the action's fault ends the stream at the request it fails, before any element
    out = expect.cut_in("UserFault") if fault is not None else expect
    return flow.do_on_request(action), out


def _do_on_next(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    target = pick_target(expect, op.fault)
    return flow.do_on_next(raising_on(target, tag)), map_model(expect, lambda v: v, target)


def _do_on_cancel(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    fault = op.fault

    def on_cancel() -> None:
        if fault is not None:
            raise UserFault("do_on_cancel")  # rule 3.15: cancel still returns normally

    return flow.do_on_cancel(on_cancel), expect


def _dropping(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """map_not_none(fn) (None for the values filter's predicate drops) and handle (no
    ``sink.next`` for them): filter's model, the kept values tagged by the function;
    behind ``bounded`` as filter."""
    keep = keeper(op.variant)
    target = pick_target(expect, op.fault)
    _, kept = _filter_model(replace(op, name="filter"), flow, expect)

    def step(x: Any) -> Any:
        return tag(x) if keep(x) else None

    def handle(x: Any, sink: Any) -> None:
        value = step(x)
        if value is not None:
            sink.next(value)

    out = replace(kept, values=tuple(tag(v) for v in kept.values))
    if op.name == "map_not_none":
        return bounded(op, flow.map_not_none(raising_on(target, step))), out
    checked = raising_on(target, lambda x: x)
    return bounded(op, flow.handle(lambda x, sink: handle(checked(x), sink))), out


CELLS: tuple[Cell, ...] = (
    Cell("map", _map, interleaved=True),
    Cell("filter", _filter, interleaved=True),
    Cell("map_not_none", _dropping),
    Cell("handle", _dropping),
    Cell("scan", _scan),
    Cell("do_on_request", _do_on_request),
    Cell("do_on_next", _do_on_next),
    Cell("do_on_cancel", _do_on_cancel),
)
