"""Real threads: several OS threads call request/cancel on publishers running on a
thread pool; the recorded trace is then replayed against the spec's rules.

Hypothesis draws the whole plan first (which publishers, which calls on which
thread, which subscribers raise from ``on_next``); the threads only execute it. Calls on
one subscription are serialised by a lock, as rule 2.7 asks of a Subscriber, but come
from different threads, while the pool's workers deliver signals concurrently; a raising
subscriber is cancelled by the publisher (rule 2.13) while those threads keep calling.
Waits are bounded; a stall fails.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reactive_streams as rs
from reactive_streams.executors import ThreadPoolExecutor
from reactive_streams.trace.format import Header, Trace, event_from_dict, write_trace
from reactive_streams.trace.validate import prepare, prepass
from reactive_streams.tracing import tracing

from .machines import Arm, Probe, TracedMachine

_WAIT = 10.0
_files = itertools.count(1)


@dataclass(frozen=True)
class Plan:
    length: int
    batch: int
    initial: int
    calls: tuple[tuple[tuple[str, Any], ...], ...]  # per thread: ("request", n) | ("cancel", 0)
    fault: int | None = None  # on_next raises after this many elements (rule 2.13)


_valid = st.tuples(st.just("request"), st.integers(1, 5))
_rare = st.one_of(
    st.tuples(st.just("request"), st.sampled_from([2**62, 2**63 - 1, 2**64])),
    st.tuples(st.just("request"), st.sampled_from([0, -3])),
    st.tuples(st.just("cancel"), st.just(0)),
)
weighted_call = st.sampled_from(range(12)).flatmap(lambda k: _rare if k == 0 else _valid)
plans = st.builds(
    Plan,
    length=st.integers(0, 60),
    batch=st.integers(1, 8),
    initial=st.integers(0, 4),
    calls=st.lists(
        st.lists(weighted_call, min_size=1, max_size=30).map(tuple), min_size=2, max_size=4
    ).map(tuple),
    fault=st.one_of(st.none(), st.integers(0, 5)),
)


def _subscribed(probe: Probe) -> bool:
    return probe.subscription is not None


def _settled(probe: Probe, length: int) -> bool:
    if probe.terminated or probe.cancelled or probe.faulted:
        return True
    if probe.invalid:
        return False  # an onError is due (rule 3.9)
    return probe.received >= min(probe.requested, length)


def _observed_end(tracer: rs.Tracer, sub: int) -> bool:
    return any(
        e["sig"] in ("recv_cancel", "send_on_complete", "send_on_error")
        for e in tracer.for_subscription(sub)
    )


def run_plan(plans_: list[Plan], pool: ThreadPoolExecutor) -> list[dict[str, Any]]:
    """Run the plans concurrently; returns the recorded trace (raw events)."""
    log: list[dict[str, Any]] = []
    with tracing() as tracer:
        probes = []
        for k, plan in enumerate(plans_):
            probe = Probe(log, k + 1, plan.initial or None)
            if plan.fault is not None:
                probe.arms.append(Arm("on_next", "raise", skip=plan.fault))
            probes.append(probe)
            rs.range(0, plan.length, executor=pool, batch_size=plan.batch).subscribe(probe)
        for probe in probes:
            assert probe.wait_until(partial(_subscribed, probe), _WAIT), (
                f"rule 1.9: {probe!r} got no onSubscribe within {_WAIT} s"
            )
        locks = [threading.Lock() for _ in probes]  # rule 2.7: serial calls per subscription
        start = threading.Barrier(sum(len(p.calls) for p in plans_) or 1)
        errors: list[BaseException] = []

        def hammer(k: int, calls: tuple[tuple[str, Any], ...]) -> None:
            try:
                start.wait(_WAIT)
                for kind, n in calls:
                    with locks[k]:
                        if kind == "request":
                            probes[k].request(n)
                        else:
                            probes[k].cancel()
            except BaseException as exc:  # reported on the test thread
                errors.append(exc)

        threads = [
            threading.Thread(target=hammer, args=(k, calls), name=f"hammer-{k}-{j}")
            for k, plan in enumerate(plans_)
            for j, calls in enumerate(plan.calls)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(_WAIT)
            assert not thread.is_alive(), f"{thread.name} did not finish within {_WAIT} s"
        assert not errors, errors
        for probe, plan in zip(probes, plans_, strict=True):
            assert probe.wait_until(partial(_settled, probe, plan.length), _WAIT), (
                f"rule 3.8: {probe!r} of {plan.length}: demand not served within {_WAIT} s"
            )
        # stop everything that is still running, then wait until each end is observed
        for k, probe in enumerate(probes):
            with locks[k]:
                probe.cancel()
        subs = tracer.subscriptions()
        done = threading.Event()
        for sub in subs:
            for _ in range(int(_WAIT / 0.005)):
                if _observed_end(tracer, sub):
                    break
                done.wait(0.005)  # bounded polling for an eventual event, not evidence
            assert _observed_end(tracer, sub), f"rule 1.8: subscription {sub} never stopped"
        for probe in probes:
            assert probe.subscription is not None
            TracedMachine.references_dropped(probe, probe.subscription)
        return list(tracer.events)


def check_trace(raw: list[dict[str, Any]]) -> None:
    trace = Trace(
        Header(mode="async", quiescent=True),
        tuple(event_from_dict(e, k + 1) for k, e in enumerate(raw)),
    )
    violation = prepass(trace, prepare(trace))
    assert violation is None, str(violation)
    directory = os.environ.get("RS_TRACE_DIR")
    if directory:
        path = Path(directory) / f"threaded-{os.getpid()}-{next(_files)}.jsonl"
        write_trace(path, raw, trace.header)


@pytest.fixture(scope="module")
def pool() -> Any:
    executor = ThreadPoolExecutor(4, name="hammered")
    yield executor
    executor.close()


@settings(max_examples=int(os.environ.get("RS_THREADED_EXAMPLES", "25")))
@given(st.lists(plans, min_size=1, max_size=3))
def test_threads_hammer_request_and_cancel(pool: ThreadPoolExecutor, plans_: list[Plan]) -> None:
    logging.disable(logging.ERROR)
    try:
        check_trace(run_plan(plans_, pool))
    finally:
        logging.disable(logging.NOTSET)
