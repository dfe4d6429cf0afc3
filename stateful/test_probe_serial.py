"""The pipeline machine's probe obeys rule 2.7 itself: its calls never overlap.

An inner emitting on a thread of its own (``ThreadedInner``) delivers ``on_next`` on its
emitter while the ``request`` that started it is still open on the test's thread (the
requester waits for the emitter). A probe requesting from that ``on_next`` would call
``request`` on a second thread while the first has not returned: the Subscriber's own
overlap (rule 2.7 binds the Subscriber), which the trace replay refuses on the probe's
subscription. Publishers may signal on another thread meanwhile (rule 1.3 asks only that
signals do not overlap), so the probe leaves such a call to the thread inside, which makes
it once its own call returned. Deterministic: the requester waits (bounded) for the emitter.
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
