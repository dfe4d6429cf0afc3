"""A deterministic tour of small runs, for the states random search seldom reaches.

Each scenario is one subscription to a short source (0..3 elements, completing or
failing, or failing to open) with: a request from ``on_subscribe`` (none, 2, 2**63-1
or 0), one thing the Subscriber does inside one of its methods (request, cancel or
raise, in ``on_subscribe``, ``on_next``, ``on_complete`` or ``on_error``), in executor
mode one call from another thread right before a signal begins
(``stateful/test_reach_interleavings.py``), and a last call from outside once the run
settled. A fixed pseudo-random sample of that grid is run in both modes, 25 scenarios
per trace. Every trace is replayed against the spec
(``reactive_streams.trace.validate.prepass``: each step, the invariants, and the checks
at rest) and written to ``$RS_TRACE_DIR`` for ``make traces`` (TLC) and the coverage
report (``spec/trace_coverage.py``). Rule 3.9 against a failing source has its own
tests: ``test_invalid_request_outruns_a_failing_source`` (below) and
``test_invalid_request_answered_before_the_source_is_opened``.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reactive_streams._core import tracer as core_tracing
from reactive_streams.executors import ManualExecutor
from reactive_streams.sources import IterablePublisher
from reactive_streams.trace.format import Header, Trace, event_from_dict, write_trace
from reactive_streams.trace.model import Replay
from reactive_streams.trace.transitions import MAX_DEMAND
from reactive_streams.trace.validate import prepass

from .machines import Arm, Probe
from .test_publisher_machine import make_publisher
from .test_reach_interleavings import CountingProbe, Interlude, InterposingTracer, _unopenable

SIZES = (2, MAX_DEMAND, 0)
SIGNALS = ("on_subscribe", "on_next", "on_complete", "on_error")
_files = itertools.count(1)


@dataclass(frozen=True)
class Scenario:
    kind: str  # range (completes) | generate_fails (fails after its elements)
    length: int
    batch: int
    initial: int | None
    arm: Arm | None
    interlude: Interlude | None
    last: tuple[str, int] | None  # ("request", n) | ("cancel", 0), once the run settled


def _arms() -> list[Arm | None]:
    out: list[Arm | None] = [None]
    for signal in SIGNALS:
        out.extend(Arm(signal, "request", n) for n in SIZES)
        out.extend([Arm(signal, "cancel"), Arm(signal, "raise")])
        out.append(Arm(signal, "raise", skip=1))
    return out


def _interludes() -> list[Interlude | None]:
    out: list[Interlude | None] = [None]
    for before in ("on_next", "on_complete", "on_error"):
        out.extend(Interlude("request", n, before=before) for n in SIZES)
        out.append(Interlude("cancel", before=before))
    return out


def scenarios(sync: bool, count: int, seed: int) -> list[Scenario]:
    """A fixed sample of the grid (the same on every run)."""
    rng = random.Random(seed)
    arms, interludes = _arms(), _interludes()
    lasts: list[tuple[str, int] | None] = [None, ("cancel", 0), *(("request", n) for n in SIZES)]
    kinds, lengths, batches = ["range", "generate_fails", "failing_factory"], range(4), [1, 2]
    initials = [None, *SIZES]
    grid = list(
        itertools.product(
            kinds, lengths, batches, initials, arms, [None] if sync else interludes, lasts
        )
    )
    if count >= len(grid):  # the whole grid, in order
        return [Scenario(*cell) for cell in grid]
    out: list[Scenario] = []
    while len(out) < count:
        sc = Scenario(
            kind=rng.choice(["range", "generate_fails", "failing_factory"]),
            length=rng.randrange(4),
            batch=rng.choice([1, 2]),
            initial=rng.choice([None, *SIZES]),
            arm=rng.choice(arms),
            interlude=None if sync else rng.choice(interludes),
            last=rng.choice(lasts),
        )
        out.append(sc)
    return out


def publisher(kind: str, length: int, executor: ManualExecutor | None, batch: int) -> Any:
    """A source of the publisher machine, or one whose factory fails (rule 1.4, before
    the first element, with or without demand)."""
    if kind == "failing_factory":
        return IterablePublisher(_unopenable, executor=executor, batch_size=batch)
    return make_publisher(kind, length, executor, batch)


def _settle(executor: ManualExecutor | None) -> None:
    if executor is not None:
        executor.run_all(max_steps=10_000)


def run(chunk: list[Scenario], sync: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """Run the scenarios one after the other; the recorded events and interlude failures."""
    probes: list[Probe] = []
    tracer = InterposingTracer(probes)
    tracer.active = not sync  # rule 3.10: a synchronous trace has no interludes
    previous = core_tracing._tracer
    core_tracing._tracer = tracer
    executor = None if sync else ManualExecutor()
    try:
        for k, sc in enumerate(chunk):
            probe = CountingProbe([], k + 1, sc.initial)
            if sc.arm is not None:
                probe.arms.append(sc.arm)
            if sc.interlude is not None:
                probe.interludes.append(sc.interlude)
            probes.append(probe)
            publisher(sc.kind, sc.length, executor, sc.batch).subscribe(probe)
            _settle(executor)
            if sc.last is not None and probe.subscription is not None:
                action, n = sc.last
                if action == "request":
                    probe.request(n)
                else:
                    probe.cancel()
                _settle(executor)
    finally:
        core_tracing._tracer = previous
    return list(tracer.events), tracer.failures


def _chunks(items: list[Scenario], size: int) -> Iterator[list[Scenario]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _coverage_module() -> Any:
    """spec/trace_coverage.py: the abstraction of a Subscription's state."""
    found = sys.modules.get("trace_coverage")
    if found is None:
        path = Path(__file__).resolve().parents[1] / "spec" / "trace_coverage.py"
        spec = importlib.util.spec_from_file_location("trace_coverage", path)
        assert spec is not None
        assert spec.loader is not None
        found = importlib.util.module_from_spec(spec)
        sys.modules["trace_coverage"] = found
        spec.loader.exec_module(found)
    return found


