"""flat_map / concat_map whose mapper returns a list or tuple (Reactor's flatMapIterable):
the inner is taken whole, with no iterator pulled and no subscription, under the same
rules as any inner: demand honoured exactly (rule 1.1), a cancel mid-inner stops at once
(rules 3.12, 1.8), a None element or a raising mapper is on_error (rule 2.13), and a
generator inner is still pulled, never drained ahead of its prefetch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import Flow
from reactive_streams._core.fusion import Pull
from reactive_streams.api import Subscription
from reactive_streams.operators import _flat_map

OPS = ["flat_map", "concat_map"]


class _Sink:
    """Requests ``initial``; ``act(self, item)`` runs inside each on_next."""

    def __init__(self, initial: int, act: Callable[[_Sink, Any], None] | None = None) -> None:
        self.initial = initial
        self.act = act
        self.values: list[Any] = []
        self.ends: list[str] = []
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(self.initial)

    def on_next(self, item: Any) -> None:
        self.values.append(item)
        if self.act is not None:
            self.act(self, item)

    def on_error(self, error: BaseException) -> None:
        self.ends.append(f"error {error}")

    def on_complete(self) -> None:
        self.ends.append("complete")


def _apply(op: str, flow: Flow[int], fn: Callable[[int], Any]) -> Flow[Any]:
    method: Callable[[Callable[[int], Any]], Flow[Any]] = getattr(flow, op)
    return method(fn)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [list, tuple])
def test_a_list_or_tuple_inner_is_taken_whole_without_pulling_an_iterator(
    op: str, shape: Callable[[list[int]], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails before the flatMapIterable path: each list inner was pulled through a
    ``Pull`` (an iterator and a take per inner)."""
    pulls: list[object] = []
    real = Pull

    def counting_pull(*args: Any) -> Any:
        pulls.append(args)
        return real(*args)

    monkeypatch.setattr(_flat_map, "Pull", counting_pull)
    sink = _Sink(2**63 - 1)
    _apply(op, Flow.range(0, 100), lambda x: shape([x, -x])).subscribe(sink)
    assert sink.ends == ["complete"]
    assert sink.values == [v for x in range(100) for v in (x, -x)]
    assert pulls == []


@pytest.mark.parametrize("op", OPS)
def test_demand_is_honoured_exactly_across_list_inners(op: str) -> None:
    """Rule 1.1: request(3) over inners of two gets three, the third inner split."""
    sink = _Sink(3)
    _apply(op, Flow.range(0, 10), lambda x: [x, x]).subscribe(sink)
    assert sink.values == [0, 0, 1]
    assert sink.ends == []
    assert sink.subscription is not None
    sink.subscription.request(1)
    assert sink.values == [0, 0, 1, 1]
    sink.subscription.request(2**63 - 1)
    assert sink.values == [v for x in range(10) for v in (x, x)]
    assert sink.ends == ["complete"]


@pytest.mark.parametrize("op", OPS)
def test_demand_one_at_a_time_from_on_next_gets_one_each_time(op: str) -> None:
    def more(sink: _Sink, item: Any) -> None:
        assert sink.subscription is not None
        if len(sink.values) < 7:
            sink.subscription.request(1)

    sink = _Sink(1, more)
    _apply(op, Flow.range(0, 10), lambda x: [x, x, x]).subscribe(sink)
    assert sink.values == [0, 0, 0, 1, 1, 1, 2]
    assert sink.ends == []


@pytest.mark.parametrize("op", OPS)
def test_a_cancel_mid_inner_stops_at_once(op: str) -> None:
    """Rules 3.12, 1.8: cancelled inside the second element of an inner of four,
    nothing more arrives, and no later element is mapped."""
    mapped: list[int] = []

    def fn(x: int) -> list[int]:
        mapped.append(x)
        return [x, x + 100, x + 200, x + 300]

    def cancel(sink: _Sink, item: Any) -> None:
        if item == 101:
            assert sink.subscription is not None
            sink.subscription.cancel()

    sink = _Sink(2**63 - 1, cancel)
    _apply(op, Flow.range(0, 10), fn).subscribe(sink)
    assert sink.values == [0, 100, 200, 300, 1, 101]
    assert sink.ends == []
    assert mapped == [0, 1]


@pytest.mark.parametrize("op", OPS)
def test_a_none_element_of_a_list_inner_is_on_error_after_the_ones_before(op: str) -> None:
    """Rule 2.13: a list holding None is not taken whole; the pulled path signals it."""
    sink = _Sink(2**63 - 1)
    _apply(op, Flow.range(0, 5), lambda x: [x] if x != 2 else [x, None]).subscribe(sink)
    assert sink.values == [0, 1, 2]
    assert len(sink.ends) == 1
    assert sink.ends[0].startswith("error rule 2.13"), sink.ends


