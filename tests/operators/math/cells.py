"""The pipeline machine's cells of ``min``, ``max``, ``average``, ``sum`` and ``to_dict``
(operators/_math.py). Keys are ``stable`` (an int per value, any value), so any drawn
element folds; a drawn fault makes the key raise on that element (upstream cancelled)."""

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
    cut_at,
    exact,
    pick_target,
    raising_on,
    stable,
)

from reactive_streams.flow import Flow


def _fold(expect: Expect, target: Any, value: Any) -> Expect:
    """One value at completion (``value(values)``, None: none); an error passes on."""
    i, _ = cut_at(expect, target, "UserFault")
    if i is not None:
        return Expect((), frozenset({"UserFault"}), most=1)
    if not exact(expect) or (target is not None and expect.order != "list"):
        ends = expect.ends | ({"UserFault"} if target is not None else set())
        return Expect((), frozenset(ends), "none", most=1, anytime=expect.anytime)
    if COMPLETE not in expect.ends:
        return Expect((), expect.ends, most=1)
    result = value(expect.values)
    return Expect(() if result is None else (result,), expect.ends, most=1)


def _least(values: tuple[Any, ...], most: bool) -> Any:
    best: Any = None
    for v in values:  # the first of equal keys stays
        if best is None or (stable(v) > stable(best) if most else stable(v) < stable(best)):
            best = v
    return best


def min_(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    target = pick_target(expect, op.fault)
    out_flow = flow.min(key=raising_on(target, stable))
    return out_flow, _fold(expect, target, lambda vs: _least(vs, False))


def max_(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    target = pick_target(expect, op.fault)
    out_flow = flow.max(key=raising_on(target, stable))
    return out_flow, _fold(expect, target, lambda vs: _least(vs, True))


def average(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    target = pick_target(expect, op.fault)
    out_flow = flow.average(key=raising_on(target, stable))
    return out_flow, _fold(
        expect, target, lambda vs: sum(stable(v) for v in vs) / len(vs) if vs else None
    )


def sum_(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """sum of the keys (``map(stable)`` first: values of any type), from ``k``."""
    out_flow = flow.map(stable).sum(op.k)
    return out_flow, _fold(expect, None, lambda vs: op.k + sum(stable(v) for v in vs))


def to_dict(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """{stable(x) % (k + 1): x}, a later element winning its key (insertion order kept);
    variant b: after two elements of one key (upstream's lists are often short)."""
    target = pick_target(expect, op.fault)
    size = op.k + 1

    def key(x: Any) -> int:
        return stable(x) % size

    def fold(values: tuple[Any, ...]) -> dict[int, Any]:
        return {key(v): v for v in values}

    if op.variant == "b" and exact(expect):  # two of one key first: the later must win
        burst = tuple(v for v in range(1001, 1200) if key(v) == key(1000))[:1]
        flow = flow.start_with(1000, *burst)
        count = None if expect.count is None else expect.count + 2
        expect = replace(expect, values=(1000, *burst, *expect.values), count=count)
    return flow.to_dict(raising_on(target, key)), _fold(expect, target, fold)


CELLS = (
    Cell("min", min_),
    Cell("max", max_),
    Cell("average", average),
    Cell("sum", sum_),
    Cell("to_dict", to_dict),
)