class Novelty:
    """The abstract states and steps (spec/trace_coverage.py) seen so far; a scenario is
    kept for the trace corpus when its Subscription visits one not seen before."""

    def __init__(self) -> None:
        self.cov = _coverage_module()
        self.bounds = self.cov.Bounds(2, MAX_DEMAND)  # only the abstraction's keys
        self.seen: set[Any] = set()

    def new_subscriptions(self, trace: Trace) -> set[int]:
        model = Replay(sync=trace.header.mode == "sync", call_ends=True)
        begun: dict[int, str] = {}
        fresh: set[int] = set()
        for event in trace.events:
            state = model.state(event.sub)
            before = self.cov.abstract_replay(state, begun.get(event.sub, ""), self.bounds)
            assert model.step(event) is None  # prepass accepted the trace
            if event.sig.startswith("begin_"):
                begun[event.sub] = self.cov._SIG_OF[event.sig[6:]]
            after = self.cov.abstract_replay(state, begun.get(event.sub, ""), self.bounds)
            for key in (before, (before, event.sig, after)):
                if key not in self.seen:
                    self.seen.add(key)
                    fresh.add(event.sub)
        return fresh


def _checked(chunk: list[Scenario], sync: bool) -> tuple[list[dict[str, Any]], Trace]:
    raw, failures = run(chunk, sync)
    assert not failures, failures
    header = Header(mode="sync" if sync else "async", quiescent=True)
    trace = Trace(header, tuple(event_from_dict(e, k + 1) for k, e in enumerate(raw)))
    violation = prepass(trace)
    assert violation is None, f"{violation}; scenarios {chunk}"
    return raw, trace


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "executor"])
def test_reach_tour(sync: bool) -> None:
    """Every scenario is replayed against the spec. For ``make traces`` (``RS_TRACE_DIR``),
    ``RS_TOUR_SCENARIOS`` of them run and those that visit a new abstract state or step
    are recorded, 25 to a trace (each scenario is one Subscription, in order)."""
    directory = os.environ.get("RS_TRACE_DIR")
    count = int(os.environ.get("RS_TOUR_SCENARIOS", "300"))
    novelty = Novelty() if directory else None
    kept: list[Scenario] = []
    logging.disable(logging.ERROR)  # raising Subscribers are logged (rule 2.13)
    try:
        for chunk in _chunks(scenarios(sync, count, 16 + sync), 25):
            _, trace = _checked(chunk, sync)
            if novelty is not None:
                fresh = novelty.new_subscriptions(trace)
                assert {e.sub for e in trace.events} <= set(range(1, len(chunk) + 1))
                kept.extend(sc for k, sc in enumerate(chunk) if k + 1 in fresh)
        if directory:
            for chunk in _chunks(kept, 25):
                raw, trace = _checked(chunk, sync)
                path = Path(directory) / f"ReachTour-{os.getpid()}-{next(_files)}.jsonl"
                write_trace(path, raw, trace.header)
    finally:
        logging.disable(logging.NOTSET)


def test_invalid_request_outruns_a_failing_source() -> None:
    """Synchronous, unbounded demand: on_next #1 calls request(0), which is received at
    once; the answer must be the IllegalArgument onError (ValueError), whatever the
    source would do next."""
    logging.disable(logging.ERROR)
    try:
        probe = Probe([], 1, initial=MAX_DEMAND)
        probe.arms.append(Arm("on_next", "request", 0))
        make_publisher("generate_fails", 1, None, 1).subscribe(probe)
    finally:
        logging.disable(logging.NOTSET)
    assert len(probe.errors) == 1
    assert isinstance(probe.errors[0], ValueError), f"rule 3.9: got {probe.errors[0]!r}"
