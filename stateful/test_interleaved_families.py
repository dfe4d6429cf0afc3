"""The interleaving machine, one cell per operator family, at the points and between them.

``test_interleaved.py`` draws pipelines of the synchronous and multicast operators; the
families here attach or switch an upstream while the run goes on: an inner, a fallback,
a resubscription, a delayed subscription, a second subscriber of a group, a future's
callback. Each cell builds one small scenario whose sources and inners emit on threads
of their own (``subscribe_on`` a controlled worker, ``SchedExecutor``), whose timed
operators run on a virtual clock advanced by a controlled thread (``ManualExecutor``),
and whose caller threads request and cancel (serialised by a scheduler ``Mutex``, rule
2.7). Every cell is explored twice:

* at the core's scheduling points (``interleave.explore``, bounded preemptions), as
  ``test_interleaved.py`` does (``test_family_points``, in ``make test``);
* at every line of library code (``interleave.explore_lines``: one preemption at each
  line event where another thread could run, then seeded samples of two), in ``make
  interleave`` (``test_family_lines``); ``make test`` runs a smoke of it
  (``test_family_lines_smoke``: the first ``_SMOKE`` line-level runs of every cell).

Judged after every step (``World.check_step``), with every thread stopped: every traced
hop replayed against the spec's twins (``invariants.check_all``: the ``Spec...Inv``
names) and each probe's own checks (1.1, 1.3 across threads, 1.7, 2.12). At rest
(``World.check_at_rest``): the properties at rest (``invariants.check_at_rest``),
liveness (a probe with outstanding demand got it or terminated), ``one_terminal_prop``
(a probe that asked for everything and did not cancel got exactly one terminal signal),
rule 3.13 on the real objects, ``upstream_released_prop`` (once every subscriber
stopped, every traced hop, inners and fallbacks included, is cancelled or terminated:
a cancelled inner or upstream is cancelled, rules 3.12, 3.13) and
``no_timer_left_prop`` (once every subscriber stopped, no timer is left armed, 3.13).

A failure prints its schedule (with ``@n>t`` for a line-level preemption);
``replay_cell(name, schedule)`` replays it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from reactive_streams import Emitter, Flow, ManualExecutor
from reactive_streams._core import tracer as core_tracer
from reactive_streams.operators import Backoff
from reactive_streams.subscribers import LambdaSubscriber
from reactive_streams.trace.transitions import MAX_DEMAND

from .interleave import (
    Counterexample,
    Mutex,
    SchedExecutor,
    Scheduler,
    explore,
    explore_lines,
    parse_preemptions,
    parse_schedule,
)
from .machines import TracedMachine
from .test_interleaved import DEEP, SLOW, HopJudge, SerialProbe
from .test_pipeline_machine import SubscribeRaises

# DEEP (RS_SLOW=1, or the mutants profile): the line-level exploration of every cell
#: line-level runs per cell in ``make test`` (the smoke); ``make interleave`` runs them all
_SMOKE = 10
ALL = MAX_DEMAND


class Failure(Exception):
    """A source failed on purpose (rule 1.4)."""


@dataclass(frozen=True)
class _Failing:
    """``n`` elements, then ``Failure``: each subscription (retry's too) anew."""

    n: int

    def __iter__(self) -> Iterator[int]:
        yield from range(self.n)
        raise Failure(f"after {self.n} elements")


@dataclass
class World:
    """One scenario under one schedule: its threads, probes, clocks and judges."""

    sched: Scheduler
    log: list[dict[str, Any]] = field(default_factory=list)
    executors: list[SchedExecutor] = field(default_factory=list)
    clocks: list[ManualExecutor] = field(default_factory=list)
    probes: list[SerialProbe] = field(default_factory=list)
    #: every subscriber of the cell, as "has it stopped?" (probes and the others)
    stops: list[Callable[[], bool]] = field(default_factory=list)
    releases: bool = True  # all subscribers stopped: everything upstream must be released
    ends: bool = True  # a probe that asked for everything is owed its terminal signal
    #: the cell's own checks at rest
    at_rest: list[Callable[[], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hops = HopJudge()  # tracing on; the test restores the former tracer
        self.sched.check = self.check_step

    # ---------------------------------------------------------------- parts
    def executor(self, role: str) -> SchedExecutor:
        ex = SchedExecutor(self.sched, f"{role}-{len(self.executors)}")
        self.executors.append(ex)
        return ex

    def source(self, n: int, role: str = "source", fail: bool = False) -> Flow[int]:
        """``n`` elements (then an error with ``fail``), emitted on a worker of their own."""
        values: Iterable[int] = _Failing(n) if fail else range(n)
        return Flow.from_iterable(values).subscribe_on(self.executor(role))

    def clock(self, ticks: int, dt: float = 1.0) -> ManualExecutor:
        """A virtual clock moved ``dt`` on ``ticks`` times by a controlled thread, which
        stops once every subscriber stopped: a timer left armed then stays to be seen
        (``no_timer_left_prop``), not fired for nobody."""
        clock = ManualExecutor()
        self.clocks.append(clock)

        def tick() -> None:
            for _ in range(ticks):
                self.sched.point("tick")
                if all(stopped() for stopped in self.stops):
                    return
                clock.advance_by(dt)

        self.sched.spawn("clock", tick)
        return clock

    def probe(self, name: str, initial: int = 0) -> SerialProbe:
        probe = SerialProbe(self.log, len(self.probes) + 1, initial or None, name)
        probe.mutex = Mutex(self.sched)
        self.probes.append(probe)
        self.stops.append(lambda: probe.stopped)
        return probe

    def caller(self, probe: SerialProbe, calls: tuple[tuple[str, int], ...]) -> None:
        """A thread that waits for ``probe``'s subscription, then makes ``calls``."""

        def call() -> None:
            self.sched.block_until(lambda: probe.subscription is not None or probe.stopped)
            for kind, n in calls:
                if probe.subscription is None:
                    return
                if kind == "request":
                    probe.request(n)
                    continue
                if kind == "cancel_in_flight":  # once an inner's worker has started
                    self.sched.block_until(lambda: self.inner_started() or probe.stopped)
                probe.cancel()

        self.sched.spawn(f"caller{len(self.sched.threads)}", call)

    def inner_started(self) -> bool:
        return any(ex.ran for ex in self.executors if ex.name.startswith("inner"))

    def lambda_subscriber(self, sub: LambdaSubscriber[Any]) -> None:
        self.stops.append(sub.done.is_set)

    def start(self) -> None:
        for ex in self.executors:
            ex.start()

    # ------------------------------------------------------------- judging
    def check_step(self) -> None:
        """With every thread stopped: every hop against the spec's twins, the probes."""
        self.hops.step()
        for probe in self.probes:
            assert not probe.problems, probe.problems[0]

    def check_at_rest(self) -> None:
        """Every thread ended: the properties at rest, liveness, one terminal, 3.13, and
        upstream and timers released once every subscriber stopped."""
        self.check_step()
        timers = sum(clock.scheduled for clock in self.clocks)
        everyone_stopped = all(stopped() for stopped in self.stops)
        for probe in self.probes:
            if probe.cancelled or probe.faulted:
                probe.sealed = True
            terminals = int(probe.completed) + len(probe.errors)
            assert terminals <= 1, f"rule 1.7: {probe!r} got {terminals} terminal signals"
            if not self.ends or (timers and not probe.stopped):
                continue  # a timer still to fire is work pending: not at rest
            assert not probe.owed, (
                f"liveness at rest: {probe!r} is owed "
                f"{'an onError (rule 3.9)' if probe.invalid else 'elements'}, got "
                f"{probe.values!r}, every thread ended and nothing is queued"
            )
            if probe.requested == ALL and not probe.cancelled:  # one_terminal_prop
                assert terminals == 1, (
                    f"one_terminal_prop: {probe!r} asked for everything, did not cancel, "
                    f"and got {terminals} terminal signals (values {probe.values!r})"
                )
        self.hops.at_rest()
        for probe in self.probes:
            if probe.subscription is not None:
                TracedMachine.references_dropped(probe, probe.subscription)  # rule 3.13
        if everyone_stopped and self.releases:  # upstream_released_prop
            running = self.hops.running()
            assert not running, (
                f"upstream_released_prop: every subscriber stopped, yet hop subscription(s) "
                f"{running} were neither cancelled nor terminated (rules 3.12, 3.13)"
            )
        if everyone_stopped:  # no_timer_left_prop
            assert not timers, (
                f"no_timer_left_prop: every subscriber stopped, yet {timers} timer(s) are "
                f"still armed (rule 3.13)"
            )
        for check in self.at_rest:
            check()


# ----------------------------------------------------------------------- the cells
Build = Callable[[World], None]
Calls = tuple[tuple[str, int], ...]


def _req(n: int) -> tuple[str, int]:
    return ("request", n)


CANCEL = ("cancel", 0)
#: a cancel once an inner's worker has started (its on_subscribe may be in flight)
CANCEL_IN_FLIGHT = ("cancel_in_flight", 0)


def _one_probe(flow_of: Callable[[World], Flow[Any]], *callers: Calls, ends: bool = True) -> Build:
    """A probe of ``flow_of(world)`` and one caller thread per entry of ``callers``."""

    def build(world: World) -> None:
        world.ends = ends
        flow = flow_of(world)
        probe = world.probe("probe")
        flow.subscribe(probe)
        for calls in callers:
            world.caller(probe, calls)

    return build


def _lambda_cancel(world: World) -> None:
    """LambdaSubscriber's on_subscribe on a worker, its cancel on a caller (D11)."""
    world.ends = False
    emitter: Emitter[int] = Emitter(4)  # never completes: only a cancel ends it
    sub = emitter.flow.subscribe_on(world.executor("source")).subscribe(lambda x: None, request=2)
    world.lambda_subscriber(sub)
    world.sched.spawn("caller", sub.cancel)


def _group_by_two(world: World) -> None:
    """Two threads subscribe to one group (unicast: one wins, the other gets an error)."""
    outer = world.probe("groups", initial=ALL)
    world.source(3).group_by(lambda x: 0).subscribe(outer)
    joiners: list[SerialProbe] = []

    def one_subscriber() -> None:
        """A group admits one subscriber: the other is refused (on_subscribe, on_error),
        and the one admitted gets every element once and the end."""
        if not outer.values:
            return
        refused = [p for p in joiners if p.errors and "one subscriber" in str(p.errors[0])]
        admitted = [p for p in joiners if p not in refused]
        assert len(refused) == 1, (
            f"group_by: {len(refused)} of 2 subscribers of one group refused "
            f"({[(p.values, p.errors, p.completed) for p in joiners]})"
        )
        got = admitted[0]
        assert got.values == [0, 1, 2], f"group_by: the admitted subscriber got {got.values}"
        assert got.completed, f"group_by: the admitted subscriber did not complete: {got!r}"

    world.at_rest.append(one_subscriber)
    for j in range(2):
        probe = world.probe(f"group-subscriber{j}")
        joiners.append(probe)

        def join(probe: SerialProbe = probe) -> None:
            world.sched.block_until(lambda: bool(outer.values) or outer.stopped)
            if outer.values:
                outer.values[0].subscribe(probe)
                world.sched.block_until(lambda: probe.subscription is not None)
                probe.request(ALL)

        world.sched.spawn(f"joiner{j}", join)


def _share_two(world: World) -> None:
    """Two subscribers of ``share()`` subscribe, request and cancel from two threads."""
    world.ends = False  # a late subscriber of a finished share sees a new connection
    shared = world.source(4).share(buffer_size=2)
    for j, calls in enumerate(((_req(1), CANCEL), (_req(2), CANCEL))):
        probe = world.probe(f"subscriber{j}")

        def join(probe: SerialProbe = probe, calls: Calls = calls) -> None:
            shared.subscribe(probe)
            world.sched.block_until(lambda: probe.subscription is not None or probe.stopped)
            for kind, n in calls:
                if probe.subscription is not None and not probe.stopped:
                    probe.request(n) if kind == "request" else probe.cancel()

        world.sched.spawn(f"joiner{j}", join)


def _auto_connect(world: World) -> None:
    """``publish().auto_connect(2)``: the second subscriber (on a thread) connects."""
    world.releases = False  # auto_connect never disconnects
    flow = world.source(3).publish(2).auto_connect(2)
    first = world.probe("first", initial=ALL)
    flow.subscribe(first)
    second = world.probe("second")

    def join() -> None:
        flow.subscribe(second)
        world.sched.block_until(lambda: second.subscription is not None or second.stopped)
        if second.subscription is not None:
            second.request(ALL)

    world.sched.spawn("joiner", join)
    world.caller(first, (CANCEL,))


def _from_future(world: World) -> None:
    """A future completed by one thread, requested and cancelled by others."""
    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    probe = world.probe("probe")
    Flow.from_future(future).subscribe(probe)
    world.sched.spawn("completer", lambda: future.set_result(7))
    world.caller(probe, (_req(1),))
    world.caller(probe, (CANCEL,))


def _resume(world: World) -> Flow[int]:
    """A failing source resumed with a fallback on a worker of its own."""
    fallback = world.source(2, "fallback")
    return world.source(1, "a", fail=True).on_error_resume(lambda error: fallback)


def _inner(world: World, n: int, count: int) -> Callable[[int], Flow[int]]:
    """A mapper whose k-th inner has ``n`` elements on its own worker."""
    workers = [world.executor("inner") for _ in range(count)]
    return lambda x: Flow.range(n).subscribe_on(workers[x % count])


CELLS: dict[str, Build] = {
    # D11: LambdaSubscriber's on_subscribe (worker) against its cancel (caller)
    "lambda-cancel": _lambda_cancel,
    # D1: zip's inners get on_subscribe on their workers while a caller cancels
    "zip": _one_probe(
        lambda w: w.source(4, "a").zip_with(w.source(4, "b"), prefetch=2),
        (_req(1),),
        (CANCEL,),
    ),
    "combine_latest": _one_probe(
        lambda w: Flow.combine_latest(w.source(3, "a"), w.source(3, "b"), prefetch=1),
        (_req(2),),
        (CANCEL,),
    ),
    "with_latest_from": _one_probe(
        lambda w: w.source(3, "a").with_latest_from(w.source(3, "b"), prefetch=1),
        (_req(ALL),),
        (CANCEL,),
    ),
    "flat_map": _one_probe(
        lambda w: w.source(2).flat_map(_inner(w, 3, 2), max_concurrency=2, prefetch=1),
        (_req(2),),
        (CANCEL_IN_FLIGHT,),
    ),
    "switch_map": _one_probe(
        lambda w: w.source(2).switch_map(_inner(w, 3, 2), prefetch=1),
        (_req(ALL),),
        (CANCEL_IN_FLIGHT,),
    ),
    # D4: a second subscriber of one group
    "group_by": _group_by_two,
    # D2: delay_subscription's upstream subscribes on the clock while a caller cancels
    "delay_subscription": _one_probe(
        lambda w: Flow.range(5).delay_subscription(1.0, scheduler=w.clock(1)),
        (CANCEL,),
    ),
    "delay_subscription-request": _one_probe(
        lambda w: Flow.range(3).delay_subscription(1.0, scheduler=w.clock(1)),
        (_req(ALL),),
        (_req(1), CANCEL),
    ),
    # D3: retry's backoff timer armed on the source's worker while a caller cancels
    "retry-backoff": _one_probe(
        lambda w: (
            Flow.error(Failure("at once"))
            .subscribe_on(w.executor("source"))
            .retry(3, backoff=Backoff(1.0), scheduler=w.clock(3))
        ),
        (_req(ALL),),
        (CANCEL,),
    ),
    "retry": _one_probe(lambda w: w.source(2, fail=True).retry(1), (_req(ALL),), (CANCEL,)),
    "concat": _one_probe(
        lambda w: Flow.concat(w.source(2, "a"), w.source(2, "b")), (_req(1), _req(ALL)), (CANCEL,)
    ),
    "on_error_resume": _one_probe(_resume, (_req(ALL),), (CANCEL,)),
    "timeout-fallback": _one_probe(
        lambda w: Emitter[int](2).flow.timeout(1.0, w.source(2, "fallback"), scheduler=w.clock(1)),
        (_req(ALL),),
        (CANCEL,),
    ),
    "delay": _one_probe(
        lambda w: w.source(2).delay(1.0, scheduler=w.clock(4)), (_req(ALL),), (CANCEL,)
    ),
    "debounce": _one_probe(
        lambda w: w.source(2).debounce(1.0, scheduler=w.clock(3)),
        (_req(ALL),),
        (CANCEL,),
    ),
    "interval": _one_probe(
        lambda w: Flow.interval(1.0, scheduler=w.clock(3)).take(2),
        (_req(ALL),),
        (CANCEL,),
    ),
    # collaborators that misbehave: a fallback or an inner whose subscribe raises (rule
    # 1.9: the operator signals it), invalid requests while a timer runs (3.9 at once)
    "timeout-fallback-raises": _one_probe(
        lambda w: Emitter[int](2).flow.timeout(1.0, SubscribeRaises(), scheduler=w.clock(1)),
        (_req(ALL),),
        (_req(1),),
    ),
    "on_error_resume-raises": _one_probe(
        lambda w: w.source(1, fail=True).on_error_resume(lambda error: SubscribeRaises()),
        (_req(ALL),),
        (CANCEL,),
    ),
    "flat_map-inner-raises": _one_probe(
        lambda w: w.source(2).flat_map(
            lambda x: SubscribeRaises() if x else Flow.range(2).subscribe_on(w.executors[0]),
            max_concurrency=2,
            prefetch=1,
        ),
        (_req(ALL),),
        (_req(1),),
    ),
    "retry-invalid-request": _one_probe(
        lambda w: (
            Flow.error(Failure("at once"))
            .subscribe_on(w.executor("source"))
            .retry(3, backoff=Backoff(1.0), scheduler=w.clock(1))
        ),
        (_req(0),),
        (_req(1),),
    ),
    "delay_subscription-invalid-request": _one_probe(
        lambda w: Flow.range(3).delay_subscription(1.0, scheduler=w.clock(1)),
        (_req(0),),
        (_req(2),),
    ),
    "share": _share_two,
    "auto_connect": _auto_connect,
    "from_future": _from_future,
}


def _build(name: str) -> Callable[[Scheduler], Callable[[], None]]:
    def build(sched: Scheduler) -> Callable[[], None]:
        world = World(sched)
        CELLS[name](world)
        world.start()
        return world.check_at_rest

    return build


def _quiet(body: Callable[[], Any]) -> Any:
    """Run ``body`` with the tracer restored after it and the library's fault logs off."""
    previous = core_tracer._tracer
    logging.disable(logging.ERROR)  # faults on purpose are logged by the library (2.13)
    try:
        return body()
    finally:
        logging.disable(logging.NOTSET)
        core_tracer._tracer = previous


def replay_cell(name: str, schedule: str) -> Scheduler:
    """Replay a printed schedule (``Counterexample.schedule``) of cell ``name``."""
    sched = Scheduler(parse_schedule(schedule), lines=parse_preemptions(schedule))

    def run() -> None:
        final = _build(name)(sched)
        sched.run()
        try:
            final()
        except AssertionError as exc:
            raise Counterexample(str(exc), sched.schedule) from exc

    _quiet(run)
    return sched


def explore_cell_points(name: str, preemptions: int, max_runs: int) -> int:
    """Every schedule of the cell with at most ``preemptions`` preemptions at the points."""
    return int(_quiet(lambda: explore(_build(name), preemptions, max_runs).runs))


def explore_cell_lines(name: str, preemptions: int, max_runs: int, seed: int = 0) -> int:
    """The cell's line-level runs (``interleave.explore_lines``); the runs made."""
    return int(_quiet(lambda: explore_lines(_build(name), preemptions, max_runs, seed).runs))


#: cells that fail until a fix made elsewhere is merged (remove the entry with it)
AWAITING: dict[str, str] = {
    # cells whose defect is known and not yet fixed: name -> what fails (non-strict xfail);
    # empty since Downstream._finish reads rule 3.9's latch under its lock and timeout's
    # fallback is held in an Attach that its cleanup cancels (both found by the line mode)
}


def _cells() -> list[Any]:
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(reason=AWAITING[name], raises=Counterexample, strict=False),
        )
        if name in AWAITING
        else name
        for name in sorted(CELLS)
    ]


def _named(name: str, body: Callable[[], int]) -> int:
    try:
        return body()
    except Counterexample as exc:
        raise Counterexample(f"cell {name}: {exc.message}", exc.schedule) from exc


# ----------------------------------------------------------------------- tests


@pytest.mark.parametrize("name", _cells())
def test_family_points(name: str) -> None:
    """The cell at the core's points: the first 10 schedules without preemption and 25
    with one (with ``RS_SLOW``, up to 3,000 with two)."""
    if SLOW:
        runs = _named(name, lambda: explore_cell_points(name, 2, 3_000))
    else:
        runs = _named(
            name,
            lambda: explore_cell_points(name, 0, 10) + explore_cell_points(name, 1, 25),
        )
    print(f"{name}: {runs} schedules at the points")  # shown with -s (make interleave)
    assert runs > 0


@pytest.mark.parametrize("name", _cells())
def test_family_lines_smoke(name: str) -> None:
    """The cell at line level, its first ``_SMOKE`` single preemptions (seeded sample)."""
    runs = _named(name, lambda: explore_cell_lines(name, 1, _SMOKE))
    assert runs > 1


@pytest.mark.skipif(not DEEP, reason="make interleave (RS_SLOW=1): every line of every cell")
@pytest.mark.parametrize("name", _cells())
def test_family_lines(name: str) -> None:
    """Every single line-level preemption of the cell (up to 3,000), then 300 seeded
    samples of two."""
    began = time.monotonic()
    runs = _named(name, lambda: explore_cell_lines(name, 1, 3_000))
    runs += _named(name, lambda: explore_cell_lines(name, 2, 300, seed=1))
    print(f"{name}: {runs} line-level runs in {time.monotonic() - began:.1f} s")
    assert runs > 1


def test_line_schedule_replays() -> None:
    """A line-level schedule replays: the preemptions taken print as ``@n>t`` and a
    replay from that text stops the same threads at the same lines."""
    recorded = Scheduler((), lines=[(3, 1)])

    def run() -> None:
        final = _build("concat")(recorded)  # the world installs its tracer: _quiet restores it
        recorded.run()
        final()

    _quiet(run)
    assert recorded.taken, "the preemption at line event 3 took effect"
    printed = recorded.schedule
    assert "@" in printed
    assert parse_preemptions(printed) == recorded.taken
    again = replay_cell("concat", printed)
    assert again.schedule == printed
    assert [(d.chosen, d.point) for d in again.decisions] == [
        (d.chosen, d.point) for d in recorded.decisions
    ]
    assert any(d.point.startswith("line ") for d in recorded.decisions)


if __name__ == "__main__":  # python -m stateful.test_interleaved_families CELL 'SCHEDULE'
    import sys

    replayed = replay_cell(sys.argv[1], sys.argv[2])
    print(f"passed: {len(replayed.decisions)} steps, schedule {replayed.schedule!r}")
