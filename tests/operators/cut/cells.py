"""The pipeline machine's cells of ``buffer_until``, ``buffer_while`` and
``buffer_until_changed`` (operators/_cut.py), cut by ``keeper``'s predicate or a key
(variant): the lists of a list model, the open one at completion; a drawn fault makes the
predicate or key raise on that element."""

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


def until_changed(values: tuple[Any, ...], key: Any, ended: bool) -> tuple[Any, ...]:
    """The lists of consecutive elements of one key emitted before the end; with
    ``ended``, the open one too."""
    out: list[list[Any]] = []
    current: list[Any] = []
    last: Any = None
    for v in values:
        k = key(v)
        if current and k != last:
            out.append(current)
            current = []
        current.append(v)
        last = k
    if ended and current:
        out.append(current)
    return tuple(out)


def halves(x: Any) -> Any:
    """A key of runs of two over consecutive ints (0 0 1 1 ...; others: ``keeper``'s)."""
    return x // 2 if type(x) is int else keeper("a")(x)


def buffer_until_changed(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Keyed by the item (variant a: the default key), by ``halves`` (b: runs of two over
    a range) or by ``keeper``'s verdict (c: runs of one verdict); a drawn fault makes the
    key raise on that element: the lists closed before it, then the fault."""
    key: Any = {"a": lambda x: x, "b": halves}.get(op.variant) or keeper(op.variant)
    target = pick_target(expect, op.fault)
    fn = raising_on(target, key)
    if op.variant == "a" and target is None:
        out_flow = flow.buffer_until_changed()
    else:
        out_flow = flow.buffer_until_changed(fn)
    i, cut_expect = cut_at(expect, target, "UserFault")
    src = cut_expect if i is not None else expect
    if not exact(src) or (target is not None and i is None):
        ends = expect.ends | ({"UserFault"} if target is not None else set())
        return out_flow, unknown(expect, frozenset(ends))
    # a raised fault (src.ends has no completion) loses the open list
    return out_flow, Expect(until_changed(src.values, key, COMPLETE in src.ends), src.ends)


CELLS = (
    Cell("buffer_until", buffer_until),
    Cell("buffer_while", buffer_while),
    Cell("buffer_until_changed", buffer_until_changed),
)
