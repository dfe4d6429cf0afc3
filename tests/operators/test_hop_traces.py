"""Every operator hop records its own trace; the recorded traces of a catalogue of
pipelines (sync and on a ManualExecutor, fusion on and off, with a cancelling, a raising
and an invalid-request subscriber) are accepted by the Python twins of the spec."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams import sources
from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import set_fusion
from reactive_streams.testing import AutoClock, TestSubscriber, marbles
from reactive_streams.trace.format import Header, write_trace
from reactive_streams.trace.validate import validate_files
from reactive_streams.tracing import tracing

Build = Callable[[Flow[int]], Flow[Any]]

CATALOGUE: dict[str, Build] = {
    "map": lambda f: f.map(lambda x: x + 1),
    "filter": lambda f: f.filter(lambda x: x % 2 == 0),
    "scan": lambda f: f.scan(lambda a, x: a + x, 0),
    "take": lambda f: f.take(3),
    "skip": lambda f: f.skip(2),
    "take_while": lambda f: f.take_while(lambda x: x < 4),
    "do_on_next": lambda f: f.do_on_next(lambda x: None),
    "do_on_request": lambda f: f.do_on_request(lambda n: None),
    "do_on_cancel": lambda f: f.do_on_cancel(lambda: None),
    "buffer": lambda f: f.buffer(2),
    "reduce": lambda f: f.reduce(lambda a, b: a + b),
    "collect": lambda f: f.collect(),
    "flat_map": lambda f: f.flat_map(lambda x: Flow.range(0, 2)),
    "flat_map_scalar": lambda f: f.flat_map(lambda x: Flow.just(x)),
    "concat_map": lambda f: f.concat_map(lambda x: Flow.just(x, x)),
    "merge": lambda f: Flow.merge(f, Flow.range(10, 3)),
    "zip": lambda f: f.zip_with(Flow.range(10, 5)),
    "limit_rate": lambda f: f.limit_rate(2),
    "observe_on": lambda f: f.observe_on(ManualExecutor(), 4),
    "subscribe_on": lambda f: f.subscribe_on(ManualExecutor()),
    "on_backpressure_buffer": lambda f: f.on_backpressure_buffer(16),
    "on_backpressure_drop": lambda f: f.on_backpressure_drop(),
    "on_backpressure_latest": lambda f: f.on_backpressure_latest(),
    "retry": lambda f: _fails_once(f).retry(3),
    "retry_when": lambda f: _fails_once(f).retry_when(lambda e, attempt: attempt < 3),
    "on_error_resume": lambda f: _fails_once(f).on_error_resume(lambda e: Flow.range(7, 3)),
    "on_error_return": lambda f: _fails_once(f).on_error_return(-1),
    "on_error_complete": lambda f: _fails_once(f).on_error_complete(),
    "concat": lambda f: Flow.concat(f, Flow.empty(), Flow.range(10, 3)),
    "start_with": lambda f: f.start_with(-2, -1),
    "switch_if_empty": lambda f: f.filter(lambda x: x > 9).switch_if_empty(Flow.range(10, 3)),
    "default_if_empty": lambda f: f.filter(lambda x: x > 9).default_if_empty(-1),
    "defer": lambda f: Flow.defer(lambda: f),
    "do_on_error": lambda f: _fails_once(f).do_on_error(lambda e: None),
    "do_on_complete": lambda f: f.do_on_complete(lambda: None),
    "do_finally": lambda f: f.do_finally(lambda: None),
    "distinct": lambda f: f.map(lambda x: x // 2).distinct(),
    "distinct_until_changed": lambda f: f.map(lambda x: x // 2).distinct_until_changed(),
    "skip_while": lambda f: f.skip_while(lambda x: x < 2),
    "ignore_elements": lambda f: f.ignore_elements(),
    "count": lambda f: f.count(),
    "element_at": lambda f: f.element_at(2),
    "all": lambda f: f.all(lambda x: x < 3),
    "any": lambda f: f.any(lambda x: x > 2),
    "take_last": lambda f: f.take_last(2),
    "skip_last": lambda f: f.skip_last(2),
    # time: an AutoClock (a ManualExecutor) jumps to the next timer when nothing else runs
    "interval": lambda f: Flow.interval(1.0, scheduler=AutoClock()).take(4),
    "timer": lambda f: f.concat_map(lambda x: Flow.timer(1.0, scheduler=AutoClock())),
    "delay": lambda f: f.delay(1.0, scheduler=AutoClock()),
    "delay_subscription": lambda f: f.delay_subscription(1.0, scheduler=AutoClock()),
    "timeout": lambda f: f.timeout(1.0, scheduler=AutoClock()),
    "timeout_fallback": lambda f: Flow.timer(9.0, scheduler=AutoClock()).timeout(
        1.0, f, scheduler=AutoClock()
    ),
    "debounce": lambda f: f.debounce(1.0, scheduler=AutoClock()),
    "sample": lambda f: f.sample(1.0, scheduler=AutoClock()),
    "throttle_first": lambda f: f.throttle_first(1.0, scheduler=AutoClock()),
    "buffer_timeout": lambda f: f.buffer_timeout(4, 1.0, scheduler=AutoClock()),
    "marbles": lambda f: marbles("-a-b-(cd)|", scheduler=AutoClock()).take(3),
}


def _fails_once(flow: Flow[int]) -> Flow[int]:
    """``flow``'s first two elements then an error on the first subscription; ``flow``
    itself on the next ones."""
    attempts: list[int] = []

    def make() -> Flow[int]:
        attempts.append(1)
        if len(attempts) == 1:
            return flow.take(2).concat_with(Flow.error(RuntimeError("first attempt")))
        return flow

    return Flow.defer(make)


SUBSCRIBERS: dict[str, Callable[[], TestSubscriber[Any]]] = {
    "bounded": lambda: TestSubscriber(2, on_next_hook=lambda ts, x: ts.request(1)),
    "unbounded": lambda: TestSubscriber(2**63 - 1),
    "cancel": lambda: TestSubscriber(3, on_next_hook=lambda ts, x: ts.cancel()),
    "raise": lambda: TestSubscriber(3, on_next_hook=_raise),
    "invalid": lambda: TestSubscriber(1, on_next_hook=lambda ts, x: ts.request(0)),
}


def _raise(ts: TestSubscriber[Any], x: object) -> None:
    raise RuntimeError("subscriber fails")


@pytest.fixture(params=[True, False], ids=["fused", "unfused"])
def fusion(request: pytest.FixtureRequest) -> Iterator[bool]:
    previous = set_fusion(request.param)
    yield request.param
    set_fusion(previous)


@pytest.mark.parametrize("kind", sorted(SUBSCRIBERS))
@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_hop_trace_is_accepted(
    tmp_path: Path, name: str, kind: str, fusion: bool, caplog: pytest.LogCaptureFixture
) -> None:
    executors: list[ManualExecutor] = []
    real = ManualExecutor.__init__

    def record(self: ManualExecutor) -> None:
        real(self)
        executors.append(self)

    ManualExecutor.__init__ = record  # type: ignore[method-assign]
    try:
        with tracing() as tracer:
            flow = CATALOGUE[name](Flow(sources.range(0, 6)) if not fusion else Flow.range(0, 6))
            subscriber = SUBSCRIBERS[kind]()
            flow.subscribe(subscriber)
            for _ in range(1000):
                if not any(len(ex) for ex in executors):
                    break
                for ex in executors:
                    if len(ex):
                        ex.run_next()
            assert not any(len(ex) for ex in executors), "tasks still pending"
    finally:
        ManualExecutor.__init__ = real  # type: ignore[method-assign]
    hops = {e["sub"] for e in tracer.events}
    # unfused: the source and the operator's own hop at least; a fused stage is one hop
    assert len(hops) >= (1 if fusion else 2), hops
    path = tmp_path / f"{name}-{kind}.jsonl"
    write_trace(path, tracer.events, Header(mode="async", quiescent=True))
    [verdict], _ = validate_files([path], use_tlc=False)
    assert verdict.ok, verdict.line()
