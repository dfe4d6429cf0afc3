"""Rule 2.7 where an inner emits on a thread of its own while a request is still open.

An inner emitting on a thread of its own (``ThreadedInner``) delivers ``on_next`` on its
emitter while the ``request`` that started it is still open on the test's thread (the
requester waits for the emitter): ``start_with`` subscribes ``flat_map`` inside that
request's call chain. Publishers may signal on another thread meanwhile (rule 1.3 asks
only that signals do not overlap), but a call made from such a signal on a Subscription
whose request is still open there overlaps it. Rule 2.7 binds the Subscriber:

* the pipeline machine's probe leaves such a call to the thread inside, which makes it
  once its own call returned (a probe requesting from that ``on_next`` at once was the
  machine's false finding on ``start_with``);
* a hop's calls upstream go through a ``SerialSubscription``, which does the same
  (mutant ``relay-upstream-not-serial``).

Deterministic: the requester waits (bounded) for the emitter; each trace is replayed.
"""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.trace.format import event_from_dict
from reactive_streams.trace.model import Replay
from reactive_streams.tracing import tracing

from .pipeline_model import INNER_PROBLEMS, ThreadedInner
from .test_pipeline_machine import PipeProbe

_WAIT = 10.0


@pytest.mark.timeout(60)
def test_probe_echo_on_an_emitter_thread_waits_for_the_open_request() -> None:
    """Directly on a threaded subscription: the echo on the emitter must not overlap
    the request that waits for it (ThreadedInner records any overlap)."""
    INNER_PROBLEMS.clear()
    probe = PipeProbe([], 1, None, "probe")
    probe.echo = 1
    ThreadedInner([1, 2, 3]).subscribe(probe)
    probe.request(1)
    assert probe.wait_until(lambda: probe.completed, _WAIT), f"{probe!r}: {probe.values}"
    assert INNER_PROBLEMS == [], INNER_PROBLEMS
    assert probe.values == [1, 2, 3]
    assert probe.problems == []


@pytest.mark.timeout(60)
def test_start_with_after_threaded_flat_map_replays_without_overlap() -> None:
    """The pipeline machine's example (``flat_map(inner=thread) -> start_with ->
    buffer(1)``, echo 1, one request): start_with subscribes flat_map inside the
    request's call chain, flat_map's inner emits on its own thread while that request
    is open, and the probe's echo from there was rule 2.7 on the probe's subscription."""
    INNER_PROBLEMS.clear()
    log: list[dict[str, Any]] = []
    with tracing() as tracer:
        probe = PipeProbe(log, 1, None, "probe")
        probe.echo = 1
        flow = (
            Flow.from_iterable([0])
            .flat_map(lambda x: ThreadedInner([("i", x, 0), ("i", x, 1)]), 1, 1)
            .start_with(("s", 0))
            .buffer(1)
        )
        flow.subscribe(probe)
        probe.request(1)
        assert probe.wait_until(lambda: probe.completed, _WAIT), f"{probe!r}: {probe.values}"
    replay = Replay(sync=False, call_ends=True)
    events = [event_from_dict(e, i) for i, e in enumerate(tracer.events, 1)]
    verdicts = [(e.index, e.sig, e.sub, replay.step(e)) for e in events]
    refused = [v for v in verdicts if v[3] is not None]
    assert refused == [], refused[0]
    assert INNER_PROBLEMS == [], INNER_PROBLEMS
    assert probe.values == [[("s", 0)], [("i", 0, 0)], [("i", 0, 1)]]
    assert probe.problems == []


@pytest.mark.timeout(60)
def test_a_hop_request_from_an_inner_thread_waits_for_the_open_request() -> None:
    """The hops' side of the same schedule: filter's replacement ``request(1)`` for an
    element it drops comes on the inner's emitter while the probe's request is still
    open, on that same hop subscription, on the test's thread; the hop's upstream is a
    ``SerialSubscription``, so the thread inside makes it after its call (rule 2.7)."""
    INNER_PROBLEMS.clear()
    with tracing() as tracer:
        probe = PipeProbe([], 1, None, "probe")
        flow = (
            Flow.from_iterable([0])
            .flat_map(lambda x: ThreadedInner([1, 2, 3]), 1, 1)
            .start_with(0)
            .filter(lambda v: v != 1)
        )
        flow.subscribe(probe)
        probe.request(2)  # 0, then 1 dropped on the emitter, then 2
        assert probe.wait_until(lambda: len(probe.values) == 2, _WAIT), f"{probe!r}"
        probe.cancel()
    replay = Replay(sync=False, call_ends=True)
    events = [event_from_dict(e, i) for i, e in enumerate(tracer.events, 1)]
    refused = [(e.index, e.sig, e.sub, why) for e in events if (why := replay.step(e))]
    assert refused == [], refused[0]
    assert INNER_PROBLEMS == [], INNER_PROBLEMS
    assert probe.values == [0, 2]
    assert probe.problems == []
