"""State machine over whole pipelines: a source, 1-4 operators, a probe downstream.

Hypothesis draws each pipeline (``initialize``): a source (synchronous, on a
``ManualExecutor``, failing, with a raising user function, or an Rx observable through
the bridge), then one to four operators from the catalogue (``OPERATORS``), multicast
included, with fusion on or off. Rules: the downstream probe requests (valid and
invalid ``n``), cancels, or is armed to request, cancel or raise from inside its next
signal; ``run_task`` runs one queued task of one of the pipeline's executors (the
machine picks the interleaving); ``join``/``leave`` add and remove subscribers of a
multicast stage; ``advance`` moves the virtual clock (``ManualExecutor.advance_by``) of
a timed operator (delay, timeout, debounce: drawn only where forced), whose scheduled
timers count as pending work, and none may be left once the probe stopped (3.13).
flat_map, concat_map and zip also draw inner sources that emit on a thread of their own
(``ThreadedInner``: every call on its subscription is checked for overlap, rule 2.7) and
inner sources whose ``subscribe`` raises (rule 1.9); the coverage table lists them as
``inner-thread`` and ``inner-subscribe-raises``.

Checks after every step:

* every hop's trace (``reactive_streams.tracing``) replayed against the spec's Python
  twins (``TracedMachine``): a hop that breaks a rule fails the step with its rule;
* the probe's own view (``PipeProbe``): serial signals (1.3), demand respected (1.1),
  one terminal (1.7), no ``on_next(None)`` (2.13), nothing once a cancel or fault has
  been observed at rest (1.8, 3.12);
* the value oracle (``Expect``): the delivered values against a plain-Python model of
  the pipeline: lists for map/filter/take/scan/buffer/concat_map/zip, multisets for
  merge/flat_map, subsequences for the dropping strategies; the terminal signal must
  be one the model allows. A lost or duplicated element fails. Issue 24's operators
  come from the ``DRAWN`` table, each with its model: combine_latest's pairs (a bag of
  the product, each coordinate moving forward), with_latest_from's (the synchronous
  other's last value), switch_map (a subsequence of the inners, the last one whole at
  completion), group_by flattened (each value tagged with its key, groups in order),
  and the timed ones checked against the clock (timeout fires only dt after the last
  element, debounce emits only the end of a burst, no batch over n);
* liveness at rest: when no task is queued and a subscriber has outstanding demand,
  it has what it asked for or has terminated; the only excuse is a ``publish`` sibling
  without demand (lockstep).

``test_pipeline_machine`` runs the machine once per operator and fusion setting, with
that operator forced into the pipeline, so the coverage table printed at the end lists
every operator with fusion on and off. ``RS_PIPELINE_EXAMPLES`` sets the examples per
cell (default from the Hypothesis profile: ``ci`` 5, ``mutants`` 12, ``long`` 80).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from reactive_streams import ManualExecutor, from_iterable, generate
from reactive_streams._core import tracer as core_tracing
from reactive_streams.api import Publisher
from reactive_streams.executors import Executor
from reactive_streams.flow import Flow, fusion_enabled, set_fusion
from reactive_streams.multicast import ConnectableFlow, PublishConnection, publish, replay
from reactive_streams.operators import Backoff, SyncSource
from reactive_streams.sources import IterablePublisher, Sink
from reactive_streams.trace.format import Header, read_trace, write_trace
from reactive_streams.trace.invariants import multicast as publish_twin
from reactive_streams.trace.model import Replay, has_call_ends
from reactive_streams.trace.transitions import DONE, MAX_DEMAND
from reactive_streams.trace.validate import prepass
from reactive_streams.tracing import start_tracing

from . import invariants as inv
from .machines import Arm, Probe, SubscriberFault, TracedMachine, arms, request_sizes

# ---------------------------------------------------------------- failures on purpose


class SourceFailure(Exception):
    """The source failed on purpose (rule 1.4)."""


class UserFault(Exception):
    """A user function (mapper, predicate, accumulator, action) raised on purpose."""


class InnerFailure(Exception):
    """An inner publisher of flat_map failed on purpose."""


COMPLETE = "complete"
_MAPPER_NOT_PUBLISHER = frozenset({"TypeError", "AttributeError"})


def _key(value: Any) -> str:
    return repr(value)


def _stable(value: Any) -> int:
    """A hash of ``value`` that does not change between runs."""
    return zlib.crc32(repr(value).encode())


# ------------------------------------------------------------------------ the oracle


@dataclass(frozen=True)
class Expect:
    """What a subscriber may see. ``order``: ``list`` (delivered is a prefix of
    ``values``, all of them at completion), ``bag`` (a sub-multiset), ``subseq`` (a
    subsequence: elements may be dropped), ``none`` (values not modelled). ``ends``:
    the terminal signals allowed (``complete`` or exception class names); ``count``:
    how many elements a completed stream delivered (None: not modelled); ``most``: an
    upper bound on the elements delivered."""

    values: tuple[Any, ...]
    ends: frozenset[str]
    order: str = "list"
    count: int | None = None
    most: int | None = None
    anytime: frozenset[str] = frozenset()  # errors that may cut in at any element
    keeps_last: bool = False  # at completion the last value was delivered (debounce)

    def __post_init__(self) -> None:
        if self.order in ("list",) and self.count is None:
            object.__setattr__(self, "count", len(self.values))

    def degrade(self) -> Expect:
        """Values no longer modelled (an order-sensitive stage after a bag)."""
        return replace(self, order="none", values=(), count=None)

    def cut_in(self, name: str) -> Expect:
        """``name`` may end the stream before any element (an overflow)."""
        return replace(self, anytime=self.anytime | {name})

    def with_error(self, name: str) -> Expect:
        return replace(self, ends=self.ends | {name})


def _is_subsequence(items: list[str], of: list[str]) -> bool:
    it = iter(of)
    return all(any(x == y for y in it) for x in items)


def check_values(
    expect: Expect,
    got: list[Any],
    completed: bool,
    error: BaseException | None,
    who: str,
    invalid: bool,
) -> None:
    """The value oracle: ``got`` (delivered so far) against ``expect``. ``invalid``: the
    subscriber made an invalid request, so rule 3.9's onError may end the stream."""
    keys = [_key(v) for v in got]
    want = [_key(v) for v in expect.values]
    if expect.most is not None:
        assert len(got) <= expect.most, f"{who}: {len(got)} elements, at most {expect.most} due"
    if expect.order == "list":
        assert keys == want[: len(keys)], (
            f"{who}: delivered {got!r}, expected a prefix of {list(expect.values)!r}"
        )
    elif expect.order == "bag":
        extra = Counter(keys) - Counter(want)
        assert not extra, f"{who}: {sorted(extra)} delivered but not due (of {expect.values!r})"
    elif expect.order == "subseq":
        assert _is_subsequence(keys, want), (
            f"{who}: delivered {got!r}, not a subsequence of {list(expect.values)!r}"
        )
    if completed and expect.keeps_last and want:
        assert keys[-1:] == want[-1:], (
            f"{who}: completed after {got!r}, the last value {expect.values[-1]!r} is due"
        )
    if completed:
        assert COMPLETE in expect.ends, (
            f"{who}: completed, expected only {sorted(expect.ends)} (delivered {got!r})"
        )
        if expect.order == "list":
            assert keys == want, f"{who}: completed after {got!r}, expected {list(expect.values)!r}"
        elif expect.count is not None:
            assert len(got) == expect.count, (
                f"{who}: completed after {len(got)} elements, {expect.count} due: {got!r}"
            )
    if error is not None:
        name = type(error).__name__
        assert name != "SubscriberFault", (
            f"{who}: rule 2.13: the subscriber's own exception came back as on_error: {error}"
        )
        answer = invalid and name == "ValueError" and "rule 3.9" in str(error)
        assert name in expect.ends | expect.anytime or answer, (
            f"{who}: failed with {name}: {error}, expected one of {sorted(expect.ends)}"
            + ("" if invalid else " (it made no invalid request: rule 3.9 is not its answer)")
        )


# --------------------------------------------------------------------- user functions


