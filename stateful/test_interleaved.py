"""The interleaving machine: real threads under the deterministic scheduler.

Pipelines are drawn as in the pipeline machine (``build_source``, ``apply_op``), but every
executor is a ``SchedExecutor``: the source, the inners and every hop's drain run on
controlled worker threads, and two or three caller threads call ``request``/``cancel``
on the probe's subscription (serialised by a scheduler ``Mutex``, as rule 2.7 asks,
but from different threads) while the source emits. The threads run one at a time and
switch only at the core's synchronisation points (``stateful/interleave.py``); the
schedule is drawn by Hypothesis (``test_interleaved_pipelines``) or enumerated up to a
bound on preemptions (``test_explore_*``, CHESS-style).

After every step (every slice between two points), with every thread stopped: every
traced hop replayed against the spec's twins (``invariants.check_all``), the probe's own
checks (1.1, 1.3 across threads, 1.7, 1.8, 2.13), the value oracle, and the internal
bounds (a replay stage keeps at most ``bound`` elements, publish's outstanding demand is
at most its buffer, an Emitter holds at most ``bound``). Once every thread has ended (at
rest): liveness (the probe got what it asked for or terminated), the end-of-trace
properties (``invariants.check_at_rest``), rule 3.13 on the real objects, and, once the
probe stopped, every hop upstream cancelled or terminated (also through ``ref_count``).
No category is excused. A failure prints its schedule; ``replay_plan`` replays it.

Deeper exploration: ``RS_SLOW=1`` (or ``make interleave``) raises the preemption bound
and the number of drawn schedules.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactive_streams import Emitter, Flow, tracing
from reactive_streams._core import tracer as core_tracer
from reactive_streams.multicast import PublishConnection
from reactive_streams.multicast._replay import ReplayConnection
from reactive_streams.trace.format import event_from_dict
from reactive_streams.trace.model import Replay
from reactive_streams.trace.transitions import DONE

from . import invariants as inv
from .families import collect_cells
from .interleave import (
    Counterexample,
    Mutex,
    SchedExecutor,
    Scheduler,
    explore,
    explore_lines,
    parse_preemptions,
    parse_schedule,
    schedules,
)
from .machines import Arm, TracedMachine
from .test_pipeline_machine import (
    INNER_PROBLEMS,
    OpSpec,
    PipeProbe,
    SourceSpec,
    Stage,
    apply_op,
    build_source,
    check_values,
)

SLOW = bool(os.environ.get("RS_SLOW"))
#: the whole exploration (``make mutants`` runs with the ``mutants`` profile)
DEEP = SLOW or os.environ.get("HYPOTHESIS_PROFILE") == "mutants"
#: the cells: an operator forced into every drawn pipeline (``-k`` selects them): the
#: families' cells marked ``interleaved`` (``tests/operators/<family>/cells.py``), and an
#: Emitter fed by a thread of its own
_INTERLEAVED = tuple(cell for cell in collect_cells() if cell.interleaved)
CELLS = (*(cell.name for cell in _INTERLEAVED), "emitter")
#: the multicast family's cells: drawn with a manual connection
_MULTICAST = frozenset(cell.name for cell in _INTERLEAVED if cell.family == "multicast")
_SOURCES = ("sync", "generator", "manual", "failing", "raising")


@dataclass(frozen=True)
class Plan:
    source: SourceSpec
    ops: tuple[OpSpec, ...]
    initial: int
    calls: tuple[tuple[tuple[str, int], ...], ...]  # per caller thread
    echo: int | None = None  # the probe requests this from inside every on_next
    raise_at: int | None = None  # the probe raises from this on_next (0-based)
    emitter: tuple[int, str] | None = None  # (bound, overflow): an Emitter fed by a thread
    source_cancelled: bool = False  # the source outlasts every demand: a cancel must end it

    def __repr__(self) -> str:
        return (
            f"Plan(source={self.source}, ops={list(self.ops)}, initial={self.initial}, "
            f"calls={self.calls}, echo={self.echo}, raise_at={self.raise_at}, "
            f"emitter={self.emitter})"
        )


@dataclass
class SchedBuilder:
    """Builds pipelines whose every executor is a controlled worker thread."""

    sched: Scheduler
    stages: list[Stage] = field(default_factory=list)
    coverage_extra: set[str] = field(default_factory=set)
    where: list[str] = field(default_factory=list)
    running: str = "worker"
    executors: list[SchedExecutor] = field(default_factory=list)

    def new_executor(self, role: str) -> SchedExecutor:
        ex = SchedExecutor(self.sched, f"{role}-{len(self.executors)}")
        self.executors.append(ex)
        return ex


class SerialProbe(PipeProbe):
    """A PipeProbe whose calls, from any thread, are serial (rule 2.7): a scheduler
    ``Mutex`` (re-entrant: a call from inside a signal nests)."""

    mutex: Mutex | None = None

    def request(self, n: Any) -> None:
        assert self.mutex is not None
        with self.mutex:
            super().request(n)

    def cancel(self) -> None:
        assert self.mutex is not None
        with self.mutex:
            super().cancel()


class HopJudge:
    """Every traced hop of a run replayed against the spec's twins, event by event (the
    interleaving machines share it): ``step`` after every step, ``at_rest`` at the end,
    ``running`` the subscriptions neither cancelled nor terminated."""

    def __init__(self) -> None:
        self.tracer = tracing.start_tracing()  # the caller restores the former one
        self.replay = Replay(sync=False, call_ends=False)
        self.cursor = 0
        self.skipped: set[int] = set()

    def step(self) -> None:
        events = self.tracer.events
        for k in range(self.cursor, len(events)):
            event = event_from_dict(events[k], k + 1)
            if event.sub in self.skipped:
                continue
            why = self.replay.step(event)
            if why is not None and " overlaps " in why:
                # vocabulary v1 (no end_request): a signal nested in a request made from
                # inside a signal reads as an overlap; the probe judges 1.3 itself
                self.skipped.add(event.sub)
                self.replay.subs.pop(event.sub, None)
                continue
            assert why is None, f"event {event.index} ({event.sig}, sub {event.sub}): {why}"
            broken = inv.check_all(self.replay.state(event.sub))
            assert not broken, f"event {event.index} ({event.sig}, sub {event.sub}): {broken}"
        self.cursor = len(events)

    def at_rest(self) -> None:
        """The end of the trace: nothing left open, the properties at rest."""
        self.step()
        end = self.replay.unfinished()
        assert end is None, f"at rest: {end}"
        for sub, state in self.replay.subs.items():
            broken = inv.check_at_rest(state)
            assert not broken, f"at rest, subscription {sub}: {broken}"

    def running(self) -> list[int]:
        return sorted(s for s, state in self.replay.subs.items() if state.pub not in DONE)


class Run:
    """One plan under one schedule: builds, judges after every step and at rest."""

    def __init__(self, plan: Plan, sched: Scheduler) -> None:
        self.plan = plan
        self.sched = sched
        self.builder = SchedBuilder(sched)
        self.where = repr(plan)
        self.emitter: Emitter[Any] | None = None
        self.log: list[dict[str, Any]] = []
        self.hops = HopJudge()
        self.replay = self.hops.replay
        flow, self.expect = self._source()
        for op in plan.ops:
            if op.name == "flat_map_just":  # every inner is scalar: flat_map's fast path
                flow = flow.flat_map(Flow.just, 1 + op.other, 1 + op.k // 2)
                self.expect = replace(self.expect, order="bag")
            else:
                flow, self.expect = apply_op(op, flow, self.expect, self.builder)
        probe = SerialProbe(self.log, 1, plan.initial or None, "probe")
        probe.mutex = Mutex(sched)
        probe.echo = plan.echo
        if plan.raise_at is not None:
            probe.arms.append(Arm("on_next", "raise", skip=plan.raise_at))
        self.probe = probe
        flow.subscribe(probe)  # on the test thread: it passes every point
        for stage in reversed(self.builder.stages):  # downstream first (see the machine)
            if stage.conn is not None:
                stage.conn.connect()
        for j, calls in enumerate(plan.calls):
            sched.spawn(f"caller{j}", self._caller(calls))
        if self.emitter is not None:
            sched.spawn("producer", self._producer(self.emitter))
        for ex in self.builder.executors:
            ex.start()
        sched.check = self.check_step

    def _source(self) -> Any:
        if self.plan.emitter is None:
            return build_source(self.plan.source, self.builder)
        bound, overflow = self.plan.emitter
        self.emitter = Emitter(bound, overflow=overflow)
        values = tuple(range(self.plan.source.length))
        expect = build_source(SourceSpec("sync", len(values)), self.builder)[1]
        if overflow != "error":
            expect = replace(expect, order="subseq", count=None)
        else:  # the producer outran the demand: the stream fails after what was buffered
            expect = expect.cut_in("BufferOverflowError")
        return self.emitter.flow, expect

    def _producer(self, emitter: Emitter[Any]) -> Callable[[], None]:
        def produce() -> None:
            for v in range(self.plan.source.length):
                try:
                    emitter.emit(v)
                except Exception:
                    return  # overflow="error": the stream fails
                self.sched.point("emit")  # a point between two emissions
            emitter.complete()

        return produce

    def _caller(self, calls: tuple[tuple[str, int], ...]) -> Callable[[], None]:
        probe = self.probe

        def call() -> None:
            # rule 1.9: on_subscribe may come from a worker (a deadlock here: it never did)
            self.sched.block_until(lambda: probe.subscription is not None or probe.stopped)
            for kind, n in calls:
                if probe.subscription is None:
                    return
                if kind == "request":
                    probe.request(n)
                else:
                    probe.cancel()

        return call

    # ----------------------------------------------------------- every step
    def check_step(self) -> None:
        """With every thread stopped: the trace, the probe, the oracle, the bounds."""
        assert not INNER_PROBLEMS, INNER_PROBLEMS[0]
        self.hops.step()
        probe = self.probe
        assert not probe.problems, probe.problems[0]
        assert not probe.after_fault, f"rule 2.13: {probe.after_fault[0]} after the fault"
        # no DisconnectedError excused: ref_count's last subscriber has its cancel
        # received before it detaches the connection, so the disconnect never signals it
        check_values(
            self.expect,
            probe.values,
            probe.completed,
            probe.error if probe.errors else None,
            "probe",
            probe.invalid,
        )
        if not self.sched.mid_line:  # a replay stage may be between its append and its trim
            self.check_bounds()

    def check_bounds(self) -> None:
        for stage in self.builder.stages:
            conn = stage.hub.connection if stage.hub is not None else None
            if isinstance(conn, ReplayConnection) and conn._bound is not None:
                kept = len(conn.replayable)
                assert kept <= conn._bound, f"replay keeps {kept} > bound {conn._bound}"
            if isinstance(conn, PublishConnection):
                assert conn.buffered <= stage.buffer, (
                    f"publish holds {conn.buffered} > buffer {stage.buffer}"
                )
        emitter = self.emitter
        if emitter is not None:
            held = len(emitter._buffer)
            assert held <= emitter._bound, f"the Emitter holds {held} > bound {emitter._bound}"

    # -------------------------------------------------------------- at rest
    def check_at_rest(self) -> None:
        """Every thread ended, nothing queued: liveness, the properties at rest, 3.13,
        and upstream released once the probe stopped."""
        self.check_step()
        probe = self.probe
        if probe.cancelled or probe.faulted:
            probe.sealed = True
        assert not probe.owed, (
            f"liveness at rest: {probe!r} is owed "
            f"{'an onError (rule 3.9)' if probe.invalid else 'elements'}, got "
            f"{probe.values!r}, every thread ended and nothing is queued"
        )
        self.hops.at_rest()
        if probe.subscription is not None:
            TracedMachine.references_dropped(probe, probe.subscription)  # rule 3.13
        if probe.stopped and all(stage.conn is None for stage in self.builder.stages):
            # ref_count disconnects with its last subscriber: nothing upstream may run
            running = self.hops.running()
            assert not running, (
                f"at rest: the probe stopped, yet hop subscription(s) {running} upstream "
                f"were neither cancelled nor terminated"
            )
        if self.plan.source_cancelled and probe.cancelled:
            # ref_count disconnects with its last subscriber: the source is cancelled,
            # not pulled to its end for nobody
            source = max(self.replay.subs)
            ended = self.replay.state(source).pub
            assert ended == "cancelled", (
                f"at rest: the probe cancelled, yet the source (subscription {source}) "
                f"ended {ended}, not cancelled: the connection outlived its last subscriber"
            )


def _run(plan: Plan, sched: Scheduler) -> Run:
    previous = core_tracer._tracer
    try:
        return Run(plan, sched)
    finally:
        core_tracer._tracer = previous


def run_plan(
    plan: Plan,
    schedule: list[int],
    max_preemptions: int | None = None,
    lines: list[tuple[int, int]] | None = None,
) -> Scheduler:
    """Run ``plan`` under ``schedule`` (thread indices; the default after it) and judge it;
    ``lines``: line-level preemptions (``interleave.parse_preemptions``)."""
    sched = Scheduler(schedule, max_preemptions=max_preemptions, lines=lines)
    run = _run(plan, sched)
    INNER_PROBLEMS.clear()
    logging.disable(logging.ERROR)  # faults on purpose are logged by the library (2.13)
    try:
        sched.run()
        try:
            run.check_at_rest()
        except AssertionError as exc:
            raise Counterexample(str(exc), sched.schedule) from exc
    except Counterexample as exc:
        raise Counterexample(f"{exc.message}\n{run.where}", exc.schedule) from exc
    finally:
        logging.disable(logging.NOTSET)
    return sched


def replay_plan(plan: Plan, schedule: str) -> Scheduler:
    """Replay a printed schedule (``Counterexample.schedule``) of ``plan``, line-level
    preemptions (``@n>t``) included."""
    return run_plan(plan, parse_schedule(schedule), lines=parse_preemptions(schedule) or None)


def explore_plan(plan: Plan, preemptions: int, max_runs: int = 5_000, lines: bool = False) -> int:
    """Every schedule of ``plan`` with at most ``preemptions`` preemptions at the points
    (``lines``: at the lines of library code, ``interleave.explore_lines``); the runs made."""

    def build(sched: Scheduler) -> Callable[[], None]:
        run = _run(plan, sched)
        INNER_PROBLEMS.clear()
        return run.check_at_rest

    logging.disable(logging.ERROR)
    try:
        result = (explore_lines if lines else explore)(build, preemptions, max_runs)
    except Counterexample as exc:
        raise Counterexample(f"{exc.message}\n{plan!r}", exc.schedule) from exc
    finally:
        logging.disable(logging.NOTSET)
    return result.runs


# ------------------------------------------------------------------ strategies

_call = st.one_of(
    st.tuples(st.just("request"), st.integers(1, 3)),
    st.tuples(st.just("request"), st.integers(1, 3)),
    st.tuples(st.just("request"), st.integers(1, 3)),
    st.tuples(st.just("request"), st.sampled_from([2**63 - 1, 0])),
    st.tuples(st.just("cancel"), st.just(0)),
)


def _op(name: str) -> st.SearchStrategy[OpSpec]:
    multicast = name in _MULTICAST
    return st.builds(
        OpSpec,
        name=st.just(name),
        k=st.integers(0, 3),
        fault=st.one_of(st.none(), st.none(), st.none(), st.integers(0, 3)),
        variant=st.sampled_from(["a", "b", "c"]),
        other=st.integers(0, 3),
        manual=st.just(True) if multicast else st.booleans(),
        inner=st.just("plain"),  # no thread of its own: the scheduler runs everything
    )


#: the operators drawn beside the forced one: interleaved cells of no thread or connection
#: of their own to set up (``test_the_neighbours_are_interleaved_cells``)
_NEIGHBOURS = ("map", "filter", "take", "flat_map", "observe_on", "zip")


def test_the_neighbours_are_interleaved_cells() -> None:
    """A neighbour is drawn with its family's model: it must be a cell the machine runs."""
    unknown = sorted(set(_NEIGHBOURS) - (set(CELLS) - _MULTICAST - {"emitter"}))
    assert not unknown, f"neighbours that are not interleaved cells: {unknown}"


