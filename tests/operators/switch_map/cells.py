"""The switch_map family's pipeline-machine cells (``operators/_switch_map.py``):
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
    UserFault,
    key_of,
    pick_target,
    stable,
    unknown,
)

from reactive_streams import from_iterable
from reactive_streams.flow import Flow


def _switch_map(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Inners of 1 to 3 values (``_switched``): a subsequence of their concatenation (a
    newer element drops what the former inner has not delivered); at completion the last
    inner's values all came. But for variant c the inner's prefetch covers it (it completes
    before it is drained). The mapper raises on the fault-th element (UserFault)."""
    target = pick_target(expect, op.fault)
    key = key_of(target) if target is not None else None
    ex = m.new_executor("inners") if op.manual else None

    def mapper(x: Any) -> Any:
        if key is not None and key_of(x) == key:
            raise UserFault(f"switch_map on {x!r}")
        values = _switched(x)
        if ex is not None:
            return from_iterable(values, executor=ex, batch_size=1)
        return Flow.from_iterable(values)

    out_flow = flow.switch_map(mapper, prefetch=1 + op.k // 2 if op.variant == "c" else 4)
    if expect.order != "list":
        ends = expect.ends | ({"UserFault"} if target is not None else set())
        return out_flow, replace(unknown(expect, ends), order="none")
    values = expect.values
    ends = expect.ends
    if key is not None:
        values = values[: [key_of(v) for v in values].index(key)]
        ends = (ends - {COMPLETE}) | {"UserFault"}
    inner = tuple(y for v in values for y in _switched(v))
    return out_flow, Expect(inner, ends, "subseq", keeps_last=True, anytime=expect.anytime)


def _switched(x: Any) -> list[Any]:
    """switch_map's inner values for ``x``: 1 to 3 of them."""
    return [("s", x, j) for j in range(1 + stable(("s", x)) % 3)]


CELLS: tuple[Cell, ...] = (Cell("switch_map", _switch_map, keeps_last=True),)
