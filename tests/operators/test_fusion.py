"""Fusion never changes what a subscriber sees: the same pipelines, the same demand
scripts, with fusion on and off (synchronously and under a ManualExecutor), give the
same signals. Also: fusion really happens when it is on."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams import Emitter
from reactive_streams._core.fusion import PulledUpstream
from reactive_streams.executors import ManualExecutor, SingleThreadExecutor
from reactive_streams.flow import Flow, fusion_enabled, set_fusion
from reactive_streams.operators import SyncSource, fusion, sync_of
from reactive_streams.sources import IterablePublisher, just
from reactive_streams.sources import range as rs_range
from reactive_streams.testing import TestSubscriber


def _boom(x: int) -> int:
    if x == 7:
        raise ArithmeticError("seven")
    return x


def _gen() -> Any:
    yield from (1, 2, 3, 4)


def _mixed_inner(x: int) -> Flow[int]:
    """Inners of every fused kind, in turn: scalar, empty, two, several, plain publisher."""
    kind = x % 5
    if kind == 0:
        return Flow.just(x)
    if kind == 1:
        return Flow.empty()
    if kind == 2:
        return Flow.range_count(x * 10, 2)
    if kind == 3:
        return Flow.just(x, x + 1, x + 2).map(lambda y: y * 100)
    return Flow(rs_range(x, 3)).do_on_next(lambda y: None)  # never fused


def _raises_after(x: int) -> Any:
    yield x
    raise LookupError(f"inner {x}")


class _NoIter:
    """An iterable whose ``iter()`` raises: the inner fails before its first element."""

    def __iter__(self) -> Any:
        raise BufferError("no iterator")


def _pull_fails(x: int) -> Flow[int]:
    """Scalars, and at 4 an inner whose ``next`` raises after one element, at 6 one whose
    ``iter()`` raises: each is pulled (fused) or subscribed (unfused)."""
    if x == 4:
        return Flow.from_iterable(_raises_after(x))
    if x == 6:
        return Flow.from_iterable(_NoIter())
    return Flow.just(x)


def _mixed_async(manual: ManualExecutor, x: int) -> Flow[int]:
    """Scalars and sync inners behind inners that emit later, on the executor."""
    if x % 3 == 0:
        return Flow.range_count(x * 10, 3).observe_on(manual, 2)
    return Flow.just(x) if x % 3 == 1 else Flow.range_count(x * 10, 2)


PIPELINES: dict[str, Callable[[ManualExecutor], Flow[Any]]] = {
    "map": lambda m: Flow.range(0, 10).map(lambda x: x * 2),
    "filter": lambda m: Flow.range(0, 10).filter(lambda x: x % 3 == 0),
    "filter_tail_dropped": lambda m: Flow.range(0, 10).filter(lambda x: x < 4),
    "map_filter_map": lambda m: (
        Flow.range(0, 20).map(lambda x: x + 1).filter(lambda x: x % 2 == 0).map(str)
    ),
    "map_raises": lambda m: Flow.range(0, 10).map(_boom),
    "map_none": lambda m: Flow.range(0, 5).map(lambda x: None if x == 3 else x),
    "generator": lambda m: Flow.from_iterable(_gen()).map(lambda x: x),
    "just_map": lambda m: Flow.just(5).map(lambda x: x + 1),
    "just_flat_map": lambda m: Flow.just(3).flat_map(lambda x: rs_range(0, x)),
    "empty_map": lambda m: Flow.empty().map(lambda x: x),
    "error_filter": lambda m: Flow.error(KeyError("e")).filter(lambda x: True),
    "flat_map_just": lambda m: Flow.range(0, 10).flat_map(just),
    "flat_map_two": lambda m: Flow.range(0, 6).flat_map(lambda x: rs_range(x, 2), 2, 2),
    "flat_map_raises": lambda m: Flow.range(0, 9).flat_map(lambda x: just(_boom(x))),
    "flat_map_flow_just": lambda m: Flow.range(0, 12).flat_map(Flow.just),
    "flat_map_empty": lambda m: Flow.range(0, 8).flat_map(lambda x: Flow.empty()),
    "flat_map_flow_range2": lambda m: Flow.range(0, 9).flat_map(lambda x: Flow.range(x, 2)),
    "flat_map_mix": lambda m: Flow.range(0, 16).flat_map(_mixed_inner, 4, 3),
    "flat_map_mix_async": lambda m: Flow.range(0, 12).flat_map(lambda x: _mixed_async(m, x), 3),
    "flat_map_small_window": lambda m: Flow.range(0, 20).flat_map(Flow.just, 2, 1),
    "flat_map_subscribed_upstream": lambda m: (
        Flow(rs_range(0, 14)).do_on_next(lambda x: None).flat_map(_mixed_inner, 3)
    ),
    "flat_map_generator_upstream": lambda m: Flow.from_iterable(_gen()).flat_map(Flow.just),
    "flat_map_inner_error": lambda m: Flow.range(0, 9).flat_map(
        lambda x: Flow.error(OSError("inner")) if x == 5 else Flow.just(x)
    ),
    "flat_map_upstream_error": lambda m: Flow.range(0, 9).map(_boom).flat_map(Flow.just),
    "flat_map_inner_next_raises": lambda m: Flow.range(0, 9).flat_map(_pull_fails, 3, 2),
    "flat_map_mapper_none": lambda m: Flow.range(0, 9).flat_map(
        lambda x: None if x == 5 else Flow.just(x)  # type: ignore[arg-type,return-value]
    ),
    "flat_map_items_inners": lambda m: Flow.range(0, 10).flat_map(
        lambda x: Flow.just(x, -x) if x % 2 else Flow.range(0, x), 4, 3
    ),
    "flat_map_tuple_inner_none": lambda m: Flow.range(0, 6).flat_map(
        lambda x: Flow.from_iterable((x, None) if x == 3 else (x, x))
    ),
    "concat_map_mix": lambda m: Flow.range(0, 10).concat_map(_mixed_inner),
    "concat_map_flow_just": lambda m: Flow.range(0, 10).concat_map(Flow.just, 1),
    "observe_on": lambda m: Flow.range(0, 40).observe_on(m, prefetch=8),
    "map_observe_on": lambda m: Flow.range(0, 40).map(lambda x: x * 3).observe_on(m, 8),
    "filter_observe_on": lambda m: Flow.range(0, 40).filter(lambda x: x < 9).observe_on(m, 4),
    "raise_observe_on": lambda m: Flow.range(0, 40).map(_boom).observe_on(m, prefetch=4),
    "subscribe_on_observe_on": lambda m: Flow.range(0, 30).subscribe_on(m).observe_on(m, 4),
}

SCRIPTS: dict[str, list[int]] = {
    "unbounded": [2**63 - 1],
    "one_by_one": [1] * 45,
    "small_then_all": [2, 3, 1, 2**63 - 1],
    "exact": [5, 5, 5, 5, 5, 5, 5, 5],
    "zero_then_some": [0, 3, 0, 4],  # 0 means: run the executor without requesting
    # the first request made from on_subscribe (flat_map's batches then go direct)
    "in_on_subscribe_2_then_1s": [2] + [1] * 40,
    "in_on_subscribe_unbounded": [2**63 - 1],
}


def _signals(
    pipeline: str, script: list[int], fused: bool, initial: int = 0
) -> list[tuple[str, object]]:
    previous = set_fusion(fused)
    try:
        manual = ManualExecutor()
        flow = PIPELINES[pipeline](manual)
        ts: TestSubscriber[Any] = TestSubscriber(initial)
        flow.subscribe(ts)
        manual.run_all()
        observed: list[tuple[str, object]] = []
        for n in script:
            if n and ts.subscription is not None and not ts.terminated:
                ts.request(n)
            manual.run_all()
            observed.append(("after", len(ts.values)))
        ts.assert_no_violations()
        terminal = [
            (s.kind, s.value if s.kind == "on_next" else repr(s.value))
            for s in ts.signals
            if s.kind != "on_subscribe"
        ]
        return observed + terminal
    finally:
        set_fusion(previous)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_fusion_on_and_off_give_the_same_signals(pipeline: str, script: str) -> None:
    steps, initial = SCRIPTS[script], 0
    if script.startswith("in_on_subscribe"):
        steps, initial = steps[1:], steps[0]
    fused = _signals(pipeline, steps, True, initial)
    unfused = _signals(pipeline, steps, False, initial)
    assert fused == unfused


def test_fusion_switch_changes_the_assembled_pipeline() -> None:
    previous = set_fusion(True)
    try:
        assert fusion_enabled()
        fused = Flow.range(0, 3).map(lambda x: x).filter(bool)
        assert isinstance(fused.source, IterablePublisher)  # one source, no operator chain
        assert Flow.empty().map(lambda x: x) is not None
        empty = Flow.empty()
        assert empty.map(lambda x: x) is empty  # macro-fusion: empty().map is empty()
        set_fusion(False)
        unfused = Flow.range(0, 3).map(lambda x: x).filter(bool)
        assert not isinstance(unfused.source, IterablePublisher)
        assert empty.map(lambda x: x) is not empty
    finally:
        set_fusion(previous)


class _Counted:
    """A third-party publisher (not the library's): it answers the fusion protocol."""

    def __init__(self, items: list[int]) -> None:
        self.items = items
        self.subscribes = 0

    def subscribe(self, subscriber: Any) -> None:
        self.subscribes += 1
        Flow.from_iterable(self.items).subscribe(subscriber)

    def __rs_sync__(self) -> SyncSource:
        return SyncSource(lambda: iter(self.items), hop="counted")


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_a_third_party_publisher_fuses_through_the_protocol(
    manual: ManualExecutor, fused: bool
) -> None:
    counted = _Counted([1, 2, 3, 4, 5])
    with fusion(fused):
        assert (sync_of(Flow(counted)) is not None) is True  # a Flow answers for its source
        mapped = Flow(counted).map(lambda x: x * 10)
        through = Flow(counted).observe_on(manual, 2).flat_map(lambda x: Flow(_Counted([x])))
    for flow, expected in ((mapped, [10, 20, 30, 40, 50]), (through, [1, 2, 3, 4, 5])):
        ts: TestSubscriber[int] = TestSubscriber(100)
        flow.subscribe(ts)
        manual.run_all()
        ts.assert_values(*expected).assert_complete().assert_no_violations()
    assert counted.subscribes == (0 if fused else 2)  # fused: pulled, never subscribed


def _in_a_new_thread() -> bool:
    seen: list[bool] = []
    other = threading.Thread(target=lambda: seen.append(fusion_enabled()))
    other.start()
    other.join(10)
    return seen[0]


def test_the_switch_is_per_context_and_read_when_the_pipeline_is_built() -> None:
    default = _in_a_new_thread()  # RS_FUSION's value
    with fusion(not default):
        flow = Flow.range(0, 3).map(lambda x: x)
        assert _in_a_new_thread() is default  # another thread's pipelines are not affected
    with fusion(default):
        assert isinstance(flow.source, IterablePublisher) is (not default)  # as built
        assert flow.to_list(timeout=10) == [0, 1, 2]


def test_subscribe_on_is_a_barrier_the_source_is_pulled_only_on_its_executor() -> None:
    pulled_on: set[int] = set()

    def items() -> Any:
        for i in range(300):
            pulled_on.add(threading.get_ident())
            yield i

    source_thread: list[int] = []
    with SingleThreadExecutor(name="rs-a") as a, SingleThreadExecutor(name="rs-b") as b:
        a.execute(lambda: source_thread.append(threading.get_ident()))
        with fusion(True):
            flow = Flow.from_iterable(items()).map(lambda x: x + 1).subscribe_on(a).observe_on(b, 8)
        assert sync_of(Flow.range(3).subscribe_on(a)) is None  # no fusion across it
        assert flow.to_list(timeout=30) == list(range(1, 301))
    assert pulled_on == set(source_thread)


@pytest.mark.parametrize("kind", sorted(["list", "executor", "emitter", "do_on_next", "off"]))
@pytest.mark.parametrize("tail", ["filter", "observe_on", "flat_map", "map", "last_observe_on"])
def test_a_map_returning_none_gives_the_same_signals_over_every_source_kind(
    manual: ManualExecutor, kind: str, tail: str
) -> None:
    """Rule 2.13: ``map(parse)`` returning None fails the stream at that element, whether
    or not a later ``filter`` would drop it, fused or not, over every kind of source."""

    def parse(row: str) -> int | None:
        return int(row) if row.isdigit() else None

    rows = ["1", "x", "3"]
    with fusion(kind != "off"):
        if kind == "executor":
            source = Flow.from_iterable(rows, executor=manual)
        elif kind == "emitter":
            emitter: Emitter[str] = Emitter(8)
            for row in rows:
                emitter.emit(row)
            emitter.complete()
            source = emitter.flow
        elif kind == "do_on_next":
            source = Flow.from_iterable(rows).do_on_next(lambda row: None)
        else:
            source = Flow.from_iterable(rows)
        mapped = source.map(parse)
        if tail == "filter":
            flow = mapped.filter(lambda x: x is not None)
        elif tail == "observe_on":
            flow = mapped.filter(lambda x: x is not None).observe_on(manual, 2)
        elif tail == "flat_map":
            flow = mapped.filter(lambda x: x is not None).flat_map(Flow.just)
        elif tail == "last_observe_on":  # the fused map's None reaches the pulled upstream
            flow = mapped.observe_on(manual, 2)
        else:
            flow = mapped.map(lambda x: 0 if x is None else x)
    ts: TestSubscriber[int | None] = TestSubscriber(10)
    flow.subscribe(ts)
    manual.run_all()
    ts.assert_values(1).assert_error(TypeError, re.escape("rule 2.13: map(parse): returned None"))
    ts.assert_no_violations()


def test_a_none_from_a_source_fails_a_fused_filter_as_the_source_would() -> None:
    for fused in (True, False):
        with fusion(fused):
            flow = Flow.from_iterable([1, None, 3]).filter(lambda x: x is not None)
        ts: TestSubscriber[int | None] = TestSubscriber(10)
        flow.subscribe(ts)
        ts.assert_values(1).assert_error(TypeError, "rule 2.13: a publisher must not")


class _BatchSink:
    """A subscriber with the bulk hook: records each batch ``PulledUpstream`` hands it."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.ends: list[object] = []
        self.subscription: Any = None

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription

    def on_next(self, item: int) -> None:
        self.batches.append([item])

    def on_next_batch(self, items: list[int]) -> None:
        self.batches.append(list(items))

    def on_error(self, error: BaseException) -> None:
        self.ends.append(error)

    def on_complete(self) -> None:
        self.ends.append("complete")


def test_a_pulled_upstream_hands_each_request_over_as_one_batch() -> None:
    sink = _BatchSink()
    PulledUpstream(sink, lambda: range(10)).start()
    sink.subscription.request(4)
    sink.subscription.request(6)
    assert sink.batches == [[0, 1, 2, 3], [4, 5, 6, 7, 8, 9]]
    assert sink.ends == ["complete"]  # rule 1.5: the exact end, no further request


def test_a_pulled_batch_keeps_the_elements_before_an_error_or_a_none() -> None:
    def failing() -> Any:
        yield 1
        yield 2
        raise OSError("source")

    sink = _BatchSink()
    PulledUpstream(sink, failing).start()
    sink.subscription.request(10)
    assert sink.batches == [[1, 2]]
    assert [type(e) for e in sink.ends] == [OSError]
    sink = _BatchSink()
    with_none: list[Any] = [1, None, 3]  # a third-party source breaking rule 2.13
    PulledUpstream(sink, lambda: iter(with_none)).start()
    sink.subscription.request(10)
    assert sink.batches == [[1]]
    assert "rule 2.13" in str(sink.ends[0])


def test_flat_map_pulls_synchronous_inners_without_a_subscription_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[object] = []
    real_init = PulledUpstream.__init__

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(PulledUpstream, "__init__", counting_init)
    counted = _Counted([7, 8])
    with fusion(True):
        flow = Flow.range(0, 50).flat_map(
            lambda x: Flow.range(x, x + 2) if x % 3 else (Flow.just(x) if x % 2 else counted)
        )
        values = flow.to_list(timeout=10)
    assert len(values) == sum(2 if x % 3 else (1 if x % 2 else 2) for x in range(50))
    assert len(made) == 1  # the upstream's; no inner is subscribed, nor pulled by a hop
    assert counted.subscribes == 0


# ------------------------------------------------ PulledUpstream's ends (make mutation)


def test_a_pulled_source_that_fails_to_open_signals_its_error() -> None:
    def broken() -> list[int]:
        raise OSError("cannot open")

    sink = _BatchSink()
    PulledUpstream(sink, broken).start()
    assert sink.subscription is not None  # rule 1.9: on_subscribe first
    assert [str(e) for e in sink.ends] == ["cannot open"]  # rule 1.4, not on_complete


def test_a_pulled_invalid_request_fails_with_the_first_rule_309_message() -> None:
    sink = _BatchSink()
    PulledUpstream(sink, lambda: iter([1, 2, 3])).start()
    sink.subscription.request(0)
    sink.subscription.request(-1)
    assert sink.batches == []
    assert len(sink.ends) == 1
    assert isinstance(sink.ends[0], ValueError)
    assert str(sink.ends[0]) == "rule 3.9: request(n) requires n > 0, got 0"


def test_a_pulled_exact_source_ends_without_demand() -> None:
    sink = _BatchSink()
    PulledUpstream(sink, lambda: []).start()
    assert sink.ends == ["complete"]  # rule 1.5: known empty, no request needed

    class Broken:
        def __iter__(self) -> Any:
            return self

        def __next__(self) -> int:
            raise OSError("recorded")

        def __length_hint__(self) -> int:
            return 0

    from reactive_streams._core.pump import exact_length_types

    sink = _BatchSink()
    exact_length_types.add(Broken)  # an exact iterator whose end is an error
    try:
        PulledUpstream(sink, Broken).start()
    finally:
        exact_length_types.discard(Broken)
    assert [str(e) for e in sink.ends] == ["recorded"]  # rule 1.4: the error, at once


def test_a_pulled_request_above_a_batch_delivers_exactly_n() -> None:
    sink = _BatchSink()
    PulledUpstream(sink, lambda: iter(range(1000))).start()
    sink.subscription.request(600)  # more than one PULL_BATCH (256)
    assert [len(b) for b in sink.batches] == [256, 256, 88]
    assert [x for b in sink.batches for x in b] == list(range(600))  # rule 1.1: exactly n
    assert sink.ends == []


def test_a_pulled_none_first_is_rule_213_and_nulls_false_vouches_for_the_source() -> None:
    none_first: list[Any] = [None, 1]  # a third-party source breaking rule 2.13
    sink = _BatchSink()
    PulledUpstream(sink, lambda: iter(none_first)).start()
    sink.subscription.request(5)
    assert sink.batches == []
    assert "rule 2.13" in str(sink.ends[0])
    sink = _BatchSink()
    vouched: list[Any] = [1, None]
    PulledUpstream(sink, lambda: iter(vouched), nulls=False).start()
    sink.subscription.request(5)
    assert sink.batches == [[1, None]]  # not checked: the source vouches (range)


def test_an_element_equal_to_none_but_not_none_is_not_cut() -> None:
    """``None in items`` asks ``__eq__``; an element that claims equality is re-checked by
    identity (rule 2.13 is about None itself)."""

    class Liar:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    liars: list[Any] = [Liar(), Liar(), Liar()]
    sink = _BatchSink()
    PulledUpstream(sink, lambda: iter(liars)).start()
    sink.subscription.request(5)
    assert [x for b in sink.batches for x in b] == liars
    assert sink.ends == ["complete"]


# ------------------------------------ the survivors of make mutation (sync_of, 1.9)


class _Faulty:
    """A publisher whose ``__rs_sync__`` answer is wrong (raises, or not a SyncSource)."""

    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.subscribers: list[Any] = []

    def subscribe(self, subscriber: Any) -> None:
        self.subscribers.append(subscriber)

    def __rs_sync__(self) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_faulty_sync_answer_is_named_and_left_to_subscribe() -> None:
    from reactive_streams._core.fusion import subscribe_fused

    wrong = _Faulty(42)
    with pytest.raises(TypeError) as raised:
        sync_of(wrong)
    assert str(raised.value) == f"__rs_sync__() of {wrong!r} returned 42, not a SyncSource"
    for answer in (42, OSError("no answer")):
        faulty = _Faulty(answer)
        ts: TestSubscriber[int] = TestSubscriber(1)
        assert subscribe_fused(faulty, ts, True) is False  # the caller subscribes (1.9)
        assert faulty.subscribers == []
        assert ts.subscription is None


def test_a_source_that_vouches_no_none_is_not_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """``range`` answers ``nulls=None``: its pulled batches skip the rule 2.13 scan."""
    from reactive_streams._core import fusion as core
    from reactive_streams._core.fusion import subscribe_fused

    scanned: list[list[Any]] = []
    scan = core._first_none

    def spy(items: list[Any]) -> int:
        scanned.append(list(items))
        return scan(items)

    monkeypatch.setattr(core, "_first_none", spy)
    listed: IterablePublisher[int] = IterablePublisher(lambda: [4, 5])
    for publisher, expected in ((rs_range(0, 3), []), (listed, [[4, 5]])):
        ts: TestSubscriber[int] = TestSubscriber(10)
        assert subscribe_fused(publisher, ts, True) is True
        ts.assert_complete()
        assert scanned == expected