@st.composite
def plans(draw: st.DrawFn, cell: str) -> Plan:
    emitter = None
    if cell == "emitter":
        emitter = (
            draw(st.integers(1, 3)),
            draw(st.sampled_from(["drop_oldest", "drop_oldest", "drop_latest", "error"])),
        )
        ops: tuple[OpSpec, ...] = ()
        if draw(st.booleans()):
            ops = (draw(_op(draw(st.sampled_from(("map", "filter", "observe_on"))))),)
    else:
        forced = draw(_op(cell))
        extra = draw(st.lists(st.sampled_from(_NEIGHBOURS).flatmap(_op), max_size=1))
        ops = (forced, *extra) if draw(st.booleans()) else (*extra, forced)
    source = draw(
        st.builds(
            SourceSpec,
            kind=st.sampled_from(_SOURCES),
            length=st.integers(0, 5),
            batch=st.integers(1, 3),
            at=st.integers(0, 4),
        )
    )
    calls = draw(
        st.lists(st.lists(_call, min_size=1, max_size=4).map(tuple), min_size=2, max_size=3)
    )
    return Plan(
        source=source,
        ops=ops,
        initial=draw(st.integers(0, 3)),
        calls=tuple(calls),
        echo=draw(st.sampled_from([None, None, 1])),
        raise_at=draw(st.one_of(st.none(), st.none(), st.none(), st.integers(0, 3))),
        emitter=emitter,
    )


