"""The flat_map family's pipeline-machine cells (``operators/_flat_map.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    MAPPER_NOT_PUBLISHER,
    Builder,
    Expect,
    LyingItems,
    Model,
    OpSpec,
    SubscribeRaises,
    ThreadedInner,
    UserFault,
    complete_if,
    failing_iter,
    inner_fail,
    inner_values,
    key_of,
    overtaking,
    pick_target,
    stable,
)

from reactive_streams import from_iterable
from reactive_streams.api import Publisher
from reactive_streams.flow import Flow
from reactive_streams.sources import IterablePublisher


def _merge(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    other_values = [("o", j) for j in range(op.other)]
    ex = machine.new_executor("merge-other") if op.manual else None
    fails = op.variant == "c"
    other: Publisher[Any]
    if fails:
        other = IterablePublisher(lambda: failing_iter(other_values), executor=ex)
    else:
        other = from_iterable(other_values, executor=ex)
    other_end = "SourceFailure" if fails else COMPLETE
    if op.name == "merge_with":  # the method form: the default prefetch
        merged = flow.merge_with(other)
    else:
        merged = Flow.merge(flow, other, prefetch=op.k + 1)
    if expect.order == "none":  # the other's elements come on top of the bound
        bound = None if expect.most is None else expect.most + len(other_values)
        return merged, replace(
            expect, ends=expect.ends | {other_end} - complete_if(fails), most=bound
        )
    ends = (expect.ends - {COMPLETE}) | ({other_end} if fails else set())
    if COMPLETE in expect.ends and not fails:
        ends = ends | {COMPLETE}
    count = None
    if expect.count is not None and expect.order != "subseq":
        count = expect.count + len(other_values)
    order = "subseq" if expect.order == "subseq" else "bag"
    vals = expect.values + tuple(other_values)
    if order == "subseq":  # the other's elements interleave anywhere: model as a bag
        order = "bag"
    return merged, Expect(vals, frozenset(ends), order, count)


def _flat_map(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """Inners: ``inner_values(x)``, synchronous, ``just``/``empty`` (fused kinds), on
    a ManualExecutor or on threads of their own (``ThreadedInner``); the mapper may
    raise, return a non-publisher, or an inner fail (or its ``subscribe`` raise)."""
    ex = machine.new_executor("inners") if op.manual else None
    target = pick_target(expect, op.fault)
    how = op.variant  # a: the mapper raises; b: returns no inner source; c: the inner fails
    key = key_of(target) if target is not None else None

    threaded = op.inner == "thread"
    if threaded:
        machine.coverage_extra.add("inner-thread")
    if op.inner == "raises" and how == "c" and target is not None:
        machine.coverage_extra.add("inner-subscribe-raises")
    lies = op.inner == "plain" and ex is None  # multi-element inners are LyingItems
    if lies:
        machine.coverage_extra.add("inner-answer-lies")

    def mapper(x: Any) -> Any:
        values = inner_values(x, how)
        if key is not None and key_of(x) == key:
            if how == "a":
                raise UserFault(f"mapper on {x!r}")
            if how == "b":
                return object()  # no Publisher, iterable or awaitable: a clear error
            if op.inner == "raises":
                return SubscribeRaises()  # rule 1.9: on_error, its elements never come
            return IterablePublisher(lambda: inner_fail(values), executor=ex)
        if threaded:
            return ThreadedInner(values)
        if ex is not None:
            return from_iterable(values, executor=ex, batch_size=1)  # a task per element
        if lies and stable(("list", x)) % 2:
            return values  # the list itself: taken whole, or pulled (flatMapIterable)
        if len(values) == 1:
            return Flow.just(values[0])
        if not values:
            return Flow.empty()
        if lies:  # a third party's fusion answer whose len() lies
            return LyingItems(values)
        return Flow.from_iterable(values)

    concat = op.name == "concat_map"
    prefetch = 1 + op.k // 2  # often below the inner's length: replenishment runs
    if concat:
        out_flow = flow.concat_map(mapper, prefetch)
    else:
        out_flow = flow.flat_map(mapper, 1 + op.other, prefetch)
    error = {"a": frozenset({"UserFault"}), "b": MAPPER_NOT_PUBLISHER}.get(
        how, frozenset({"InnerFailure"})
    )
    order = "list" if concat and expect.order == "list" else "bag"
    if expect.order == "none":
        out = replace(expect, most=None)  # an element may become several inner ones
        return out_flow, replace(out, ends=out.ends | error) if target is not None else out
    keys = [key_of(v) for v in expect.values]
    if key is not None and expect.order == "list":
        i = keys.index(key)
        before = expect.values[:i]
        inner = tuple(y for v in before for y in inner_values(v, how))
        if how == "c" and op.inner != "raises":  # SubscribeRaises: its values never come
            inner += tuple(inner_values(target, how))
        if how == "c" and not concat:  # later inners run beside the failing one: a bag
            inner = tuple(y for v in expect.values for y in inner_values(v, how))
        ends = error | (expect.ends - {COMPLETE})  # an earlier failure may come first
        if order == "list":
            return out_flow, Expect(inner, ends)
        return out_flow, Expect(inner, ends, "bag", None)
    all_inner = tuple(y for v in expect.values for y in inner_values(v, how))
    count = None
    if expect.count == len(expect.values) and expect.order != "subseq":
        count = len(all_inner)
    ends = expect.ends | (error if target is not None else frozenset())
    if order == "list":
        return out_flow, Expect(all_inner, ends)
    return out_flow, Expect(all_inner, ends, "bag", count if target is None else None)


def _eager(op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder) -> Model:
    """flat_map/concat_map: errors are eager (docs/operators.md: everything cancelled), so
    an upstream's or the mapper's error may overtake inner values not yet emitted: they
    cut in. A concat_map inner's own failure comes after the values before it."""
    out_flow, out = _flat_map(op, flow, expect, machine)
    cut = expect.ends - {COMPLETE}
    if not (op.name == "concat_map" and op.variant == "c"):
        cut |= out.ends - expect.ends - {COMPLETE}
    return out_flow, overtaking(out, cut)


CELLS: tuple[Cell, ...] = (
    Cell("flat_map", _eager, interleaved=True),
    Cell("concat_map", _eager),
    Cell("merge", _merge),
    Cell("merge_with", _merge),
)