def _raising(target: Any, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def call(x: Any) -> Any:
        if target is not None and _key(x) == _key(target):
            raise UserFault(f"on {x!r}")
        return fn(x)

    return call


def _tag(x: Any) -> Any:
    return ("m", x)


def _keeper(variant: str) -> Callable[[Any], bool]:
    """filter's predicate: each variant keeps a different half of the values (``a``
    drops 4, 5, 6; ``b`` drops 0 to 3, so the first elements are replaced at once;
    ``c`` keeps only the even ints), so a drop can meet any demand."""
    if variant == "c":
        return lambda x: not (type(x) is int and x % 2)
    parity = 1 if variant == "a" else 0
    return lambda x: _stable(x) % 2 == parity


def _inner_values(x: Any, salt: str) -> list[Any]:
    """flat_map's inner elements for ``x``: 0 to 3, a different count per ``salt``."""
    return [("i", x, j) for j in range(_stable((salt, x)) % 4)]


def _cut(expect: Expect, target: Any, error: str) -> tuple[int | None, Expect]:
    """Where ``target`` is in a list model (None: not there or not a list)."""
    if target is None or expect.order != "list":
        return None, expect
    keys = [_key(v) for v in expect.values]
    if _key(target) not in keys:
        return None, expect
    i = keys.index(_key(target))
    return i, Expect(expect.values[:i], (expect.ends - {COMPLETE}) | {error})


def _map_model(expect: Expect, fn: Callable[[Any], Any], target: Any) -> Expect:
    i, cut = _cut(expect, target, "UserFault")
    if i is not None:
        return replace(cut, values=tuple(fn(v) for v in cut.values), count=None)
    values = tuple(fn(v) for v in expect.values if target is None or _key(v) != _key(target))
    out = replace(expect, values=values)
    if target is not None and expect.order != "list":
        out = out.with_error("UserFault")
    if expect.order == "list":
        out = replace(out, count=len(values))
    return out


def _pick_target(expect: Expect, k: int | None) -> Any:
    """The element a user function raises on: the k-th of the model (None: never)."""
    if k is None or expect.order == "none" or k >= len(expect.values):
        return None
    return expect.values[k]


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class SourceSpec:
    kind: str  # sync | generator | manual | failing | raising | rx
    length: int
    batch: int = 2
    at: int = 0  # failing/raising: after this many elements
    strategy: str = "buffer"  # rx
    none_at: bool = False  # rx: the Observable sends None at position ``at`` (rule 2.13)


SOURCE_KINDS = ("sync", "generator", "manual", "failing", "raising", "rx")

source_specs = st.builds(
    SourceSpec,
    kind=st.sampled_from(SOURCE_KINDS),
    length=st.integers(0, 6),
    batch=st.integers(1, 3),
    at=st.integers(0, 4),
    strategy=st.sampled_from(["buffer", "buffer", "drop", "latest", "error"]),
    none_at=st.booleans(),
)


def _failing_iter(values: list[Any]) -> Iterator[Any]:
    yield from values
    raise SourceFailure(f"after {len(values)} elements")


def build_source(spec: SourceSpec, machine: Builder) -> tuple[Flow[Any], Expect]:
    values = list(range(spec.length))
    done = frozenset({COMPLETE})
    if spec.kind == "sync":
        return Flow.from_iterable(values), Expect(tuple(values), done)
    if spec.kind == "generator":
        where = machine.where  # records the executor running each pull (subscribe_on)

        def pulled() -> Iterator[int]:
            for v in values:
                where.append(machine.running)
                yield v

        return Flow.from_publisher(IterablePublisher(pulled)), Expect(tuple(values), done)
    if spec.kind == "manual":
        ex = machine.new_executor("source")
        return Flow.from_publisher(from_iterable(values, executor=ex, batch_size=spec.batch)), (
            Expect(tuple(values), done)
        )
    if spec.kind == "failing":
        head = values[: spec.at]
        fail_ex = machine.new_executor("source") if spec.batch == 3 else None
        pub = IterablePublisher(
            lambda: _failing_iter(head), executor=fail_ex, batch_size=spec.batch
        )
        return Flow.from_publisher(pub), Expect(tuple(head), frozenset({"SourceFailure"}))
    if spec.kind == "raising":
        at = spec.at

        def step(state: int, sink: Sink[int]) -> int:
            if state == at:
                raise UserFault(f"generator raised at {state}")
            if state < spec.length:
                sink.next(state)
            else:
                sink.complete()
            return state + 1

        gen_ex = machine.new_executor("source") if spec.batch == 3 else None
        flow = Flow.from_publisher(generate(0, step, executor=gen_ex, batch_size=spec.batch))
        if at <= spec.length:  # step raises before it would complete
            return flow, Expect(tuple(values[:at]), frozenset({"UserFault"}))
        return flow, Expect(tuple(values), done)
    # rx: an Observable pushes everything at subscription, whatever the demand
    import reactivex

    from reactive_streams.rx import from_observable

    pushed: list[Any] = list(values)
    expect = Expect(tuple(values), done)
    if spec.none_at and spec.at < spec.length:
        pushed[spec.at] = None  # Rx allows None; a Publisher must fail instead (2.13)
        # the None is refused when pushed, so its error may overtake buffered elements
        expect = Expect(tuple(values[: spec.at]), frozenset({"TypeError"})).cut_in("TypeError")
    flow = from_observable(
        reactivex.from_iterable(pushed), spec.strategy, buffer_size=max(spec.length, 1)
    )
    machine.coverage_extra.add("from_observable")
    if spec.strategy in ("drop", "latest"):
        expect = replace(expect, order="subseq", count=None)
    elif spec.strategy == "error":
        expect = expect.cut_in("BufferOverflowError")
    return flow, expect


# ------------------------------------------------------------------------- operators


@dataclass(frozen=True)
class OpSpec:
    name: str
    k: int = 1  # count / size / prefetch
    fault: int | None = None  # the user function raises on the fault-th element
    variant: str = ""  # operator-specific choice
    other: int = 2  # merge/zip: length of the other source
    manual: bool = False  # the operator's own executor / inners on a ManualExecutor
    inner: str = "plain"  # flat_map/concat_map/zip: inners on own threads, or subscribe raises

    def __repr__(self) -> str:
        extras = [f"k={self.k}"]
        if self.fault is not None:
            extras.append(f"fault={self.fault}")
        if self.variant:
            extras.append(self.variant)
        if self.name in ("merge", "zip"):
            extras.append(f"other={self.other}")
        if self.manual:
            extras.append("manual")
        if self.inner != "plain":
            extras.append(f"inner={self.inner}")
        return f"{self.name}({', '.join(extras)})"


@dataclass
class Stage:
    """A multicast stage: its flow (for joiners), the model at that point, the kind."""

    flow: Flow[Any]
    expect: Expect
    kind: str  # publish | replay
    conn: ConnectableFlow[Any] | None  # to connect() (None: ref_count connects)
    hub: ConnectableFlow[Any] | None = None  # the shared connection's flow
    buffer: int = 0


def _settle(connection: Any, deadline_s: float = 10.0) -> None:
    """Wait until a multicast connection's drain has finished: a cancel hands the rest of a
    synchronous source's pumping to the shared pool (rule 3.5), and "at rest" means that
    has run too. A drain still busy at the deadline is left to the checks at rest, which
    then fail on what it owes (a hang is a failure, not a wait)."""
    deadline = time.monotonic() + deadline_s
    while connection._wip and time.monotonic() < deadline:
        time.sleep(0.001)


class Builder(Protocol):
    """What building a pipeline needs: executors, and a place to list multicast stages."""

    stages: list[Stage]
    coverage_extra: set[str]
    where: list[str]  # the executor role running each pull of a generator source
    running: str  # the executor role whose task runs now ("test" outside tasks)

    def new_executor(self, role: str) -> Executor: ...


#: the error-recovery, joining, relay and single-result operators (issue 24)
RECOVERY = ("retry", "on_error_resume", "on_error_return", "on_error_complete")
JOINING = ("concat_with", "start_with", "default_if_empty")
RELAYS = ("distinct", "distinct_until_changed", "skip_while", "skip_last")
TAILS = ("take_last", "count")
#: the combining, switching, grouping, relay and single-result ones (issue 24; ``DRAWN``)
NEWER = (
    "retry_when",
    "switch_if_empty",
    "defer",
    "do_on_error",
    "do_on_complete",
    "do_finally",
    "ignore_elements",
    "element_at",
    "all",
    "any",
    "combine_latest",
    "with_latest_from",
    "switch_map",
    "group_by",
    "map_not_none",
    "handle",
)
CLOCKED = ("sample", "throttle_first", "buffer_timeout", "window_timeout", "delay_subscription")
#: on a ManualExecutor's virtual clock ("timer"), moved by the ``advance`` rule
TIMED = ("delay", "timeout", "debounce", *CLOCKED)

OPERATORS = (
    "map",
    "filter",
    "take",
    "skip",
    "take_while",
    "scan",
    "reduce",
    "buffer",
    "window",
    "limit_rate",
    "do_on_request",
    "do_on_next",
    "do_on_cancel",
    "on_backpressure_buffer",
    "on_backpressure_drop",
    "on_backpressure_latest",
    "flat_map",
    "concat_map",
    "merge",
    "zip",
    "observe_on",
    "subscribe_on",
    "publish",
    "replay",
    "ref_count",
    *RECOVERY,
    *JOINING,
    *RELAYS,
    *TAILS,
    *TIMED,
    *NEWER,
)


#: the neighbours drawn at random: the timed operators need the machine's virtual clock
#: (the threaded pipelines draw these too), so they come only where forced
UNTIMED = tuple(name for name in OPERATORS if name not in TIMED)

#: how flat_map/concat_map/zip's inner sources are drawn: plain (synchronous or on a
#: ManualExecutor), emitting on a thread of their own (``ThreadedInner``), or (the failing
#: one) a source whose ``subscribe`` raises (``SubscribeRaises``, rule 1.9)
INNER_KINDS = ("plain", "plain", "thread", "raises")


def op_specs(name: str | None = None) -> st.SearchStrategy[OpSpec]:
    return st.builds(
        OpSpec,
        name=st.just(name) if name is not None else st.sampled_from(UNTIMED),
        k=st.integers(0, 4),
        fault=st.one_of(st.none(), st.none(), st.integers(0, 3)),
        variant=st.sampled_from(["a", "b", "c"]),
        other=st.integers(0, 3),
        manual=st.booleans(),
        inner=st.sampled_from(INNER_KINDS),
    )


def _chunks(values: tuple[Any, ...], k: int, tail: bool) -> tuple[Any, ...]:
    out = [list(values[i : i + k]) for i in range(0, len(values), k)]
    if out and len(out[-1]) < k and not tail:
        out.pop()
    return tuple(out)


def apply_op(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """Build ``op`` on ``flow``; returns the new flow and the model of its output."""
    out_flow, out = _apply_op(op, flow, expect, machine)
    # dropped by any later stage
    keeps_last = out.keeps_last and op.name in ("debounce", "sample", "switch_map")
    return out_flow, replace(out, anytime=out.anytime | expect.anytime, keeps_last=keeps_last)


def _apply_op(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    name = op.name
    drawn = DRAWN.get(name)  # the families and issue 24's operators: a table
    if drawn is not None:
        return drawn(op, flow, expect, machine)
    listy = expect.order == "list"
    if name == "map":
        target = _pick_target(expect, op.fault)
        return flow.map(_raising(target, _tag)), _map_model(expect, _tag, target)
    if name == "filter":
        target = _pick_target(expect, op.fault)
        keep = _keeper(op.variant)
        i, cut = _cut(expect, target, "UserFault")
        src = cut if i is not None else expect
        kept = tuple(v for v in src.values if keep(v) and (i is not None or v is not target))
        out = replace(src, values=kept, count=len(kept) if src.order == "list" else None)
        if target is not None and i is None and expect.order != "list":
            out = out.with_error("UserFault")
        if expect.order == "bag" and expect.count == len(expect.values):
            out = replace(out, count=len(kept))
        return flow.filter(_raising(target, keep)), out
    if name == "take":
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
    if name == "skip":
        n = op.k
        if listy:
            return flow.skip(n), replace(expect, values=expect.values[n:], count=None)
        return flow.skip(n), expect.degrade()
    if name == "take_while":
        target = _pick_target(expect, op.fault)  # the first element that fails the test
        if not listy:
            return flow.take_while(lambda x: True), expect
        if target is None:
            return flow.take_while(lambda x: True), expect
        i = [_key(v) for v in expect.values].index(_key(target))
        key = _key(target)
        return flow.take_while(lambda x: _key(x) != key), Expect(
            expect.values[:i], frozenset({COMPLETE})
        )
    if name == "scan":
        target = _pick_target(expect, op.fault)

        def acc(a: tuple[Any, ...], x: Any) -> tuple[Any, ...]:
            if target is not None and _key(x) == _key(target):
                raise UserFault(f"scan on {x!r}")
            return (*a, _key(x))

        if not listy:
            out = expect.degrade()
            return flow.scan(acc, ()), out.with_error("UserFault") if target is not None else out
        i, cut = _cut(expect, target, "UserFault")
        src = cut if i is not None else expect
        running: list[Any] = []
        state: tuple[Any, ...] = ()
        for v in src.values:
            state = (*state, _key(v))
            running.append(state)
        return flow.scan(acc, ()), replace(src, values=tuple(running), count=None)
    if name == "reduce":
        target = _pick_target(expect, op.fault)

        def fold(a: Any, b: Any) -> Any:
            if target is not None and _key(b) == _key(target):
                raise UserFault(f"reduce on {b!r}")
            return ("r", a, b)

        if not listy:
            out = replace(expect.degrade(), most=1)
            return flow.reduce(fold), out.with_error("UserFault") if target is not None else out
        vals = expect.values
        if target is not None and _key(target) in [_key(v) for v in vals[1:]]:
            return flow.reduce(fold), Expect((), frozenset({"UserFault"}))
        if COMPLETE not in expect.ends:
            return flow.reduce(fold), Expect((), expect.ends)
        if not vals:
            return flow.reduce(fold), Expect((), expect.ends)
        total = vals[0]
        for v in vals[1:]:
            total = ("r", total, v)
        return flow.reduce(fold), Expect((total,), expect.ends)
    if name in ("buffer", "window"):
        size = op.k + 1
        if name == "buffer":
            out_flow = flow.buffer(size)
        else:
            out_flow = flow.window(size).concat_map(lambda w: w.collect())
        if not listy:
            return out_flow, expect.degrade()
        tail = COMPLETE in expect.ends
        return out_flow, replace(expect, values=_chunks(expect.values, size, tail), count=None)
    if name == "limit_rate":
        return flow.limit_rate(op.k + 1), expect
    if name == "do_on_request":
        calls = itertools.count()
        fault = op.fault

        def action(n: int) -> None:
            if fault is not None and next(calls) == fault:
                raise UserFault(f"do_on_request({n})")

        # the action's fault ends the stream at the request it fails, before any element
        out = expect.cut_in("UserFault") if fault is not None else expect
        return flow.do_on_request(action), out
    if name == "do_on_next":
        target = _pick_target(expect, op.fault)
        return flow.do_on_next(_raising(target, _tag)), _map_model(expect, lambda v: v, target)
    if name == "do_on_cancel":
        fault = op.fault

        def on_cancel() -> None:
            if fault is not None:
                raise UserFault("do_on_cancel")  # rule 3.15: cancel still returns normally

        return flow.do_on_cancel(on_cancel), expect
    if name == "on_backpressure_buffer":
        overflow = {"a": "error", "b": "drop_oldest", "c": "drop_latest"}[op.variant]
        out_flow = flow.on_backpressure_buffer(op.k + 1, overflow)
        if overflow == "error":
            return out_flow, expect.cut_in("BufferOverflowError")
        return out_flow, _lossy(expect)
    if name == "on_backpressure_drop":
        return flow.on_backpressure_drop(), _lossy(expect)
    if name == "on_backpressure_latest":
        return flow.on_backpressure_latest(), _lossy(expect)
    if name == "merge":
        other_values = [("o", j) for j in range(op.other)]
        ex = machine.new_executor("merge-other") if op.manual else None
        fails = op.variant == "c"
        other: Publisher[Any]
        if fails:
            other = IterablePublisher(lambda: _failing_iter(other_values), executor=ex)
        else:
            other = from_iterable(other_values, executor=ex)
        other_end = "SourceFailure" if fails else COMPLETE
        merged = Flow.merge(flow, other, prefetch=op.k + 1)
        if expect.order == "none":  # the other's elements come on top of the bound
            bound = None if expect.most is None else expect.most + len(other_values)
            return merged, replace(expect, ends=expect.ends | {other_end} - _if(fails), most=bound)
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
    if name == "zip":
        other_values = [("z", j) for j in range(op.other)]
        ex = machine.new_executor("zip-other") if op.manual else None
        zip_other: Publisher[Any] = from_iterable(other_values, executor=ex)
        if op.inner == "raises":
            machine.coverage_extra.add("inner-subscribe-raises")
            zipped = flow.zip_with(SubscribeRaises(), prefetch=op.k + 1)
            # no row ever; the source may end first (then the other is never subscribed)
            return zipped, Expect((), expect.ends | {"InnerFailure"})
        if op.inner == "thread":
            machine.coverage_extra.add("inner-thread")
            zip_other = ThreadedInner(other_values)
        zipped = flow.zip_with(zip_other, prefetch=op.k + 1)
        if not listy:
            return zipped, replace(expect.degrade(), ends=expect.ends | {COMPLETE})
        n, m = len(expect.values), len(other_values)
        pairs = tuple(zip(expect.values, other_values, strict=False))
        ends = expect.ends if n < m else expect.ends | {COMPLETE}
        # a source's error is signalled at once, before the rows its queued elements make
        return zipped, Expect(pairs, frozenset(ends), anytime=expect.ends - {COMPLETE})
    if name == "observe_on":
        return flow.observe_on(machine.new_executor("observe_on"), op.k + 1), expect
    if name == "subscribe_on":
        out_flow = flow.subscribe_on(machine.new_executor("subscribe_on"))
        return out_flow, _subscribes_late(expect, machine)
    raise AssertionError(f"unknown operator {name}")


def _subscribes_late(expect: Expect, machine: Builder) -> Expect:
    """subscribe_on, delay_subscription: upstream is subscribed after setup connected the
    hot stages, so a publish drops what came before (docs/multicast.md: a late subscriber
    sees only later elements, or the terminal signal at once)."""
    return expect.degrade() if machine.stages else expect


def _exact(expect: Expect) -> bool:
    """A list model with one end and no cut-in: its values all come before that end."""
    return expect.order == "list" and not expect.anytime and len(expect.ends) == 1


def _unknown(expect: Expect, ends: frozenset[str]) -> Expect:
    """Values no longer modelled, nor their number."""
    return Expect((), ends, "none", most=None)


def _recovery(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """retry(k) (variant c: with a backoff on the virtual clock): an end by error E
    after P (the same on every attempt: a cold upstream) gives P * (k + 1), then E.
    on_error_resume(g): P + g's values, then complete.
    on_error_return(v): P + (v,), then complete. on_error_complete: P, then complete."""
    name = op.name
    failed = COMPLETE not in expect.ends
    if name == "retry":
        clock = machine.new_executor("timer") if op.variant == "c" else None
        if isinstance(clock, ManualExecutor):  # a backoff on the virtual clock
            out_flow = flow.retry(op.k, backoff=Backoff(0.5, 2.0, 1.0), scheduler=clock)
        else:
            out_flow = flow.retry(op.k)
        if expect.ends == frozenset({COMPLETE}) and not expect.anytime:
            return out_flow, expect
        if _exact(expect) and not machine.stages:  # a hot stage upstream is not replayed
            out = replace(expect, values=expect.values * (op.k + 1), count=None, most=None)
            return out_flow, out
        return out_flow, _unknown(expect, expect.ends | {COMPLETE})
    tail: tuple[Any, ...] = ()
    if name == "on_error_resume" and op.inner == "raises":  # the fallback's subscribe raises
        machine.coverage_extra.add("fallback-subscribe-raises")
        out_flow = flow.on_error_resume(lambda e: SubscribeRaises())
        if expect.ends == frozenset({COMPLETE}) and not expect.anytime:
            return out_flow, expect
        if _exact(expect) and failed:  # rule 1.9: its raise is the stream's error
            return out_flow, Expect(expect.values, frozenset({"InnerFailure"}))
        return out_flow, _unknown(expect, (expect.ends & {COMPLETE}) | {"InnerFailure"})
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
    if _exact(expect) and failed:
        return out_flow, Expect(expect.values + tail, done)
    return out_flow, _unknown(expect, done)


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


def _relay(op: OpSpec, flow: Flow[Any], expect: Expect) -> tuple[Flow[Any], Expect]:
    """distinct / distinct_until_changed (key: the value, or a coarse one for variant
    a): first occurrences / runs collapsed; skip_while: the prefix dropped; skip_last(n):
    v[:-n]; take_last(n): v[-n:] at completion; count: (len(v),). Off a list model
    each output is a subsequence of its input (count: one element at most)."""
    name = op.name
    n = op.k
    coarse = op.variant == "a"

    def key(x: Any) -> Any:
        return _stable(x) % 3 if coarse else _key(x)

    values = expect.values
    if name in TAILS and COMPLETE not in expect.ends:
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
        target = _pick_target(expect, op.fault)  # dropped up to this one (None: all)
        stop = _key(target) if target is not None else None
        out_flow = flow.skip_while(lambda x: _key(x) != stop)
        keys = [_key(v) for v in values]
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
        return out_flow, _unknown(expect, expect.ends)
    if expect.order == "list":
        return out_flow, replace(expect, values=out, count=None)
    return out_flow, replace(expect, count=None)


def _timed(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """On a "timer" ManualExecutor. delay(dt): the same list, an error at once (waiting
    elements dropped); timeout(dt) (but for variant c: after a delay(0.5), and held
    open after its elements, so its timer ends it): the same list unless a
    TimeoutError cuts in (the clock moves while no element comes);
    debounce(dt): a subsequence, its last value delivered at completion."""
    clock = machine.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    errors = expect.ends - {COMPLETE}
    if op.name == "delay":
        return flow.delay(dt, scheduler=clock), replace(expect, anytime=expect.anytime | errors)
    if op.name == "timeout":
        if op.variant != "c":  # elements reach timeout after its start: the clock tells
            flow = flow.delay(0.5, scheduler=clock)
            expect = replace(expect, anytime=expect.anytime | errors)
        if op.variant != "c":  # held open after its elements: only the timer ends it
            flow = flow.concat_with(Flow.timer(30.0, scheduler=clock).ignore_elements())
        if op.inner != "plain":  # a fallback whose subscribe raises: its error (1.9)
            machine.coverage_extra.add("fallback-subscribe-raises")
            raising = _timeout(flow, 1.0 + op.k % 2, clock, SubscribeRaises())
            return raising, expect.cut_in("InnerFailure")
        return _timeout(flow, 1.0 + op.k % 2, clock), expect.cut_in("TimeoutError")
    # the pending value goes out at completion: the last of a list is always delivered
    out = replace(_lossy(expect), keeps_last=expect.order == "list")
    return _debounce(flow, dt, clock), out


def _debounce(flow: Flow[Any], dt: float, clock: ManualExecutor) -> Flow[Any]:
    """debounce(dt), each value it emits checked against the clock: no newer element
    arrived within dt of it (it ended its burst), or none at all (the completion's)."""
    arrivals: list[tuple[float, str]] = []

    def arrived(x: Any) -> None:
        arrivals.append((clock.now(), _key(x)))

    def emitted(x: Any) -> None:
        key = _key(x)
        for i in range(len(arrivals) - 1, -1, -1):
            if arrivals[i][1] == key:
                at = arrivals[i][0]
                after = arrivals[i + 1 :]
                if after and after[0][0] < at + dt - 1e-9:
                    INNER_PROBLEMS.append(
                        f"debounce({dt}) emitted {x!r} (arrived at t={at}), "
                        f"a newer element came at t={after[0][0]}"
                    )
                return

    return flow.do_on_next(arrived).debounce(dt, scheduler=clock).do_on_next(emitted)


def _timeout(
    flow: Flow[Any], dt: float, clock: ManualExecutor, fallback: Publisher[Any] | None = None
) -> Flow[Any]:
    """timeout(dt), its TimeoutError checked against the clock: it may fire only dt
    after the last element that reached it (or after the start)."""
    stamps = [0.0]

    def arrived(x: Any) -> None:
        stamps.append(clock.now())

    def fired(error: BaseException) -> None:
        quiet = clock.now() - stamps[-1]
        if isinstance(error, TimeoutError) and quiet < dt:
            INNER_PROBLEMS.append(
                f"timeout({dt}) fired at t={clock.now()}, {quiet} s after the last element"
            )

    return flow.do_on_next(arrived).timeout(dt, fallback, scheduler=clock).do_on_error(fired)


def _if(flag: bool) -> set[str]:
    return {COMPLETE} if flag else set()


def _lossy(expect: Expect) -> Expect:
    if expect.order == "list":
        return replace(expect, order="subseq", count=None)
    if expect.order == "bag":
        return replace(expect, count=None)
    return replace(expect, count=None)


def _flat_map(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """Inners: ``_inner_values(x)``, synchronous, ``just``/``empty`` (fused kinds), on
    a ManualExecutor or on threads of their own (``ThreadedInner``); the mapper may
    raise, return a non-publisher, or an inner fail (or its ``subscribe`` raise)."""
    ex = machine.new_executor("inners") if op.manual else None
    target = _pick_target(expect, op.fault)
    how = op.variant  # a: the mapper raises; b: returns no inner source; c: the inner fails
    key = _key(target) if target is not None else None

    threaded = op.inner == "thread"
    if threaded:
        machine.coverage_extra.add("inner-thread")
    if op.inner == "raises" and how == "c" and target is not None:
        machine.coverage_extra.add("inner-subscribe-raises")
    lies = op.inner == "plain" and ex is None  # multi-element inners are LyingItems
    if lies:
        machine.coverage_extra.add("inner-answer-lies")

    def mapper(x: Any) -> Any:
        values = _inner_values(x, how)
        if key is not None and _key(x) == key:
            if how == "a":
                raise UserFault(f"mapper on {x!r}")
            if how == "b":
                return object()  # no Publisher, iterable or awaitable: a clear error
            if op.inner == "raises":
                return SubscribeRaises()  # rule 1.9: on_error, its elements never come
            return IterablePublisher(lambda: _inner_fail(values), executor=ex)
        if threaded:
            return ThreadedInner(values)
        if ex is not None:
            return from_iterable(values, executor=ex, batch_size=1)  # a task per element
        if lies and _stable(("list", x)) % 2:
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
    error = {"a": frozenset({"UserFault"}), "b": _MAPPER_NOT_PUBLISHER}.get(
        how, frozenset({"InnerFailure"})
    )
    order = "list" if concat and expect.order == "list" else "bag"
    if expect.order == "none":
        out = replace(expect, most=None)  # an element may become several inner ones
        return out_flow, replace(out, ends=out.ends | error) if target is not None else out
    keys = [_key(v) for v in expect.values]
    if key is not None and expect.order == "list":
        i = keys.index(key)
        before = expect.values[:i]
        inner = tuple(y for v in before for y in _inner_values(v, how))
        if how == "c" and op.inner != "raises":  # SubscribeRaises: its values never come
            inner += tuple(_inner_values(target, how))
        if how == "c" and not concat:  # later inners run beside the failing one: a bag
            inner = tuple(y for v in expect.values for y in _inner_values(v, how))
        ends = error | (expect.ends - {COMPLETE})  # an earlier failure may come first
        if order == "list":
            return out_flow, Expect(inner, ends)
        return out_flow, Expect(inner, ends, "bag", None)
    all_inner = tuple(y for v in expect.values for y in _inner_values(v, how))
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
    return out_flow, _overtaking(out, cut)


def _overtaking(out: Expect, errors: frozenset[str]) -> Expect:
    """``errors`` are eager at this stage (they overtake the elements it still holds),
    so they may cut in before any element: all/any/element_at downstream must not
    count on their deciding element coming first."""
    return replace(out, anytime=out.anytime | errors)


def _inner_fail(values: list[Any]) -> Iterator[Any]:
    yield from values
    raise InnerFailure("inner failed")


#: rule 2.7 seen by the threaded inners (two calls at once on one inner subscription),
#: and a timeout fired early (``_timeout``): judged after every step
INNER_PROBLEMS: list[str] = []
_EMIT_WAIT = 10.0  # seconds a request waits for its inner's thread (a hang is a failure)


class SubscribeRaises:
    """An inner source whose ``subscribe`` raises (rule 1.9: the operator must signal it
    as ``on_error`` to its subscriber, not let it out of its own ``subscribe``)."""

    def subscribe(self, subscriber: Any) -> None:
        raise InnerFailure("subscribe raised")


class _LenSaysNone(list):  # type: ignore[type-arg]
    """An "items" value whose ``len()`` says 0 (it holds more)."""

    def __len__(self) -> int:
        return 0


class LyingItems:
    """An inner source answering the public fusion protocol with an "items" value whose
    length lies: the core must not take it at its word (rules 1.1, 1.9), and pulls it."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def subscribe(self, subscriber: Any) -> None:
        Flow.from_iterable(self.values).subscribe(subscriber)

    def __rs_sync__(self) -> SyncSource:
        return SyncSource(self.values.__iter__, "items", _LenSaysNone(self.values), nulls=None)


class ThreadedInner:
    """An inner Publisher that emits on a thread of its own (issue 21, rule 2.7).

    A request from another thread starts an emitter thread and returns only when it has
    emitted what demand allows: the operator's drain runs on the emitter meanwhile and
    replenishes from there while that first call is still in progress, which is exactly
    where unserialised calls overlap. A request made on the emitter adds demand for its
    loop. Deterministic: the requester waits (bounded) for the emitter."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def subscribe(self, subscriber: Any) -> None:
        subscriber.on_subscribe(_ThreadedSubscription(self.values, subscriber))


class _ThreadedSubscription:
    def __init__(self, values: list[Any], subscriber: Any) -> None:
        self._values = values
        self._next = 0
        self._demand = 0
        self._subscriber = subscriber
        self._done = False
        self._lock = threading.Lock()
        self._inside = 0
        self._emitter: threading.Thread | None = None

    def _enter(self, call: str) -> None:
        with self._lock:
            self._inside += 1
            overlap = self._inside > 1
        if overlap:
            INNER_PROBLEMS.append(f"rule 2.7: {call} on an inner while another call runs")

    def _leave(self) -> None:
        with self._lock:
            self._inside -= 1

    def request(self, n: int) -> None:
        self._enter(f"request({n})")
        try:
            if self._done:
                return
            self._demand += n
            if threading.current_thread() is self._emitter:
                return  # the emitter's loop takes it
            emitter = threading.Thread(target=self._emit, daemon=True)
            self._emitter = emitter
            emitter.start()
            emitter.join(_EMIT_WAIT)
            if emitter.is_alive():
                INNER_PROBLEMS.append(f"an inner's emission did not return in {_EMIT_WAIT} s")
        finally:
            self._leave()

    def cancel(self) -> None:
        self._enter("cancel()")
        self._done = True
        self._leave()

    def _emit(self) -> None:
        subscriber = self._subscriber
        while not self._done and self._demand > 0 and self._next < len(self._values):
            self._demand -= 1
            self._next += 1
            subscriber.on_next(self._values[self._next - 1])
        if not self._done and self._next == len(self._values):
            self._done = True
            subscriber.on_complete()


def _multicast(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    ex = machine.new_executor("multicast") if op.manual else None
    buffer = op.k + 1
    if op.name == "replay" or (op.name == "ref_count" and op.variant == "b"):
        conn = replay(flow, bound=None if op.variant == "a" else buffer, executor=ex, batch_size=2)
        kind = "replay"
    else:
        conn = publish(flow, buffer, executor=ex, batch_size=2)
        kind = "publish"
        # docs/multicast.md: a source error overtakes the buffered elements
        expect = _overtaking(expect, expect.ends - {COMPLETE})
    if op.name == "ref_count":
        out: Flow[Any] = conn.ref_count()
        machine.stages.append(Stage(out, expect, kind, None, conn, buffer))
        return out, expect
    machine.stages.append(Stage(conn, expect, kind, conn, conn, buffer))
    return conn, expect


# --------------------------------------------------------------------------- probes

#: trace vocabulary v2 marks the end of request/cancel calls, so a subscriber-side log
#: can show a signal nested in a request made from inside a signal (legal, rule 3.2)
NESTING_IN_LOG = "end_request" in core_tracing.SIGNALS


class PipeProbe(Probe):
    """A Probe that keeps the values and checks the subscriber-side rules itself (also
    when signals arrive on several threads)."""

    def __init__(self, log: list[dict[str, Any]], sub: int, initial: Any, name: str) -> None:
        super().__init__(log, sub, initial)
        self.name = name
        self.values: list[Any] = []
        self._guard = threading.Lock()
        self._open: list[int] = []  # threads of the on* calls open now (nesting allowed)
        self._calling: Counter[int] = Counter()  # threads inside our request()/cancel()
        self.next_depth = 0
        self.sealed = False  # cancel or fault observed at rest: nothing may follow
        self.problems: list[str] = []
        self.error: BaseException | None = None
        self.echo: int | None = None  # requested inside every on_next (rules 3.2, 3.3, 3.9)
        self.after_fault: list[str] = []  # signals after its own fault was observed at rest

    def __repr__(self) -> str:
        return f"{self.name}(received={self.received}, requested={self.requested})"

    def _problem(self, text: str) -> None:
        self.problems.append(f"{self.name}: {text}")

    def _enter(self, sig: str) -> None:
        me = threading.get_ident()
        with self._guard:
            if self.sealed and self.faulted and not self.cancelled:
                self.after_fault.append(sig)  # rule 2.13: judged by its own test below
            elif self.sealed:
                self._problem(f"rule 1.8: {sig} after the cancel/fault was observed at rest")
            if self.terminated:
                self._problem(f"rule 1.7: {sig} after the terminal signal")
            if any(t != me for t in self._open):
                self._problem(f"rule 1.3: {sig} on one thread overlaps a signal on another")
            elif self._open and not self._calling[me]:
                self._problem(f"rule 1.3: {sig} nested in a signal, not inside request/cancel")
            self._open.append(me)

    def _leave(self) -> None:
        with self._guard:
            self._open.remove(threading.get_ident())

    def _call(self, body: Callable[[], None]) -> None:
        me = threading.get_ident()
        with self._guard:
            self._calling[me] += 1
        try:
            body()
        finally:
            with self._guard:
                self._calling[me] -= 1

    def request(self, n: Any) -> None:
        self._call(lambda: Probe.request(self, n))
        if NESTING_IN_LOG:
            self.log("end_request")

    def cancel(self) -> None:
        self._call(lambda: Probe.cancel(self))
        if NESTING_IN_LOG:
            self.log("end_cancel")

    def _armed(self, signal: str) -> None:
        super()._armed(signal)
        if signal == "on_next" and self.echo is not None and not self.stopped:
            self.request(self.echo)  # the usual subscriber: request more from on_next

    def _run(self, sig: str, body: Callable[[], None]) -> None:
        self._enter(sig)
        try:
            body()
        finally:
            self._leave()

    def on_subscribe(self, subscription: Any) -> None:
        if self.subscription is not None:
            self._problem("rule 2.12: on_subscribe twice")
        self._run("on_subscribe", lambda: Probe.on_subscribe(self, subscription))

    def on_next(self, item: Any) -> None:
        if self.subscription is None:
            self._problem("rule 1.9: on_next before on_subscribe")
        if item is None:
            self._problem("rule 2.13: on_next(None)")
        if self.requested != MAX_DEMAND and self.received + 1 > self.requested:
            self._problem(f"rule 1.1: element {self.received + 1} of {self.requested} requested")
        self.values.append(item)
        self._enter("on_next")
        self.next_depth += 1
        try:
            if self.next_depth > 1:
                self._problem("rule 3.3: on_next -> request -> on_next nested twice")
            Probe.on_next(self, item)
        finally:
            self.next_depth -= 1
            self._leave()

    def on_error(self, error: BaseException) -> None:
        self.error = error
        self._run("on_error", lambda: Probe.on_error(self, error))

    def on_complete(self) -> None:
        self._run("on_complete", lambda: Probe.on_complete(self))

    @property
    def stopped(self) -> bool:
        return self.cancelled or self.faulted or self.terminated

    @property
    def owed(self) -> bool:
        """Outstanding valid demand, or an invalid request not yet answered (3.9)."""
        if self.stopped:
            return False
        return self.invalid or self.received < self.requested


# --------------------------------------------------------------------------- machine

COVERAGE: Counter[tuple[str, bool]] = Counter()
#: rule 3.13 at rest, per pipeline: collected, judged by ``test_rule_313_references_dropped``
RULE_313: list[str] = []
#: defects the machine may find, by category: each is judged by its own test below
KNOWN_DEFECTS: dict[str, list[str]] = {
    "hop-after-terminal": [],
    "complete-after-invalid": [],
    "signal-after-fault": [],
    "fault-escapes-subscribe": [],
}


def _known_defect(why: str | None, pub: str, faulted: bool = False) -> str | None:
    """The defect category of a replay verdict (None: not a known category).
    ``pub``/``faulted``: the subscription's state before the refused event."""
    if why is None:
        return None
    if faulted and why.startswith(("rule 3.12: ", "rule 1.8: ")):
        return "signal-after-fault"  # the Subscriber raised: it counts as cancelled (2.13)
    if pub in ("completed", "failed") and why in (
        "rule 3.7: the cancel was received twice, or after the Publisher finished",
        "rule 3.6: a request made after the terminal signal was received",
    ):
        return "hop-after-terminal"
    if why.startswith(
        (
            "rule 3.9: onComplete after request(n <= 0)",
            "rule 3.9: onNext after request(n <= 0)",
            "rule 3.9: request(n <= 0)",  # answered by another error than the 3.9 one
        )
    ):
        return "complete-after-invalid"
    return None


_RAN: list[bool] = []

#: request(n) arguments: bounded demand (where an operator's bookkeeping shows) twice as
#: often as the huge and invalid ones
demands: st.SearchStrategy[Any] = st.sampled_from(("few", "few", "any")).flatmap(
    lambda kind: st.integers(1, 4) if kind == "few" else request_sizes
)
_trace_files = itertools.count(1)
#: traces not written: version 1 (no end_request) cannot show a signal nested in a
#: request made from inside a signal, which the reader takes for an overlap (rule 1.3)
V1_NESTING: list[str] = []


def write_checked_trace(
    path: Path, events: list[dict[str, Any]], header: Header, where: str
) -> bool:
    """Write a trace for ``trace validate``, read back and replayed as it will be. A
    version-1 trace refused only for an overlap is removed (``V1_NESTING``: the probes
    judged its nesting); any other refusal fails: the machine and the reader disagree."""
    write_trace(path, events, header)
    trace = read_trace(path)
    violation = prepass(trace)
    if violation is None:
        return True
    path.unlink()
    if " overlaps " in violation.message and not has_call_ends(trace.events):
        V1_NESTING.append(f"{path.name}: {violation.message}")
        return False
    raise AssertionError(
        f"trace validate would refuse {path.name}: event {violation.index} "
        f"({violation.sig}): {violation.message}\npipeline: {where}"
    )


class PipelineMachine(TracedMachine):
    """See the module docstring. ``forced``: an operator every pipeline contains."""

    forced: str | None = None
    fused: bool | None = None

    def __init__(self) -> None:
        super().__init__()
        self.executors: list[tuple[str, ManualExecutor]] = []
        self.stages: list[Stage] = []
        self.extras: list[tuple[PipeProbe, Stage]] = []
        self.main: PipeProbe | None = None
        self.expect = Expect((), frozenset({COMPLETE}))
        self.coverage_extra: set[str] = set()
        self.where: list[str] = []
        self.running = "test"
        self.subscribe_on_first = False
        self._unjudged: set[int] = set()  # subscriptions no longer replayed
        self._fusion_before = fusion_enabled()
        self._defective = False  # a known defect was met: its trace is not written
        self.description = ""

    # ---------------------------------------------------------------- building
    def new_executor(self, role: str) -> ManualExecutor:
        ex = ManualExecutor()
        self.executors.append((role, ex))
        return ex

    @initialize(
        data=st.data(),
        source=source_specs,
        untraced=st.sampled_from([False, False, True]),
        initial=st.one_of(st.none(), demands),
        preset=st.lists(arms, max_size=2),
        echo=st.sampled_from([None, None, 1, 2, 0]),
    )
    def setup(
        self,
        data: st.DataObject,
        source: SourceSpec,
        untraced: bool,
        initial: Any,
        preset: list[Arm],
        echo: int | None,
    ) -> None:
        """Draw the pipeline and subscribe the probe."""
        INNER_PROBLEMS.clear()
        fused = self.fused if self.fused is not None else data.draw(st.booleans(), "fused")
        # a forced operator stands alone or with one neighbour half of the time, where
        # its own bookkeeping is not hidden by others (e.g. an unbounded request)
        counts = st.sampled_from((0, 0, 1, 1, 2, 3)) if self.forced else st.integers(1, 3)
        count = data.draw(counts, label="operators")
        ops = data.draw(st.lists(op_specs(), min_size=count, max_size=count), label="ops")
        if self.forced is not None:
            where = data.draw(st.integers(0, len(ops)), label="position")
            ops.insert(where, data.draw(op_specs(self.forced), label="forced"))
        self.sync = False
        self.untraced = untraced
        if untraced:
            core_tracing._tracer = None
        else:
            self.tracer = start_tracing()
        # every hop records its calls' ends (format version 2: end_request, end_cancel)
        self._replay = Replay(sync=False, call_ends=True)
        self._configured = True
        set_fusion(fused)  # for the whole example: inners are built while it runs
        flow, expect = build_source(source, self)
        for op in ops:
            flow, expect = apply_op(op, flow, expect, self)
            COVERAGE[(op.name, fused)] += 1
        for name in self.coverage_extra:
            COVERAGE[(name, fused)] += 1
        self.expect = expect
        self.subscribe_on_first = source.kind == "generator" and ops[0].name == "subscribe_on"
        self.description = f"{source} -> {ops} fused={fused}"
        probe = PipeProbe(self.probe_log, 1, initial, "probe")
        probe.arms.extend(preset)
        probe.echo = echo
        self.main = probe
        self.attach(flow, probe, None)
        for stage in reversed(self.stages):  # downstream first: each stage has its
            if stage.conn is not None:  # subscribers before its upstream starts
                stage.conn.connect()
        self.check_all()

    # ------------------------------------------------------------------- rules
    def live(self) -> list[Probe]:
        return [p for p in self.probes if p.subscription is not None]

    @precondition(lambda self: any(p.subscription is not None for p in self.probes))
    @rule(data=st.data(), n=demands)
    def request(self, data: st.DataObject, n: Any) -> None:
        """A subscriber calls request(n) (rules 3.6, 3.9, 3.17); mostly a few elements."""
        probe = data.draw(st.sampled_from(self.live()), label="probe")
        probe.request(n)

    @precondition(lambda self: any(p.subscription is not None for p in self.probes))
    @rule(data=st.data(), now=st.sampled_from([False, False, False, True]))
    def cancel(self, data: st.DataObject, now: bool) -> None:
        """A subscriber calls cancel() (rules 3.5, 3.7, 3.12). It ends what the example
        can show, so it is drawn a quarter as often as the other rules."""
        if now:
            probe = data.draw(st.sampled_from(self.live()), label="probe")
            probe.cancel()

    @precondition(lambda self: any(len(ex) for _, ex in self.executors))
    @rule(data=st.data())
    def run_task(self, data: st.DataObject) -> None:
        """Run one queued task of one executor of the pipeline."""
        busy = [(role, ex) for role, ex in self.executors if len(ex)]
        role, ex = data.draw(st.sampled_from(busy), label="executor")
        self.running = role
        try:
            ex.run(data.draw(st.integers(0, len(ex) - 1), label="task"))
        finally:
            self.running = "test"
        self.check_all()

    @precondition(lambda self: any(ex.scheduled for role, ex in self.executors if role == "timer"))
    @rule(data=st.data(), dt=st.sampled_from((0.5, 0.5, 1.0, 2.5)))
    def advance(self, data: st.DataObject, dt: float) -> None:
        """Move one timed operator's virtual clock on: what falls due runs, in time order."""
        timers = [ex for role, ex in self.executors if role == "timer" and ex.scheduled]
        ex = data.draw(st.sampled_from(timers), label="timer")
        COVERAGE[("clock-advance", fusion_enabled())] += 1  # listed in the coverage table
        self.running = "timer"
        try:
            ex.advance_by(dt)
        finally:
            self.running = "test"
        self.check_all()

    @precondition(lambda self: bool(self.stages) and len(self.probes) < 4)
    @rule(data=st.data(), initial=st.one_of(st.none(), st.integers(1, 3)))
    def join(self, data: st.DataObject, initial: Any) -> None:
        """A subscriber joins a multicast stage."""
        stage = data.draw(st.sampled_from(self.stages), label="stage")
        probe = PipeProbe(
            self.probe_log, len(self.probes) + 1, initial, f"joiner{len(self.probes)}"
        )
        self.extras.append((probe, stage))
        self.attach(stage.flow, probe, None)
        self.check_all()

    @precondition(lambda self: any(not p.stopped for p, _ in self.extras))
    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        """A joined subscriber leaves (cancels)."""
        probe = data.draw(
            st.sampled_from([p for p, _ in self.extras if not p.stopped]), label="leaver"
        )
        if probe.subscription is not None:
            probe.cancel()
        self.check_all()

    def check_trace(self, at_rest: bool = False) -> None:
        """Untraced runs replay the probes' log, which shows nesting only in vocabulary
        v2; before that the probes' own checks judge their signals (``PipeProbe``)."""
        if self.tracer is None and not NESTING_IN_LOG:
            return
        size = len(self.tracer.events) if self.tracer is not None else len(self.probe_log)
        if size == self._seen and not at_rest:
            return
        self._seen = size
        events = self.events(at_rest)
        if self.tracer is None:  # subscriber view: the whole log re-expanded, replayed
            # as the trace reader does: version 2 iff the log has an end_request/end_cancel
            self._replay = Replay(sync=False, call_ends=has_call_ends(events))
            self._cursor = 0
        for event in events[self._cursor :]:
            if event.sub in self._unjudged:
                continue
            state = self._replay.state(event.sub)
            before, faulted = state.pub, state.faulted
            why = self._replay.step(event)
            known = _known_defect(why, before, faulted)
            if known is not None:
                # judged by its own test below; the rest of this subscription's
                # events cannot be replayed after the refused step
                self._judged(
                    KNOWN_DEFECTS[known],
                    f"{known}: event {event.index} ({event.sig}, "
                    f"sub {event.sub}): {why}\npipeline: {self.description}",
                )
            if why is not None and not NESTING_IN_LOG and " overlaps " in why:
                # vocabulary v1 has no end_request: a signal nested in a request made from
                # inside a signal (legal, rule 3.2) reads as an overlap. This machine runs
                # on one thread, where the probes judge nesting themselves (PipeProbe).
                self._defective = True  # the trace reader would refuse it the same way
                self._unjudge(event.sub)
                continue
            self._failed = why is not None
            assert why is None, (
                f"event {event.index} ({event.sig}, sub {event.sub}): {why}\n"
                f"pipeline: {self.description}"
            )
            broken = inv.check_all(self._replay.state(event.sub))
            self._failed = bool(broken)
            assert not broken, f"event {event.index} ({event.sig}): {broken}"
        self._cursor = len(events)

    def _unjudge(self, sub: int) -> None:
        self._unjudged.add(sub)
        self._replay.subs.pop(sub, None)

    @invariant()
    def probes_and_values(self) -> None:
        """The probes' own rule checks and the value oracle, after every step."""
        if self._configured:
            self.check_all()

    def attach(self, publisher: Publisher[Any], probe: Probe, length: int | None) -> None:
        try:
            super().attach(publisher, probe, length)
        except SubscriberFault as exc:  # rule 1.9: subscribe must return normally
            self._judged(
                KNOWN_DEFECTS["fault-escapes-subscribe"], f"rule 1.9: {exc}: {self.description}"
            )

    def check_all(self) -> None:
        self._failed = bool(INNER_PROBLEMS)
        assert not INNER_PROBLEMS, f"{INNER_PROBLEMS[0]}\npipeline: {self.description}"
        for probe in self.probes:
            assert isinstance(probe, PipeProbe)
            if probe.after_fault:
                self._judged(
                    KNOWN_DEFECTS["signal-after-fault"],
                    f"rule 2.13: {probe.name}: "
                    f"{probe.after_fault[0]} after its fault: {self.description}",
                )
            self._failed = bool(probe.problems)
            assert not probe.problems, f"{probe.problems[0]}\npipeline: {self.description}"
        assert self.main is not None
        self.check_values(self.main, self.expect)
        if self.subscribe_on_first:
            wrong = [role for role in self.where if role != "subscribe_on"]
            self._failed = bool(wrong)
            assert not wrong, (
                f"subscribe_on: the synchronous source behind it ran on {wrong[0]!r}, not "
                f"on subscribe_on's executor\npipeline: {self.description}"
            )
        for probe, stage in self.extras:
            if stage.expect.order == "list":
                self.check_segment(probe, stage)

    @invariant()
    def publish_upstream_leq_buffer_inv(self) -> None:
        """Multicast.tla: publish never has more requested and not yet taken than its
        buffer holds (the slowest subscriber's demand plus the buffer bounds upstream)."""
        for stage in self.stages:
            conn = stage.hub.connection if stage.hub is not None else None
            if not isinstance(conn, PublishConnection):
                continue
            requested = conn.upstream_requested
            self._failed = True
            assert publish_twin.buffer_bounded_inv(conn.buffered, stage.buffer), (
                f"publish holds {conn.buffered} > buffer {stage.buffer}\n"
                f"pipeline: {self.description}"
            )
            # the spec's bound at MinDemand 0: stronger, and it holds here
            bounded = publish_twin.upstream_leq_min_demand_plus_buffer_inv
            assert requested == MAX_DEMAND or bounded(requested, conn.taken, 0, stage.buffer), (
                f"publish requested {requested}, took {conn.taken}: more outstanding than "
                f"its buffer of {stage.buffer}\npipeline: {self.description}"
            )
            self._failed = False

    def check_values(self, probe: PipeProbe, expect: Expect) -> None:
        self._failed = True
        try:
            check_values(
                expect,
                probe.values,
                probe.completed,
                probe.error if probe.errors else None,
                probe.name,
                probe.invalid,
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}\npipeline: {self.description}") from None
        self._failed = False

    def check_segment(self, probe: PipeProbe, stage: Stage) -> None:
        """A joiner of a multicast stage sees a contiguous run of that stage's elements."""
        keys = [_key(v) for v in probe.values]
        want = [_key(v) for v in stage.expect.values]
        ok = not keys or any(
            want[i : i + len(keys)] == keys for i in range(len(want) - len(keys) + 1)
        )
        self._failed = not ok
        assert ok, (
            f"{probe.name}: {probe.values!r} is not a contiguous run of "
            f"{list(stage.expect.values)!r}\npipeline: {self.description}"
        )

    # ----------------------------------------------------------------- at rest
    def _quiet(self) -> bool:
        if any(len(ex) for _, ex in self.executors):
            return False
        self.no_timer_left_prop()
        if any(ex.scheduled for _, ex in self.executors):
            return False  # a timer still to fire is work pending
        for stage in self.stages:
            if stage.hub is not None:
                _settle(stage.hub.connection)
        # a settled pooled drain may have queued work meanwhile (its request's delivery
        # task on a source's executor, rule 3.8): not at rest until that ran
        return not any(len(ex) or ex.scheduled for _, ex in self.executors)

    @invariant()
    def properties_at_rest(self) -> None:
        """Whenever no executor has a task queued: the properties at rest, liveness."""
        if self._configured and self._quiet():
            self.check_at_rest()

    def check_at_rest(self) -> None:
        self.check_all()
        super().check_at_rest()
        self._failed = True
        for probe in self.probes:
            assert isinstance(probe, PipeProbe)
            if probe.cancelled or probe.faulted:
                probe.sealed = True
            if probe.owed and not self._held_back(probe):
                raise AssertionError(
                    f"liveness at rest: {probe!r} is owed "
                    f"{'an onError (rule 3.9)' if probe.invalid else 'elements'}, "
                    f"got {probe.values!r}, nothing is queued and it has not terminated\n"
                    f"pipeline: {self.description}"
                )
        self.upstream_released_prop()
        self._failed = False

    def no_timer_left_prop(self) -> None:
        """Once the probe stopped (cancel, fault, terminal) and no task is queued, no
        timed operator keeps a timer (rule 3.13: nothing refers to the subscriber)."""
        main = self.main
        if main is None or not main.stopped or self.stages:
            return
        left = [(role, ex.scheduled) for role, ex in self.executors if ex.scheduled]
        self._failed = bool(left)
        assert not left, (
            f"at rest: {main!r} stopped, yet timers are still scheduled: {left} (rule 3.13)"
            f"\npipeline: {self.description}"
        )

    def upstream_released_prop(self) -> None:
        """Once the probe stopped (cancel, fault, terminal) and nothing is queued, every
        traced hop of the pipeline is cancelled or terminated: nothing upstream keeps
        running or holds resources (rules 1.8, 3.5; take, zip and flat_map must cancel
        what they no longer need). Multicast stages may outlive one subscriber."""
        main = self.main
        if self.tracer is None or main is None or not main.stopped or self.stages:
            return
        running = sorted(sub for sub, state in self._replay.subs.items() if state.pub not in DONE)
        assert not running, (
            f"at rest: {main!r} stopped, yet hop subscription(s) {running} upstream were "
            f"neither cancelled nor terminated\npipeline: {self.description}"
        )

    def references_dropped(self, probe: Probe, subscription: Any) -> None:  # type: ignore[override]
        """Rule 3.13 on the real objects, recorded per pipeline (see ``RULE_313``)."""
        try:
            TracedMachine.references_dropped(probe, subscription)
        except AssertionError as exc:
            self._judged(RULE_313, f"{exc}; pipeline: {self.description}")

    def _judged(self, found: list[str], text: str) -> None:
        """A known defect category fails the cell that meets it, under any ``-k``
        selection (issue 28); it is still collected for the aggregate tests below."""
        found.append(text)
        self._failed = True
        raise AssertionError(text)

    def _held_back(self, probe: PipeProbe) -> bool:
        """A publish stage runs in lockstep: another live subscriber of it (or of the
        pipeline after it) without demand holds the others back."""
        if not any(stage.kind == "publish" for stage in self.stages):
            return False
        joined = next((stage for p, stage in self.extras if p is probe), None)
        main = self.main
        if (
            joined is not None
            and joined.kind == "publish"
            and joined is not self.stages[-1]
            and main is not None
            and main.stopped
        ):
            # the pipeline's own chain is a subscriber of this stage too: a connected stage
            # after it keeps subscribed once the probe stopped, and may ask no more
            return True
        return any(
            p is not probe and isinstance(p, PipeProbe) and not p.stopped and p.subscription
            for p in self.probes
        )

    def teardown(self) -> None:
        try:
            if self._configured and not self._failed:
                for _ in range(10_000):
                    busy = [(role, ex) for role, ex in self.executors if len(ex)]
                    if not busy:
                        due = [ex for _, ex in self.executors if ex.scheduled]
                        if not due:
                            if self._quiet():  # a pooled drain settled too
                                break
                            continue  # it queued work meanwhile
                        clock = due[0]
                        when = clock.next_due()
                        self.running = "timer"
                        clock.advance_to(max(clock.now(), when or 0.0))
                        self.running = "test"
                        continue
                    self.running = busy[0][0]
                    busy[0][1].run(0)
                    self.running = "test"
                self.check_at_rest()
                if not self._defective:
                    self._write_trace()
        finally:
            core_tracing._tracer = self._previous
            set_fusion(self._fusion_before)

    def _write_trace(self) -> None:
        """``$RS_TRACE_DIR/<cell>-<pid>-<n>.jsonl``: this example's trace, quiescent (the
        executors ran dry and the checks at rest passed), for TLC (``make traces``)."""
        directory = os.environ.get("RS_TRACE_DIR")
        if not directory:
            return
        cell = f"pipeline-{self.forced or 'any'}-{'fused' if self.fused else 'unfused'}"
        path = Path(directory) / f"{cell}-{os.getpid()}-{next(_trace_files)}.jsonl"
        header = Header(
            mode="async", view="full" if self.tracer is not None else "subscriber", quiescent=True
        )
        events = self.tracer.events if self.tracer is not None else self.probe_log
        write_checked_trace(path, events, header, self.description)


# ------------------------------------------- issue 24: the operators drawn from a table
# ``_apply_op`` looks the operators below up in ``DRAWN`` (name -> builder of the flow and
# its model); the timed ones (``CLOCKED``) run on a "timer" ManualExecutor.


Model = tuple[Flow[Any], Expect]


def _retry_when(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """retry_when(attempt <= k): retry(k)'s model."""
    _, out = _recovery(replace(op, name="retry"), flow, expect, m)
    times = op.k
    return flow.retry_when(lambda e, attempt: attempt <= times), out


def _switch_if_empty(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """The values, or the other's when none came before completion."""
    if op.inner == "raises":  # the other's subscribe raises: its error (rule 1.9)
        m.coverage_extra.add("fallback-subscribe-raises")
        raising = flow.switch_if_empty(SubscribeRaises())
        if COMPLETE not in expect.ends:
            return raising, expect
        if _exact(expect):
            return raising, expect if expect.values else Expect((), frozenset({"InnerFailure"}))
        return raising, _unknown(expect, expect.ends | {"InnerFailure"})
    tail = tuple(("w", j) for j in range(op.other))
    ex = m.new_executor("switch-other") if op.manual else None
    out_flow = flow.switch_if_empty(from_iterable(list(tail), executor=ex))
    if COMPLETE not in expect.ends:
        return out_flow, expect
    # an empty completion switches: the other's elements are due too (take(0) bounds none)
    most = None if expect.most is None else max(expect.most, len(tail))
    if expect.order == "list":
        return out_flow, replace(expect, values=expect.values or tail, count=None, most=most)
    return out_flow, _unknown(expect, expect.ends)


def _defer(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return Flow.defer(lambda: flow), expect


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


def _element_at(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """values[k] then complete (upstream cancelled); shorter: the default (variant a)
    or IndexError at completion."""
    index = op.k
    default = ("d", index) if op.variant == "a" else None
    out_flow = flow.element_at(index) if default is None else flow.element_at(index, default)
    short = frozenset({"IndexError"}) if default is None else frozenset({COMPLETE})
    if expect.order != "list":
        return out_flow, replace(_unknown(expect, expect.ends | {COMPLETE} | short), most=1)
    if len(expect.values) > index:
        return out_flow, Expect((expect.values[index],), frozenset({COMPLETE}), most=1)
    if COMPLETE in expect.ends:
        values = () if default is None else (default,)
        return out_flow, Expect(values, (expect.ends - {COMPLETE}) | short, most=1)
    return out_flow, Expect((), expect.ends, most=1)


def _all_any(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """all(p): (False,) at the first failing element (upstream cancelled), else (True,)
    at completion; any(p): (True,) at the first passing one, else (False,)."""
    test = _keeper(op.variant)
    is_all = op.name == "all"
    out_flow = flow.all(test) if is_all else flow.any(test)
    if expect.order != "list":
        return out_flow, replace(_unknown(expect, expect.ends | {COMPLETE}), most=1)
    for v in expect.values:
        if bool(test(v)) != is_all:
            return out_flow, Expect((not is_all,), frozenset({COMPLETE}), most=1)
    if COMPLETE in expect.ends:
        return out_flow, Expect((is_all,), expect.ends, most=1)
    return out_flow, Expect((), expect.ends, most=1)


def _other_source(op: OpSpec, m: Builder, tag: str) -> tuple[Publisher[Any], tuple[Any, ...]]:
    values = tuple((tag, j) for j in range(op.other))
    ex = m.new_executor(f"{tag}-other") if op.manual else None
    return from_iterable(list(values), executor=ex), values


def _combine_latest(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Pairs (a, b) of a value and an other's value, at most n + m - 1 of them; the
    first coordinates in order (a subsequence of the values), the seconds too."""
    other, theirs = _other_source(op, m, "cl")
    out_flow = Flow.combine_latest(flow, other, prefetch=op.k + 1)
    out_flow = out_flow.do_on_next(_monotone_pairs(expect.values, theirs))
    ends = expect.ends | ({COMPLETE} if not theirs else set())
    if expect.order != "list":
        return out_flow, _unknown(expect, ends)
    pairs = tuple((a, b) for a in expect.values for b in theirs)
    most = max(0, len(expect.values) + len(theirs) - 1)
    return out_flow, Expect(pairs, frozenset(ends), "bag", most=most, anytime=expect.anytime)


def _monotone_pairs(mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> Callable[[Any], None]:
    """combine_latest's pairs: each coordinate moves forward only, one at a time."""
    index_a = {_key(v): i for i, v in enumerate(mine)}
    index_b = {_key(v): i for i, v in enumerate(theirs)}
    last: list[tuple[int, int]] = []

    def check(pair: Any) -> None:
        a, b = index_a.get(_key(pair[0]), -1), index_b.get(_key(pair[1]), -1)
        if last and (a < last[-1][0] or b < last[-1][1] or (a, b) == last[-1]):
            INNER_PROBLEMS.append(f"combine_latest: {pair!r} after {last[-1]!r} (indexes)")
        last.append((a, b))

    return check


def _with_latest_from(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """A synchronous other is subscribed (and current) first: (a, its last value) for
    each value; no value without one. On an executor: pairs with any of its values."""
    other, theirs = _other_source(op, m, "wl")
    out_flow = flow.with_latest_from(other, prefetch=op.k + 1)
    if not theirs:
        return out_flow, Expect((), expect.ends, anytime=expect.anytime)
    if expect.order == "list" and not op.manual:
        pairs = tuple((a, theirs[-1]) for a in expect.values)
        return out_flow, replace(expect, values=pairs, count=None)
    if expect.order == "list":
        pairs = tuple((a, b) for a in expect.values for b in theirs)
        return out_flow, Expect(pairs, expect.ends, "bag", most=len(expect.values))
    return out_flow, _unknown(expect, expect.ends)


def _switch_map(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """Inners of 1 to 3 values (``_switched``): a subsequence of their concatenation (a
    newer element drops what the former inner has not delivered); at completion the last
    inner's values all came. But for variant c the inner's prefetch covers it (it completes
    before it is drained). The mapper raises on the fault-th element (UserFault)."""
    target = _pick_target(expect, op.fault)
    key = _key(target) if target is not None else None
    ex = m.new_executor("inners") if op.manual else None

    def mapper(x: Any) -> Any:
        if key is not None and _key(x) == key:
            raise UserFault(f"switch_map on {x!r}")
        values = _switched(x)
        if ex is not None:
            return from_iterable(values, executor=ex, batch_size=1)
        return Flow.from_iterable(values)

    out_flow = flow.switch_map(mapper, prefetch=1 + op.k // 2 if op.variant == "c" else 4)
    if expect.order != "list":
        ends = expect.ends | ({"UserFault"} if target is not None else set())
        return out_flow, replace(_unknown(expect, ends), order="none")
    values = expect.values
    ends = expect.ends
    if key is not None:
        values = values[: [_key(v) for v in values].index(key)]
        ends = (ends - {COMPLETE}) | {"UserFault"}
    inner = tuple(y for v in values for y in _switched(v))
    return out_flow, Expect(inner, ends, "subseq", keeps_last=True, anytime=expect.anytime)


def _switched(x: Any) -> list[Any]:
    """switch_map's inner values for ``x``: 1 to 3 of them."""
    return [("s", x, j) for j in range(1 + _stable(("s", x)) % 3)]


def _group_by(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """group_by(key) flattened: each value tagged with its key, a bag (each group's
    order kept: checked at its element); variant c bounds the groups below the keys
    (max_groups=1: ValueError naming max_groups once a second key comes)."""
    groups = 1 + op.k % 3
    bound = 1 if op.variant == "c" else groups

    def key(x: Any) -> int:
        return _stable(x) % groups

    seen: dict[int, list[int]] = {}
    order: dict[Any, list[int]] = {}  # a value's places: retry repeats values
    for i, v in enumerate(expect.values):
        order.setdefault(_key(v), []).append(i)

    def in_order(pair: Any) -> None:
        last = seen[pair[0]][-1] if seen.get(pair[0]) else -1
        index = next((i for i in order.get(_key(pair[1]), ()) if i > last), -1)
        if seen.get(pair[0]) and index < seen[pair[0]][-1]:
            INNER_PROBLEMS.append(f"group_by: group {pair[0]} out of order at {pair!r}")
        seen.setdefault(pair[0], []).append(index)

    out_flow = flow.group_by(key, max_groups=bound, prefetch=op.k + 1).flat_map(
        lambda g: g.map(lambda v: (g.key, v)), max_concurrency=groups
    )
    if expect.order == "list":
        out_flow = out_flow.do_on_next(in_order)
    tagged = tuple((key(v), v) for v in expect.values)
    out = Expect(tagged, expect.ends, "bag", anytime=expect.anytime)
    if expect.order == "none":
        out = _unknown(expect, expect.ends)
    elif expect.count is not None and expect.order != "subseq":
        out = replace(out, count=expect.count)
    if bound < groups:
        out = replace(out, count=None).cut_in("ValueError")
    return out_flow, out


def _clocked(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """sample(dt): a subsequence, the last value delivered at completion.
    throttle_first(dt): a subsequence. buffer_timeout(n, dt) and window_timeout(n, dt)
    flattened: the same list, no batch over n (checked at each batch); an error cuts
    in (the batch being filled is dropped).
    delay_subscription(dt): the same."""
    clock = m.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    name = op.name
    if name == "sample":
        return flow.sample(dt, scheduler=clock), replace(
            _lossy(expect), keeps_last=expect.order == "list"
        )
    if name == "throttle_first":
        return flow.throttle_first(dt, scheduler=clock), _lossy(expect)
    if name == "delay_subscription":
        return flow.delay_subscription(dt, scheduler=clock), _subscribes_late(expect, m)
    size = op.other + 1

    def bounded(batch: list[Any]) -> list[Any]:
        if not 0 < len(batch) <= size:
            INNER_PROBLEMS.append(f"{name}({size}): a batch of {len(batch)}")
        return batch

    # an error comes at once: the batch being filled is dropped
    out = replace(expect, anytime=expect.anytime | (expect.ends - {COMPLETE}))
    if name == "buffer_timeout":
        batches = flow.buffer_timeout(size, dt, scheduler=clock)
        return batches.map(bounded).concat_map(Flow.from_iterable), out
    windows = flow.window_timeout(size, dt, scheduler=clock)
    out_flow = windows.concat_map(lambda w: w.collect().map(bounded))
    return out_flow.concat_map(Flow.from_iterable), out


def _relays(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return _relay(op, flow, expect)


#: name -> (flow, model) builder: the operator families and issue 24's operators
def _dropping(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """map_not_none(fn) (None for the values filter's predicate drops) and handle (no
    ``sink.next`` for them): filter's model, the kept values tagged by the function."""
    keep = _keeper(op.variant)
    target = _pick_target(expect, op.fault)
    _, kept = _apply_op(replace(op, name="filter"), flow, expect, m)

    def step(x: Any) -> Any:
        return _tag(x) if keep(x) else None

    def handle(x: Any, sink: Any) -> None:
        value = step(x)
        if value is not None:
            sink.next(value)

    out = replace(kept, values=tuple(_tag(v) for v in kept.values))
    if op.name == "map_not_none":
        return flow.map_not_none(_raising(target, step)), out
    checked = _raising(target, lambda x: x)
    return flow.handle(lambda x, sink: handle(checked(x), sink)), out


DRAWN: dict[str, Callable[[OpSpec, Flow[Any], Expect, Builder], Model]] = {
    **dict.fromkeys(("map_not_none", "handle"), _dropping),
    "flat_map": _eager,
    "concat_map": _eager,
    **dict.fromkeys(("publish", "replay", "ref_count"), _multicast),
    **dict.fromkeys(RECOVERY, _recovery),
    **dict.fromkeys(JOINING, _joining),
    **dict.fromkeys(RELAYS + TAILS, _relays),
    **dict.fromkeys(("delay", "timeout", "debounce"), _timed),
    "retry_when": _retry_when,
    "switch_if_empty": _switch_if_empty,
    "defer": _defer,
    "do_on_error": _do_on_error,
    "do_on_complete": _do_on_complete,
    "do_finally": _do_finally,
    "ignore_elements": _ignore_elements,
    "element_at": _element_at,
    "all": _all_any,
    "any": _all_any,
    "combine_latest": _combine_latest,
    "with_latest_from": _with_latest_from,
    "switch_map": _switch_map,
    "group_by": _group_by,
    "sample": _clocked,
    "throttle_first": _clocked,
    "buffer_timeout": _clocked,
    "window_timeout": _clocked,
    "delay_subscription": _clocked,
}


# ---------------------------------------------------------------------------- tests

_PHASES = (
    (Phase.explicit, Phase.reuse, Phase.generate)  # the kill is what counts, not the shrink
    if os.environ.get("HYPOTHESIS_PROFILE") == "mutants"
    else (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
)
_PROFILE_EXAMPLES = {"ci": 5, "mutants": 12, "long": 80}


def _examples() -> int:
    env = os.environ.get("RS_PIPELINE_EXAMPLES")
    if env:
        return int(env)
    return _PROFILE_EXAMPLES.get(os.environ.get("HYPOTHESIS_PROFILE", "ci"), 5)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("operator", OPERATORS)
def test_pipeline_machine(operator: str, fused: bool) -> None:
    machine = type(
        f"PipelineMachine_{operator}_{'fused' if fused else 'unfused'}",
        (PipelineMachine,),
        {"forced": operator, "fused": fused},
    )
    _RAN.append(True)
    logging.disable(logging.ERROR)  # faults on purpose are logged by the library (rule 2.13)
    try:
        run_state_machine_as_test(
            machine,
            settings=settings(
                settings(),
                max_examples=_examples(),
                stateful_step_count=25,
                report_multiple_bugs=False,
                phases=_PHASES,
            ),
        )
    finally:
        logging.disable(logging.NOTSET)


def test_rule_313_references_dropped() -> None:
    """Rule 3.13, collected from every pipeline the machine ran: a cancelled or finished
    subscription of any hop references its Subscriber no more."""
    if len(_RAN) < 2 * len(OPERATORS):
        pytest.skip("the machine did not run for every operator in this session")
    assert not RULE_313, f"{len(RULE_313)} pipelines, first: {RULE_313[0]}"


def test_hop_calls_after_terminal() -> None:
    """A call made after a hop's terminal signal is a no-op (rules 3.6, 3.7): its trace
    records no recv_*. Collected from every pipeline the machine ran."""
    if len(_RAN) < 2 * len(OPERATORS):
        pytest.skip("the machine did not run for every operator in this session")
    found = KNOWN_DEFECTS["hop-after-terminal"]
    assert not found, f"{len(found)} calls, first: {found[0]}"


def test_invalid_request_answered_by_on_error() -> None:
    """Rule 3.9: once a hop received request(n <= 0), its terminal signal is on_error.
    Collected from every pipeline the machine ran."""
    if len(_RAN) < 2 * len(OPERATORS):
        pytest.skip("the machine did not run for every operator in this session")
    found = KNOWN_DEFECTS["complete-after-invalid"]
    assert not found, f"{len(found)} hops, first: {found[0]}"


class _FaultyOnSubscribe:
    """Raises from on_subscribe (rule 2.13: the publisher must then treat the
    subscription as cancelled); records every later signal."""

    def __init__(self) -> None:
        self.subscription: Any = None
        self.signals: list[str] = []

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription
        raise SubscriberFault("on_subscribe raised on purpose")

    def on_next(self, item: Any) -> None:
        self.signals.append("on_next")

    def on_error(self, error: BaseException) -> None:
        self.signals.append(f"on_error {type(error).__name__}")

    def on_complete(self) -> None:
        self.signals.append("on_complete")


def test_fault_in_on_subscribe_cancels() -> None:
    """After the Subscriber raised from on_subscribe the subscription is cancelled
    (2.13), so a later request is a no-op (3.6): no signal at all. Shown on
    ``from_iterable([]).map(f).reduce(g)`` and collected from the machine's pipelines."""
    faulty = _FaultyOnSubscribe()
    logging.disable(logging.ERROR)
    try:
        Flow.from_iterable([]).map(_tag).reduce(lambda a, b: a).subscribe(faulty)
    finally:
        logging.disable(logging.NOTSET)
    faulty.subscription.request(0)
    assert not faulty.signals, f"after the fault: {faulty.signals}"
    found = KNOWN_DEFECTS["signal-after-fault"]
    assert not found, f"{len(found)} pipelines, first: {found[0]}"


def test_subscribe_returns_normally_when_on_subscribe_raises() -> None:
    """Rule 1.9: ``subscribe`` returns normally even when on_subscribe raises (2.13).
    Shown on ``from_observable`` and collected from the machine's pipelines."""
    import reactivex

    from reactive_streams.rx import from_observable

    faulty = _FaultyOnSubscribe()
    logging.disable(logging.ERROR)
    try:
        from_observable(reactivex.from_iterable([1, 2]), "buffer").subscribe(faulty)
    finally:
        logging.disable(logging.NOTSET)
    found = KNOWN_DEFECTS["fault-escapes-subscribe"]
    assert not found, f"{len(found)} pipelines, first: {found[0]}"


def test_coverage_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Every operator, fused and unfused, was drawn by the machine in this run."""
    if len(_RAN) < 2 * len(OPERATORS):
        pytest.skip("the machine did not run for every operator in this session")
    names = sorted({name for name, _ in COVERAGE} | set(OPERATORS))
    lines = ["", "pipeline machine coverage (pipelines drawn per operator):"]
    lines.append(f"  {'operator':24} {'fused':>7} {'unfused':>8}")
    for name in names:
        lines.append(f"  {name:24} {COVERAGE[(name, True)]:7} {COVERAGE[(name, False)]:8}")
    with capsys.disabled():
        print("\n".join(lines))
    missing = [(n, f) for n in OPERATORS for f in (True, False) if COVERAGE[(n, f)] == 0]
    assert not missing, f"operators never drawn: {missing}"