def _examples() -> int:
    env = os.environ.get("RS_INTERLEAVE_EXAMPLES")
    if env:
        return int(env)
    if SLOW:
        return 200
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    return {"mutants": 60, "long": 100}.get(profile, 4)  # long: make sweep, fresh draws


# ----------------------------------------------------------------------- tests


@pytest.mark.parametrize("cell", CELLS)
def test_interleaved_pipelines(cell: str) -> None:
    """Hypothesis draws a pipeline with ``cell`` in it, the callers' calls and a
    schedule (at most 3 preemptions); every step and the rest are judged."""

    @settings(
        max_examples=_examples(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        database=None,
    )
    @given(plan=plans(cell), schedule=schedules(4, max_size=20))
    def check(plan: Plan, schedule: list[int]) -> None:
        run_plan(plan, schedule, max_preemptions=3)

    check()


def _srcspec(kind: str, length: int, batch: int = 1) -> SourceSpec:
    return SourceSpec(kind, length, batch)


#: fixed scenarios explored systematically: each is where one class of race lives
SCENARIOS: dict[str, tuple[Plan, int]] = {
    # three callers request through a pass-through hop while its source's drain runs on
    # a worker (rule 3.8: a lost wake-up in the serial subscription or the drain)
    "serial-requests": (
        Plan(
            _srcspec("manual", 4),
            (OpSpec("map"),),
            0,
            ((("request", 1),), (("request", 1),), (("request", 2),)),
        ),
        1,
    ),
    # filter's replacement request(1) on the worker races the callers' requests
    "filter-replacement": (
        Plan(
            _srcspec("manual", 4),
            (OpSpec("filter", variant="c"),),
            0,
            ((("request", 1),), (("request", 1),)),
        ),
        1,
    ),
    # a caller's cancel while filter's replacement request(1) holds the serial
    # subscription on the worker: the holder must make the queued cancel (rule 3.12)
    "filter-cancel": (
        Plan(
            _srcspec("manual", 6),
            (OpSpec("filter", variant="c"),),
            0,
            ((("request", 2),), (("request", 1), ("cancel", 0))),
        ),
        1,
    ),
    # flat_map of inners from a worker, some queued, replenished from the callers
    "flat_map-inners": (
        Plan(
            _srcspec("manual", 3),
            (OpSpec("flat_map", k=1, variant="c", other=3),),
            0,
            ((("request", 1),), (("request", 1),)),
        ),
        1,
    ),
    # flat_map of scalar inners (just(x)) from a worker: a caller's drain takes the demand
    # between the scalar path's look at it and its taking the drain (rule 1.1)
    "flat_map-scalar": (
        Plan(
            _srcspec("manual", 3),
            (OpSpec("flat_map_just", k=1, other=0),),  # one inner at a time
            0,
            ((("request", 1),), (("request", 1),)),
        ),
        2,
    ),
    # zip of two sources on workers; cancel from a caller
    "zip-cancel": (
        Plan(
            _srcspec("manual", 3),
            (OpSpec("zip", other=1, manual=True),),
            0,
            ((("request", 2),), (("request", 1), ("cancel", 0))),
        ),
        1,
    ),
    # observe_on with a small prefetch: replenishment races the callers
    "observe_on-replenish": (
        Plan(
            _srcspec("manual", 5),
            (OpSpec("observe_on", k=0),),
            0,
            ((("request", 2),), (("request", 3),)),
        ),
        0,  # 226 schedules; 10,884 with one preemption (RS_SLOW)
    ),
    # ref_count: the only subscriber cancels; the connection must go
    "ref_count-cancel": (
        Plan(
            _srcspec("manual", 8),  # longer than the demand: only a cancel ends it
            (OpSpec("ref_count", k=1, variant="a", manual=True),),
            0,
            ((("request", 1),), (("request", 1), ("cancel", 0))),
            source_cancelled=True,
        ),
        0,
    ),
    # ref_count over replay: the last subscriber cancels while the connection's drain
    # runs on its worker; the disconnect must not end it with DisconnectedError
    "ref_count-replay-cancel": (
        Plan(
            _srcspec("manual", 8),
            (OpSpec("ref_count", k=1, variant="b", manual=True),),
            0,
            ((("request", 1),), (("request", 1), ("cancel", 0))),
            source_cancelled=True,
        ),
        1,
    ),
    # replay with a bound below the source's length
    "replay-bound": (
        Plan(
            _srcspec("manual", 4),
            (OpSpec("replay", k=0, variant="b", manual=True),),
            0,
            ((("request", 2),), (("request", 2),)),
        ),
        1,
    ),
    # an Emitter fed by a producer thread, drop_oldest with bound 1
    "emitter-drop_oldest": (
        Plan(
            _srcspec("sync", 3),
            (),
            0,
            ((("request", 1),), (("request", 1),)),
            emitter=(1, "drop_oldest"),
        ),
        1,
    ),
}


#: ``make test``'s schedules with the scenario's bound, where 60 would not reach what the
#: machine's own planted bugs need (tools/mutants.py; the gate must see what its machine
#: sees): serial-lost-wake-up fails at schedule 69 of filter-replacement (whose 468 are
#: all run), and ref_count's DisconnectedError inside its own cancel at 669 of
#: ref_count-replay-cancel
CI_RUNS = {"filter-replacement": 500, "ref_count-replay-cancel": 700}

#: schedules ``make test`` replays beside its first runs, where the exploration reaches a
#: planted bug only after thousands of runs (a minute): flat_map-scalar-no-recheck fails
#: at schedule 4,474 of flat_map-scalar (rule 1.1), this one. ``make interleave`` and
#: ``make mutants`` explore the whole bound.
PINNED = {"flat_map-scalar": ("2*19 1*9 2*3 1*2 2",)}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_explore(name: str) -> None:
    """Every schedule of the scenario with at most k preemptions (k + 1 with RS_SLOW);
    in the default run, the first 40 schedules without preemption and 60 with k (or
    ``CI_RUNS``), and the ``PINNED`` ones; with the ``mutants`` profile, up to 5,000 with k."""
    plan, k = SCENARIOS[name]
    if DEEP:
        runs = explore_plan(plan, k + SLOW, max_runs=50_000 if SLOW else 5_000)
    else:
        ci = CI_RUNS.get(name, 60)
        runs = explore_plan(plan, 0, max_runs=40) + explore_plan(plan, k, max_runs=ci)
        for schedule in PINNED.get(name, ()):
            replay_plan(plan, schedule)
            runs += 1
    print(f"{name}: {runs} schedules")  # shown with -s (make interleave)
    assert runs > 0


@pytest.mark.skipif(not SLOW, reason="make interleave (RS_SLOW=1): the line-level mode")
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_explore_lines(name: str) -> None:
    """The scenario at line level (``interleave.explore_lines``): every single preemption
    at a line of library code, from each starting thread (up to 1,500 runs)."""
    runs = explore_plan(SCENARIOS[name][0], 1, 1_500, lines=True)
    print(f"{name}: {runs} line-level runs")  # shown with -s (make interleave)
    assert runs > 1


def test_serial_subscription_three_requesters() -> None:
    """The lost wake-up of issue 28, on the serial subscription alone: three threads
    request from one ``SerialSubscription``; every request must reach upstream."""
    from reactive_streams._core.serial import SerialSubscription

    class Upstream:
        requested = 0

        def request(self, n: int) -> None:
            self.requested += n

        def cancel(self) -> None:
            pass

    def build(sched: Scheduler) -> Callable[[], None]:
        up = Upstream()
        serial = SerialSubscription(up)

        def twice() -> None:
            serial.request(1)
            serial.request(1)

        for j in range(3):
            sched.spawn(f"caller{j}", twice)

        def final() -> None:
            assert up.requested == 6, f"rule 3.8: upstream received {up.requested} of 6"

        return final

    result = explore(build, 2 if SLOW else 1)
    assert result.complete
    assert result.runs > 1


def test_replay_recorded_schedule() -> None:
    """A printed schedule replays deterministically: a run under a drawn prefix prints
    its whole schedule; replayed twice from that text, the same threads stop at the
    same points in the same order."""
    plan, _ = SCENARIOS["serial-requests"]
    recorded = run_plan(plan, [3, 3, 0, 3, 1, 0, 2, 1, 3, 0, 3, 2])
    printed = recorded.schedule
    for _ in range(2):
        again = replay_plan(plan, printed)
        assert again.schedule == printed
        assert [(d.chosen, d.point) for d in again.decisions] == [
            (d.chosen, d.point) for d in recorded.decisions
        ]
    assert recorded.preemptions() >= 1


if __name__ == "__main__":  # python -m stateful.test_interleaved SCENARIO 'SCHEDULE'
    import sys

    replayed = replay_plan(SCENARIOS[sys.argv[1]][0], sys.argv[2])
    print(f"passed: {len(replayed.decisions)} steps, schedule {replayed.schedule!r}")
