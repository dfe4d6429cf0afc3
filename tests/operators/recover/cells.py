"""The recover family's pipeline-machine cells (``operators/_recover.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from collections.abc import Callable
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
    UserFault,
    cut_at,
    exact,
    pick_target,
    raising_on,
    unknown,
)

from reactive_streams import ManualExecutor, from_iterable
from reactive_streams.flow import Flow
from reactive_streams.operators import Backoff


def failing_upstream(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect, Callable[[Flow[Any]], Flow[Any]]]:
    """retry's upstream when it would complete (a pass-through otherwise): it fails
    itself (a map raising on the fault-th element, or an error after its last), so every
    attempt fails after the same prefix P; and what to put after retry: a
    limit_rate(other + 2), its demand bounded whatever the subscriber asks (``manual``:
    nothing, the subscriber's own demand, unbounded included). The demand then spans
    attempts: each resubscription must be asked for the part not yet delivered, not
    all of it again (rule 1.1: P * (k + 1) elements may exceed what was requested)."""
    if not exact(expect) or COMPLETE not in expect.ends or machine.stages:
        return flow, expect, lambda out: out
    target = pick_target(expect, op.fault)
    if target is not None:
        _, cut = cut_at(expect, target, "UserFault")
        flow = flow.map(raising_on(target, lambda x: x))
    else:
        cut = Expect(expect.values, frozenset({"UserFault"}))
        flow = flow.concat_with(Flow.error(UserFault("after the upstream's last element")))
    if op.manual:
        return flow, cut, lambda out: out
    return flow, cut, lambda out: out.limit_rate(op.other + 2)


def recovery(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """retry(k) (variant c: with a backoff on the virtual clock): an end by error E
    after P (the same on every attempt: a cold upstream) gives P * (k + 1), then E; an
    upstream that would complete fails itself (``failing_upstream``).
    on_error_resume(g): P + g's values, then complete.
    on_error_return(v): P + (v,), then complete. on_error_complete: P, then complete."""
    name = op.name
    failed = COMPLETE not in expect.ends
    if name == "retry":
        flow, expect, bounded = failing_upstream(op, flow, expect, machine)
        clock = machine.new_executor("timer") if op.variant == "c" else None
        if isinstance(clock, ManualExecutor):  # a backoff on the virtual clock
            out_flow = flow.retry(op.k, backoff=Backoff(0.5, 2.0, 1.0), scheduler=clock)
        else:
            out_flow = flow.retry(op.k)
        out_flow = bounded(out_flow)
        if expect.ends == frozenset({COMPLETE}) and not expect.anytime:
            return out_flow, expect
        if exact(expect) and not machine.stages:  # a hot stage upstream is not replayed
            out = replace(expect, values=expect.values * (op.k + 1), count=None, most=None)
            return out_flow, out
        return out_flow, unknown(expect, expect.ends | {COMPLETE})
    tail: tuple[Any, ...] = ()
    if name == "on_error_resume" and op.inner == "raises":  # the fallback's subscribe raises
        machine.coverage_extra.add("fallback-subscribe-raises")
        out_flow = flow.on_error_resume(lambda e: SubscribeRaises())
        if expect.ends == frozenset({COMPLETE}) and not expect.anytime:
            return out_flow, expect
        if exact(expect) and failed:  # rule 1.9: its raise is the stream's error
            return out_flow, Expect(expect.values, frozenset({"InnerFailure"}))
        return out_flow, unknown(expect, (expect.ends & {COMPLETE}) | {"InnerFailure"})
    if name == "on_error_resume":
        tail = tuple(("r", j) for j in range(op.other))
        ex = machine.new_executor("resume") if op.manual else None
        out_flow = flow.on_error_resume(lambda e: from_iterable(list(tail), executor=ex))
    elif name == "on_error_return":
        tail = (("e", op.k),)
        out_flow = flow.on_error_return(tail[0])
    else:
        out_flow = flow.on_error_complete()
    done = frozenset({COMPLETE})
    if expect.ends == done and not expect.anytime:
        return out_flow, expect
    if exact(expect) and failed:
        return out_flow, Expect(expect.values + tail, done)
    return out_flow, unknown(expect, done)


def _retry_when(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """retry_when(attempt <= k): retry(k)'s model, its upstream failing alike."""
    _, out = recovery(replace(op, name="retry"), flow, expect, m)
    flow, _, bounded = failing_upstream(op, flow, expect, m)
    times = op.k
    return bounded(flow.retry_when(lambda e, attempt: attempt <= times)), out


def _joining(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """concat_with(o): the values, then o's once they completed. start_with(*items):
    items, then the values. default_if_empty(v): the values, or (v,) when none."""
    name = op.name
    if name == "concat_with":
        tail = tuple(("c", j) for j in range(op.other))
        ex = machine.new_executor("concat-other") if op.manual else None
        out_flow = flow.concat_with(from_iterable(list(tail), executor=ex))
        if COMPLETE not in expect.ends:  # an error ends it before the other starts
            return out_flow, expect
        most = None if expect.most is None else expect.most + len(tail)
        if expect.order == "list":
            return out_flow, replace(expect, values=expect.values + tail, count=None, most=most)
        count = None if expect.count is None else expect.count + len(tail)
        return out_flow, replace(expect, values=expect.values + tail, count=count, most=most)
    if name == "start_with":
        head = tuple(("s", j) for j in range(op.k))
        out_flow = flow.start_with(*head)
        most = None if expect.most is None else expect.most + len(head)
        if expect.order in ("list", "subseq"):
            return out_flow, replace(expect, values=head + expect.values, count=None, most=most)
        count = None if expect.count is None else expect.count + len(head)
        return out_flow, replace(expect, values=head + expect.values, count=count, most=most)
    fallback = ("d", op.k)
    out_flow = flow.default_if_empty(fallback)
    most = None if expect.most is None else max(expect.most, 1)
    if COMPLETE not in expect.ends:
        return out_flow, expect
    if expect.order == "list":
        values = expect.values or (fallback,)
        return out_flow, replace(expect, values=values, count=None, most=most)
    if expect.order == "bag" and expect.count is not None and expect.count > 0:
        return out_flow, expect
    return out_flow, replace(expect, values=(*expect.values, fallback), count=None, most=most)


def _switch_if_empty(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """The values, or the other's when none came before completion."""
    if op.inner == "raises":  # the other's subscribe raises: its error (rule 1.9)
        m.coverage_extra.add("fallback-subscribe-raises")
        raising = flow.switch_if_empty(SubscribeRaises())
        if COMPLETE not in expect.ends:
            return raising, expect
        if exact(expect):
            return raising, expect if expect.values else Expect((), frozenset({"InnerFailure"}))
        return raising, unknown(expect, expect.ends | {"InnerFailure"})
    tail = tuple(("w", j) for j in range(op.other))
    ex = m.new_executor("switch-other") if op.manual else None
    out_flow = flow.switch_if_empty(from_iterable(list(tail), executor=ex))
    if COMPLETE not in expect.ends:
        return out_flow, expect
    # an empty completion switches: the other's elements are due too (take(0) bounds none)
    most = None if expect.most is None else max(expect.most, len(tail))
    if expect.order == "list":
        return out_flow, replace(expect, values=expect.values or tail, count=None, most=most)
    return out_flow, unknown(expect, expect.ends)


def _defer(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return Flow.defer(lambda: flow), expect


CELLS: tuple[Cell, ...] = (
    Cell("retry", recovery),
    Cell("on_error_resume", recovery),
    Cell("on_error_return", recovery),
    Cell("retry_when", _retry_when),
    Cell("concat_with", _joining),
    Cell("start_with", _joining),
    Cell("default_if_empty", _joining),
    Cell("switch_if_empty", _switch_if_empty),
    Cell("defer", _defer),
)