@pytest.mark.parametrize("op", OPS)
def test_a_raising_mapper_is_on_error(op: str) -> None:
    def fn(x: int) -> list[int]:
        if x == 3:
            raise ValueError("bad row 3")
        return [x]

    sink = _Sink(2**63 - 1)
    _apply(op, Flow.range(0, 10), fn).subscribe(sink)
    assert sink.values == [0, 1, 2]
    assert sink.ends == ["error bad row 3"]


@pytest.mark.parametrize("op", OPS)
def test_an_on_next_that_raises_inside_a_list_inner_cancels(op: str) -> None:
    """Rule 2.13: the subscriber broke the contract; upstream is cancelled, no more
    elements are mapped."""
    mapped: list[int] = []

    def fn(x: int) -> list[int]:
        mapped.append(x)
        return [x, x]

    def boom(sink: _Sink, item: Any) -> None:
        if len(sink.values) == 3:
            raise RuntimeError("consumer broke")

    sink = _Sink(2**63 - 1, boom)
    _apply(op, Flow.range(0, 10), fn).subscribe(sink)
    assert sink.values == [0, 0, 1]
    assert mapped == [0, 1]


@pytest.mark.parametrize("op", OPS)
def test_a_list_longer_than_prefetch_is_pulled_under_demand(op: str) -> None:
    sink = _Sink(5)
    flow = getattr(Flow.range(0, 3), op)(lambda x: list(range(x * 100, x * 100 + 50)), prefetch=4)
    flow.subscribe(sink)
    assert sink.values == [0, 1, 2, 3, 4]
    assert sink.subscription is not None
    sink.subscription.request(2**63 - 1)
    expected = [v for x in range(3) for v in range(x * 100, x * 100 + 50)]
    got = sink.values if op == "concat_map" else sorted(sink.values)  # flat_map merges
    assert got == expected
    assert sink.ends == ["complete"]


@pytest.mark.parametrize("op", OPS)
def test_a_generator_inner_is_pulled_no_further_than_its_prefetch(op: str) -> None:
    produced: list[int] = []

    def gen(x: int) -> Iterator[int]:
        for i in range(1000):
            produced.append(i)
            yield i

    sink = _Sink(2)
    getattr(Flow.just(0), op)(gen, prefetch=8).subscribe(sink)
    assert sink.values == [0, 1]
    assert len(produced) <= 8
    assert sink.subscription is not None
    sink.subscription.request(10)
    assert sink.values == list(range(12))
    assert len(produced) <= 12 + 8


# ----------------------------------------- iterables taken as they are (no Flow each)


