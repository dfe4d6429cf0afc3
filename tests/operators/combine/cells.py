"""The combine family's pipeline-machine cells (``operators/_combine.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from collections.abc import Callable
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
    key_of,
    other_source,
    unknown,
)

from reactive_streams.flow import Flow


def _combine_latest(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Pairs (a, b) of a value and an other's value, at most n + m - 1 of them; the
    first coordinates in order (a subsequence of the values), the seconds too."""
    other, theirs = other_source(op, m, "cl")
    if op.name == "combine_latest_with":  # the method form: the default prefetch
        out_flow = flow.combine_latest_with(other)
    else:
        out_flow = Flow.combine_latest(flow, other, prefetch=op.k + 1)
    combined = out_flow
    # a fresh checker per subscription: a repeat downstream sees the pairs again
    out_flow = Flow.defer(lambda: combined.do_on_next(_monotone_pairs(expect.values, theirs)))
    ends = expect.ends | ({COMPLETE} if not theirs else set())
    if expect.order != "list":
        return out_flow, unknown(expect, ends)
    pairs = tuple((a, b) for a in expect.values for b in theirs)
    most = max(0, len(expect.values) + len(theirs) - 1)
    return out_flow, Expect(pairs, frozenset(ends), "bag", most=most, anytime=expect.anytime)


def _monotone_pairs(mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> Callable[[Any], None]:
    """combine_latest's pairs: each coordinate moves forward only, one at a time."""
    index_a = {key_of(v): i for i, v in enumerate(mine)}
    index_b = {key_of(v): i for i, v in enumerate(theirs)}
    last: list[tuple[int, int]] = []

    def check(pair: Any) -> None:
        a, b = index_a.get(key_of(pair[0]), -1), index_b.get(key_of(pair[1]), -1)
        if last and (a < last[-1][0] or b < last[-1][1] or (a, b) == last[-1]):
            INNER_PROBLEMS.append(f"combine_latest: {pair!r} after {last[-1]!r} (indexes)")
        last.append((a, b))

    return check


def _with_latest_from(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """A synchronous other is subscribed (and current) first: (a, its last value) for
    each value; no value without one. On an executor: pairs with any of its values."""
    other, theirs = other_source(op, m, "wl")
    out_flow = flow.with_latest_from(other, prefetch=op.k + 1)
    if not theirs:
        return out_flow, Expect((), expect.ends, anytime=expect.anytime)
    if expect.order == "list" and not op.manual:
        pairs = tuple((a, theirs[-1]) for a in expect.values)
        return out_flow, replace(expect, values=pairs, count=None)
    if expect.order == "list":
        pairs = tuple((a, b) for a in expect.values for b in theirs)
        return out_flow, Expect(pairs, expect.ends, "bag", most=len(expect.values))
    return out_flow, unknown(expect, expect.ends)


CELLS: tuple[Cell, ...] = (
    Cell("combine_latest", _combine_latest),
    Cell("combine_latest_with", _combine_latest),
    Cell("with_latest_from", _with_latest_from),
)
