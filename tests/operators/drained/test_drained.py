"""The drained operators (observe_on, limit_rate, flat_map, concat_map, merge, zip,
reduce, the backpressure buffers) and ref_count on the core ``Downstream``: rule 3.9
answered by on_error whatever the stage does meanwhile, 2.13 and 3.13 on the real
objects, and every hop traced as itself. Each case is forced deterministically."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import set_fusion
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.format import Header, write_trace
from reactive_streams.trace.validate import validate_files
from reactive_streams.tracing import tracing

DEADLINE = 10.0


@pytest.fixture(params=[True, False], ids=["fused", "unfused"])
def fusion(request: pytest.FixtureRequest) -> Iterator[bool]:
    previous = set_fusion(request.param)
    yield request.param
    set_fusion(previous)


def _run(flow: Flow[Any], subscriber: TestSubscriber[Any], executors: list[ManualExecutor]) -> None:
    flow.subscribe(subscriber)
    for _ in range(1000):
        if not any(len(ex) for ex in executors):
            break
        for ex in executors:
            ex.run_all()


STAGES: dict[str, Callable[[list[ManualExecutor]], Flow[Any]]] = {
    "limit_rate": lambda ex: Flow.range(0, 2).limit_rate(4),
    "observe_on": lambda ex: Flow.range(0, 2).observe_on(ex[0], 4),
    "concat_map": lambda ex: Flow.range(0, 2).concat_map(lambda x: Flow.just(x)),
    "concat_map_range": lambda ex: Flow.range(0, 2).concat_map(lambda x: Flow.range(x, 1)),
    "flat_map": lambda ex: Flow.range(0, 2).flat_map(lambda x: Flow.range(x, 1)),
    "merge": lambda ex: Flow.merge(Flow.range(0, 1), Flow.range(1, 1)),
    "zip": lambda ex: Flow.range(0, 2).zip_with(Flow.range(0, 2)),
    "on_backpressure_buffer": lambda ex: Flow.range(0, 2).on_backpressure_buffer(8),
    "ref_count": lambda ex: Flow.range(0, 2).publish().ref_count(),
}


# --------------------------------------------------- rule 3.9 during the last element
@pytest.mark.parametrize("stage", sorted(STAGES))
def test_invalid_request_during_the_last_elements_is_an_error(stage: str, fusion: bool) -> None:
    """request(0) from inside the first on_next, while the stage still has the second
    element and its completion to deliver in the same round: the end is rule 3.9's
    on_error, never on_complete."""
    executors = [ManualExecutor()]
    subscriber: TestSubscriber[Any] = TestSubscriber(
        2, on_next_hook=lambda ts, x: ts.request(0) if len(ts.values) == 1 else None
    )
    _run(STAGES[stage](executors), subscriber, executors)
    subscriber.await_terminal(DEADLINE)
    assert subscriber.completions == 0, f"rule 3.9: {stage} completed after request(0)"
    assert [type(e) for e in subscriber.errors] == [ValueError]
    assert "rule 3.9" in str(subscriber.errors[0])


def _failing_after_one() -> Iterator[int]:
    yield 0
    raise RuntimeError("the source fails")


FAILING: dict[str, Callable[[list[ManualExecutor]], Flow[Any]]] = {
    "limit_rate": lambda ex: Flow.from_iterable(_failing_after_one()).limit_rate(4),
    "observe_on": lambda ex: Flow.from_iterable(_failing_after_one()).observe_on(ex[0], 4),
    "concat_map": lambda ex: Flow.from_iterable(_failing_after_one()).concat_map(Flow.just),
    "flat_map": lambda ex: Flow.from_iterable(_failing_after_one()).flat_map(Flow.just),
    "ref_count": lambda ex: Flow.from_iterable(_failing_after_one()).publish().ref_count(),
}


@pytest.mark.parametrize("stage", sorted(FAILING))
def test_invalid_request_wins_over_a_failing_upstream(stage: str, fusion: bool) -> None:
    """request(0) from inside on_next, then the upstream fails in the same round: the
    error signalled is rule 3.9's ValueError, not the source's RuntimeError."""
    executors = [ManualExecutor()]
    subscriber: TestSubscriber[Any] = TestSubscriber(1, on_next_hook=lambda ts, x: ts.request(0))
    _run(FAILING[stage](executors), subscriber, executors)
    subscriber.await_terminal(DEADLINE)
    assert [type(e) for e in subscriber.errors] == [ValueError], subscriber.errors
    assert "rule 3.9" in str(subscriber.errors[0])


# --------------------------------------------------- rule 2.13, 3.13 on the real objects
@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("how", ["cancel", "raise", "complete"])
def test_subscription_drops_its_subscriber(stage: str, how: str, fusion: bool) -> None:
    """Rule 3.13: after the cancel, the subscriber's fault (2.13) or the end, the
    subscription the subscriber holds references it no more, once nothing is queued."""
    executors = [ManualExecutor()]

    def hook(ts: TestSubscriber[Any], x: object) -> None:
        if how == "cancel":
            ts.cancel()
        elif how == "raise":
            raise RuntimeError("subscriber fails")

    subscriber: TestSubscriber[Any] = TestSubscriber(10, on_next_hook=hook)
    _run(STAGES[stage](executors), subscriber, executors)
    if how == "complete":
        subscriber.await_terminal(DEADLINE)
    assert subscriber.values, "nothing was delivered"
    subscription = subscriber.subscription
    assert subscription is not None
    assert subscriber not in gc.get_referents(subscription), (
        f"rule 3.13: {subscription!r} still references its subscriber after {how}"
    )
    if how == "raise":  # rule 2.13: the fault cancelled it, a later request is a no-op
        before = len(subscriber.values)
        subscription.request(5)
        _run(Flow.empty(), TestSubscriber(), executors)
        assert len(subscriber.values) == before
        assert not subscriber.errors
        assert not subscriber.completions


# ----------------------------------------------------------------- traced as itself
HOPS: dict[str, tuple[Callable[[list[ManualExecutor]], Flow[Any]], str]] = {
    "observe_on": (lambda ex: Flow.range(0, 3).observe_on(ex[0], 2), "observe_on"),
    "limit_rate": (lambda ex: Flow.range(0, 3).limit_rate(2), "limit_rate"),
    "flat_map": (lambda ex: Flow.range(0, 3).flat_map(lambda x: Flow.range(x, 2)), "flat_map"),
    "concat_map": (lambda ex: Flow.range(0, 3).concat_map(lambda x: Flow.just(x)), "concat_map"),
    "merge": (lambda ex: Flow.merge(Flow.range(0, 2), Flow.range(5, 2)), "merge"),
    "zip": (lambda ex: Flow.range(0, 3).zip_with(Flow.range(0, 3)), "zip"),
    "reduce": (lambda ex: Flow.range(0, 3).reduce(lambda a, b: a + b), "reduce"),
    "on_backpressure_buffer": (
        lambda ex: Flow.range(0, 3).on_backpressure_buffer(8),
        "on_backpressure_buffer",
    ),
    "ref_count": (lambda ex: Flow.range(0, 3).publish().ref_count(), "ref_count"),
}


@pytest.mark.parametrize("name", sorted(HOPS))
def test_hop_records_its_own_subscription(tmp_path: Path, name: str, fusion: bool) -> None:
    """The hop's Subscription is the one the subscriber holds and records the trace
    itself (``subscribe`` with its ``hop`` name); the trace is valid."""
    build, hop = HOPS[name]
    executors = [ManualExecutor()]
    subscriber: TestSubscriber[Any] = TestSubscriber(2, on_next_hook=lambda ts, x: ts.request(1))
    with tracing() as tracer:
        _run(build(executors), subscriber, executors)
    subscriber.await_terminal(DEADLINE)
    assert not subscriber.errors
    subscription = subscriber.subscription
    sid = getattr(subscription, "subscription_id", 0)
    assert sid, f"{subscription!r} is not traced"
    hops = {e["sub"]: e.get("hop") for e in tracer.events if e["sig"] == "subscribe"}
    assert hops[sid] == hop
    path = tmp_path / f"{name}.jsonl"
    write_trace(path, tracer.events, Header(mode="async", quiescent=True))
    [verdict], _ = validate_files([path], use_tlc=False)
    assert verdict.ok, verdict.line()