@pytest.mark.parametrize("op", OPS)
def test_an_iterable_inner_builds_no_flow_and_no_source(
    op: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails before: the adapted mapper wrapped every iterable in ``Flow.from_iterable``
    (a source, a Flow and a fusion answer per element)."""
    from reactive_streams import sources

    built: list[object] = []
    real = sources.from_iterable

    def counting(iterable: Any, **kw: Any) -> Any:
        built.append(iterable)
        return real(iterable, **kw)

    sink = _Sink(2**63 - 1)
    source = Flow.range(0, 6)  # built before the count starts
    monkeypatch.setattr(sources, "from_iterable", counting)
    inners = [[0], (1, 1), range(2, 4), {3}, iter([4]), "ab"]
    _apply(op, source, inners.__getitem__).subscribe(sink)
    assert sink.ends == ["complete"]
    assert sink.values == [0, 1, 1, 2, 3, 3, 4, "a", "b"]
    assert built == []


@pytest.mark.parametrize("op", OPS)
def test_a_range_inner_longer_than_prefetch_is_pulled_under_demand(op: str) -> None:
    sink = _Sink(3)
    getattr(Flow.just(0), op)(lambda _: range(100), prefetch=4).subscribe(sink)
    assert (sink.values, sink.ends) == ([0, 1, 2], [])
    assert sink.subscription is not None
    sink.subscription.request(200)
    assert (sink.values, sink.ends) == (list(range(100)), ["complete"])


@pytest.mark.parametrize("op", OPS)
def test_an_iterator_that_raises_is_on_error_after_its_elements(op: str) -> None:
    def broken(x: int) -> Iterator[int]:
        yield x
        raise KeyError("the iterator failed")

    sink = _Sink(10)
    _apply(op, Flow.range(0, 3), broken).subscribe(sink)
    assert sink.values == [0]
    assert sink.ends == ["error 'the iterator failed'"]  # rule 1.4, after its element


class _Odd:
    """An element whose ``==`` raises: a list of them is no error (checked by identity)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __hash__ = object.__hash__


@pytest.mark.parametrize("op", OPS)
def test_a_list_of_elements_whose_eq_raises_is_delivered(op: str) -> None:
    odd = _Odd()
    sink = _Sink(10)
    _apply(op, Flow.range(0, 2), lambda _: [odd, odd]).subscribe(sink)
    assert sink.ends == ["complete"]
    assert [v is odd for v in sink.values] == [True] * 4


@pytest.mark.parametrize("op", OPS)
def test_demand_past_the_maximum_saturates_across_list_inners(op: str) -> None:
    def twice(sink: _Sink, item: Any) -> None:
        if item == 0:
            assert sink.subscription is not None
            sink.subscription.request(2**63 - 1)  # with the first: past 2**63 - 1 (3.17)

    sink = _Sink(2**63 - 1, twice)
    _apply(op, Flow.range(0, 300), lambda x: [x, x + 1]).subscribe(sink)
    assert sink.ends == ["complete"]
    assert sink.values == [v for x in range(300) for v in (x, x + 1)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("fused", [True, False])
def test_list_inners_give_the_same_signals_with_fusion_on_and_off(op: str, fused: bool) -> None:
    from reactive_streams._core.fusion import fusion

    sink = _Sink(5)
    with fusion(fused):
        flow = _apply(op, Flow.range(0, 4), lambda x: [x, None] if x == 2 else [x, -x])
    flow.subscribe(sink)
    assert sink.subscription is not None
    sink.subscription.request(10)
    assert sink.values == [0, 0, 1, -1, 2]
    assert sink.ends == ["error rule 2.13: a publisher must not signal on_next(None)"]


# ------------------------- a fused upstream asked inside its batch (pull_within_batch)


def test_concat_map_over_a_fused_upstream_takes_its_next_element_inside_the_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fails before: concat_map asked upstream for one element per completed inner, and
    each came as a batch of its own (100 batches for 100 elements)."""
    batches: list[int] = []
    real = _flat_map._FlatMap.on_next_batch

    def counting(self: Any, items: list[Any]) -> None:
        batches.append(len(items))
        real(self, items)

    monkeypatch.setattr(_flat_map._FlatMap, "on_next_batch", counting)
    sink = _Sink(2**63 - 1)
    Flow.range(0, 100).concat_map(lambda x: [x, -x]).subscribe(sink)
    assert sink.ends == ["complete"]
    assert sink.values == [v for x in range(100) for v in (x, -x)]
    assert batches == [1]


class _Held:
    """An inner outside the fusion protocol whose elements the test pushes."""

    def __init__(self) -> None:
        self.subscriber: Any = None

    def subscribe(self, subscriber: Any) -> None:
        self.subscriber = subscriber

        class _Sub:
            def request(self, n: int) -> None:
                pass

            def cancel(self) -> None:
                pass

        subscriber.on_subscribe(_Sub())


@pytest.mark.parametrize("at", [1, 2])
def test_concat_map_maps_no_element_while_an_inner_is_open(at: int) -> None:
    held = _Held()
    mapped: list[int] = []

    def fn(x: int) -> Any:
        mapped.append(x)
        return held if x == at else [x]

    sink = _Sink(2**63 - 1)
    Flow.range(0, 5).concat_map(fn).subscribe(sink)
    assert (mapped, sink.values) == (list(range(at + 1)), list(range(at)))  # the rest waits
    held.subscriber.on_next(20)
    held.subscriber.on_complete()
    assert mapped == [0, 1, 2, 3, 4]
    assert (sink.values, sink.ends) == ([20 if x == at else x for x in range(5)], ["complete"])


@pytest.mark.parametrize("op", OPS)
def test_demand_running_out_inside_the_batch_resumes_exactly(op: str) -> None:
    sink = _Sink(3)
    _apply(op, Flow.range(0, 10), lambda x: [x, -x]).subscribe(sink)
    assert (sink.values, sink.ends) == ([0, 0, 1], [])  # rule 1.1: 1, -1 wait whole
    assert sink.subscription is not None
    sink.subscription.request(4)
    assert sink.values == [0, 0, 1, -1, 2, -2, 3]
    sink.subscription.request(100)
    assert sink.values == [v for x in range(10) for v in (x, -x)]
    assert sink.ends == ["complete"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("fails", [False, True])
def test_an_upstream_that_ends_inside_the_batch_ends_once(op: str, fails: bool) -> None:
    def upstream() -> Iterator[int]:
        yield from range(5)
        if fails:
            raise KeyError("upstream failed")

    sink = _Sink(2**63 - 1)
    _apply(op, Flow.from_iterable(upstream()), lambda x: [x]).subscribe(sink)
    assert sink.values == [0, 1, 2, 3, 4]
    assert sink.ends == (["error 'upstream failed'"] if fails else ["complete"])
