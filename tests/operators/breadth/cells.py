"""The breadth family's pipeline-machine cells (``operators/_breadth.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    INNER_PROBLEMS,
    Builder,
    Expect,
    Model,
    OpSpec,
    UserFault,
    key_of,
    pick_target,
    stable,
    unknown,
)

from reactive_streams.flow import Flow

from ..recover.cells import recovery


def _relay(op: OpSpec, flow: Flow[Any], expect: Expect) -> tuple[Flow[Any], Expect]:
    """distinct / distinct_until_changed (key: the value, or a coarse one for variant
    a): first occurrences / runs collapsed; skip_while: the prefix dropped; skip_last(n):
    v[:-n]; take_last(n): v[-n:] at completion; count: (len(v),). Off a list model
    each output is a subsequence of its input (count: one element at most)."""
    name = op.name
    n = op.k
    coarse = op.variant == "a"

    def key(x: Any) -> Any:
        return stable(x) % 3 if coarse else key_of(x)

    values = expect.values
    if name in ("take_last", "count") and COMPLETE not in expect.ends:
        values = ()  # their one emission comes at completion: none on an error
    out_flow: Flow[Any]
    if name == "distinct":
        out_flow = flow.distinct(key)
        seen: set[Any] = set()
        kept = []
        for v in values:
            if key(v) not in seen:
                seen.add(key(v))
                kept.append(v)
        out = tuple(kept)
    elif name == "distinct_until_changed":
        out_flow = flow.distinct_until_changed(key)
        out = tuple(v for i, v in enumerate(values) if i == 0 or key(values[i - 1]) != key(v))
    elif name == "skip_while":
        target = pick_target(expect, op.fault)  # dropped up to this one (None: all)
        stop = key_of(target) if target is not None else None
        out_flow = flow.skip_while(lambda x: key_of(x) != stop)
        keys = [key_of(v) for v in values]
        out = values[keys.index(stop) :] if stop in keys else ()
    elif name == "skip_last":
        out_flow = flow.skip_last(n)
        out = values[: max(0, len(values) - n)]
    elif name == "take_last":
        out_flow = flow.take_last(n)
        out = values[max(0, len(values) - n) :] if n else ()
        most = n if expect.most is None else min(n, expect.most)
        if expect.order == "list":
            return out_flow, replace(expect, values=out, count=None, most=most)
        count = None if expect.count is None else min(n, expect.count)
        return out_flow, replace(expect, count=count, most=most)
    else:
        out_flow = flow.count()
        if expect.order == "list":
            out = (len(values),) if COMPLETE in expect.ends else ()
            return out_flow, replace(expect, values=out, count=None, most=1)
        if expect.order == "bag" and expect.count is not None:
            return out_flow, replace(expect, values=(expect.count,), order="list", count=None)
        return out_flow, unknown(expect, expect.ends)
    if expect.order == "list":
        return out_flow, replace(expect, values=out, count=None)
    return out_flow, replace(expect, count=None)


def relays(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return _relay(op, flow, expect)


def _do_on_error(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """The same; a raising action turns every error into its UserFault."""
    seen: list[str] = []
    fault = op.fault is not None

    def action(error: BaseException) -> None:
        seen.append(type(error).__name__)
        if fault:
            raise UserFault("do_on_error")

    if not fault:
        return flow.do_on_error(action), expect
    errors = expect.ends - {COMPLETE}
    ends = (expect.ends - errors) | ({"UserFault"} if errors else set())
    out = replace(expect, ends=frozenset(ends))
    return flow.do_on_error(action), out.cut_in("UserFault") if expect.anytime else out


def _do_on_complete(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """The same; a raising action turns the completion into its UserFault."""
    fault = op.fault is not None

    def action() -> None:
        if fault:
            raise UserFault("do_on_complete")

    if not fault or COMPLETE not in expect.ends:
        return flow.do_on_complete(action), expect
    ends = (expect.ends - {COMPLETE}) | {"UserFault"}
    return flow.do_on_complete(action), replace(expect, ends=frozenset(ends), count=None)


def _do_finally(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """The same (the action's fault is logged); it runs once per subscription (checked
    at its call: a retry downstream subscribes again)."""
    fault = op.fault is not None

    def subscribed() -> Flow[Any]:
        calls: list[int] = []

        def action() -> None:
            calls.append(1)
            if len(calls) > 1:
                INNER_PROBLEMS.append(f"do_finally ran {len(calls)} times")
            if fault:
                raise UserFault("do_finally")

        return flow.do_finally(action)

    return Flow.defer(subscribed), expect


def _ignore_elements(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return flow.ignore_elements(), Expect((), expect.ends, anytime=expect.anytime)


CELLS: tuple[Cell, ...] = (
    Cell("on_error_complete", recovery),
    Cell("do_on_error", _do_on_error),
    Cell("do_on_complete", _do_on_complete),
    Cell("do_finally", _do_finally),
    Cell("ignore_elements", _ignore_elements),
    Cell("distinct", relays),
    Cell("distinct_until_changed", relays),
    Cell("skip_while", relays),
    Cell("skip_last", relays),
)
