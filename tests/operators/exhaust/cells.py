"""The pipeline machine's cell of ``exhaust_map`` (operators/_exhaust.py): synchronous
inners (flat_map's ``inner_values``); an element arriving while the previous inner still
holds elements is dropped (variants b, c ask one element at a time, ``limit_rate(1)``, so
inners do hold some, and start with a burst of two long inners, whose first comes first),
so the output is whole inners, in order: checked at each element, and the values are a
subsequence of all inners'."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    INNER_PROBLEMS,
    Builder,
    Expect,
    Model,
    OpSpec,
    inner_values,
    key_of,
    lossy,
    unknown,
)

from reactive_streams.flow import Flow


def _whole_inners(salt: str, first: str | None = None) -> tuple[Any, Any]:
    """Checkers of each element and of the completion: a new inner starts only after the
    previous one was delivered whole (an inner cut short is a problem at once), and the
    last one was whole at completion; ``first``: the key every output must start with
    (the first element's inner is never dropped, so one cancelled before it delivered
    anything shows too)."""
    pending: list[str] = []
    due = [first] if first is not None else []

    def ended() -> None:
        if pending:
            INNER_PROBLEMS.append(f"exhaust_map: completed, the inner's {pending} never came")

    def check(item: Any) -> None:
        key = key_of(item)
        if due and due.pop() != key:
            INNER_PROBLEMS.append(f"exhaust_map: {item!r} first, the first inner starts {first}")
        if pending:
            if key != pending[0]:
                INNER_PROBLEMS.append(f"exhaust_map: {item!r} before the inner's {pending[0]}")
            pending.pop(0)
            return
        block = [key_of(v) for v in inner_values(item[1], salt)]
        if not block or block[0] != key:
            INNER_PROBLEMS.append(f"exhaust_map: {item!r} does not start an inner")
            return
        pending.extend(block[1:])

    return check, ended


def _burst(salt: str) -> tuple[int, ...]:
    """Two values no source makes whose inners hold 2 or 3 elements: the second arrives
    while the first's inner still holds some (upstream's lists are often short or empty)."""
    return tuple(v for v in range(1000, 1100) if len(inner_values(v, salt)) >= 2)[:2]


def exhaust_map(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    salt = op.variant
    first = None
    if op.variant != "a" and expect.order != "none":  # a burst first (see _burst)
        burst = _burst(salt)
        first = key_of(inner_values(burst[0], salt)[0])
        flow = flow.start_with(*burst)
        most = None if expect.most is None else expect.most + len(burst)
        expect = replace(expect, values=(*burst, *expect.values), most=most)
    out_flow = flow.exhaust_map(lambda x: inner_values(x, salt), prefetch=op.k + 1)
    if op.variant != "a":  # demand one at a time: an inner holds elements, others drop
        out_flow = out_flow.limit_rate(1)
    check, ended = _whole_inners(salt, first)
    out_flow = out_flow.do_on_next(check).do_on_complete(ended)
    if expect.order == "none":
        return out_flow, unknown(expect, expect.ends)
    values = tuple(v for x in expect.values for v in inner_values(x, salt))
    out = replace(lossy(expect), values=values, order="subseq", most=None, keeps_last=False)
    return out_flow, out


CELLS = (Cell("exhaust_map", exhaust_map),)
