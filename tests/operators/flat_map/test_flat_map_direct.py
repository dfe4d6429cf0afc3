"""flat_map over a fused upstream takes each pulled batch in one hold of its drain, and
sends scalar and whole synchronous inners straight downstream (no subscription, no
queue). These pin the edges of that path against the one-by-one path (fusion off)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import Flow
from reactive_streams.api import Subscription
from reactive_streams.operators import SyncSource, fusion


class _Counted:
    """Elements 0, 1, ... counted as they are pulled (fused) or emitted (subscribed)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.pulled = 0

    def __iter__(self) -> Iterator[int]:
        for x in range(self.n):
            self.pulled += 1
            yield x


class _Sink:
    """Requests ``initial``; ``act(self, item)`` runs inside each on_next."""

    def __init__(self, initial: int, act: Callable[[_Sink, int], None]) -> None:
        self.initial = initial
        self.act = act
        self.values: list[int] = []
        self.ends: list[str] = []
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(self.initial)

    def on_next(self, item: int) -> None:
        self.values.append(item)
        self.act(self, item)

    def on_error(self, error: BaseException) -> None:
        self.ends.append(f"error {error!r}")

    def on_complete(self) -> None:
        self.ends.append("complete")


def _run(fused: bool, act: Callable[[_Sink, int], None], initial: int = 2**63 - 1) -> Any:
    source = _Counted(1000)
    mapped: list[int] = []

    def inner(x: int) -> Flow[int]:
        mapped.append(x)
        return Flow.just(x) if x % 2 else Flow.range(x, x + 2)

    with fusion(fused):
        flow = Flow.from_iterable(source).flat_map(inner, 8, 2)
    sink = _Sink(initial, act)
    flow.subscribe(sink)
    return sink.values, sink.ends, mapped, source.pulled


def _cancel_at_5(sink: _Sink, item: int) -> None:
    if len(sink.values) == 5:
        assert sink.subscription is not None
        sink.subscription.cancel()


def test_a_cancel_from_on_next_stops_the_batch_and_maps_nothing_more() -> None:
    fused = _run(True, _cancel_at_5)
    assert fused[:3] == ([0, 1, 1, 2, 3], [], [0, 1, 2])  # rules 3.5, 3.12
    assert fused[:3] == _run(False, _cancel_at_5)[:3]
    assert fused[3] <= 256  # upstream stopped within its first pulled batch (3.13)


def _raise_at_3(sink: _Sink, item: int) -> None:
    if len(sink.values) == 3:
        raise RuntimeError("subscriber bug")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_an_on_next_that_raises_mid_batch_cancels_as_one_by_one() -> None:
    log, records = logging.getLogger("reactive_streams"), _Records()
    log.addHandler(records)
    try:
        fused = _run(True, _raise_at_3)
    finally:
        log.removeHandler(records)
    assert fused[:3] == ([0, 1, 1], [], [0, 1])  # rule 2.13: cancelled, no terminal
    assert any("rule 2.13: on_next raised" in m for m in records.messages)
    assert fused[:3] == _run(False, _raise_at_3)[:3]


def test_unbounded_demand_takes_every_inner_to_the_end_as_one_by_one() -> None:
    """Whole batches of inners complete at once: upstream is asked for ``limit`` per
    ``limit`` completed (rule 3.17's total), so the stream reaches its end."""
    fused = _run(True, lambda sink, item: None)
    assert fused[:3] == _run(False, lambda sink, item: None)[:3]
    assert len(fused[0]) == 1500
    assert fused[1] == ["complete"]
    assert fused[3] == 1000


def _request_one_more(sink: _Sink, item: int) -> None:
    assert sink.subscription is not None
    sink.subscription.request(1)


def test_demand_given_one_by_one_from_on_next_reaches_the_end_in_order() -> None:
    fused = _run(True, _request_one_more, initial=1)
    assert fused[:2] == _run(False, _request_one_more, initial=1)[:2]
    assert len(fused[0]) == 1500
    assert fused[1] == ["complete"]


def test_no_more_pulled_than_max_concurrency_beyond_the_completed_inners() -> None:
    """Demand of 3 in all: flat_map asks upstream for max_concurrency (8), then 6 more
    (75 %) per 6 completed inners: at most 8 + 6 pulled (rule 3.17, max_concurrency)."""
    values, ends, mapped, pulled = _run(True, lambda sink, item: None, initial=3)
    assert values == [0, 1, 1]
    assert ends == []
    assert pulled <= 14
    assert len(mapped) <= 14


class _Answers:
    """A publisher whose fusion answer is wrong (or raises); never subscribed when fused."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def __rs_sync__(self) -> object:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def subscribe(self, subscriber: Any) -> None:
        raise AssertionError("a fused flat_map asks, and fails on a wrong answer")


@pytest.mark.parametrize("wrong", [42, OSError("no answer")])
def test_a_wrong_fusion_answer_of_an_inner_mid_batch_is_on_error(wrong: object) -> None:
    def inner(x: int) -> Any:
        return _Answers(wrong) if x == 3 else Flow.just(x)

    with fusion(True):
        flow = Flow.range(0, 10).flat_map(inner)
    sink = _Sink(2**63 - 1, lambda s, i: None)
    flow.subscribe(sink)
    assert sink.values == [0, 1, 2]
    assert len(sink.ends) == 1
    if isinstance(wrong, Exception):
        assert sink.ends == [f"error {wrong!r}"]
    else:
        assert "returned 42, not a SyncSource" in sink.ends[0]


def test_a_range_and_a_just_tuple_answer_their_items_and_a_from_iterable_does_not() -> None:
    """``items``: the elements without an iterator, none of them None (rule 2.13); a
    ``from_iterable`` tuple may hold a None, so it answers an ordinary iterable."""
    answers: list[SyncSource | None] = [
        Flow.range(3, 6).__rs_sync__(),
        Flow.just(1, 2).__rs_sync__(),
        Flow.from_iterable((1, None)).__rs_sync__(),
    ]
    kinds = [
        None if a is None else (a.kind, a.value if a.kind == "items" else None) for a in answers
    ]
    assert kinds == [("items", range(3, 6)), ("items", (1, 2)), ("iterable", None)]


def test_a_traced_run_records_each_direct_element_on_the_flat_map_hop() -> None:
    """The direct path sends through the hop's traced sender: one ``send_on_next`` per
    element on the flat_map subscription, as the queued path records them."""
    from reactive_streams.tracing import tracing

    with fusion(True), tracing() as tracer:
        flow = Flow.range(0, 4).flat_map(lambda x: Flow.just(x) if x % 2 else Flow.range(x, x + 2))
        sink = _Sink(2**63 - 1, lambda s, i: None)
        flow.subscribe(sink)
    hops = [e for e in tracer.events if e["sig"] == "subscribe" and e.get("hop") == "flat_map"]
    assert len(hops) == 1
    sent = [e for e in tracer.for_subscription(hops[0]["sub"]) if e["sig"] == "send_on_next"]
    assert sink.values == [0, 1, 1, 2, 3, 3]
    assert sink.ends == ["complete"]
    assert [e["seq"] for e in sent] == list(range(1, 7))
