"""flat_map, concat_map, merge, zip: concurrency bound, per-inner prefetch, demand (1.1),
ordering, errors (mapper, inner, upstream) and cancel reaching every inner."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.sources import IterablePublisher, ScalarPublisher, just
from reactive_streams.sources import range as rs_range
from reactive_streams.testing import TestSubscriber

from .._util import Probe


def test_flat_map_to_one_and_to_two(fusion: bool) -> None:
    assert Flow.range(0, 5).flat_map(just).to_list() == [0, 1, 2, 3, 4]
    assert Flow.range(0, 3).flat_map(lambda x: rs_range(x, x + 2)).to_list() == [0, 1, 1, 2, 2, 3]


def test_spec101_flat_map_bounded_demand(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(3)
    Flow.range(0, 4).flat_map(lambda x: rs_range(x * 10, x * 10 + 3)).subscribe(ts)
    ts.assert_values(0, 1, 2).assert_no_terminal().assert_no_violations()
    ts.request(100)
    assert sorted(ts.values) == sorted(x * 10 + i for x in range(4) for i in range(3))
    ts.assert_complete()


def test_flat_map_requests_max_concurrency_upstream() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(0)
    probe.source(range(100)).flat_map(
        lambda x: Flow.just(x).observe_on(ManualExecutor()), 4
    ).subscribe(ts)
    assert probe.requests == [4]  # inners never complete here: no replenishment


def test_flat_map_inner_prefetch_is_bounded(manual: ManualExecutor) -> None:
    inner_requests: list[int] = []
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.just(1).observe_on(manual).flat_map(
        lambda x: Flow.range(0, 100).do_on_request(inner_requests.append), prefetch=8
    ).subscribe(ts)
    manual.run_all()
    assert inner_requests == [8]
    ts.request(6)
    assert inner_requests == [8, 6]  # replenished at 75 %
    ts.assert_value_count(6)


def test_concat_map_preserves_order_with_async_inners(manual: ManualExecutor) -> None:
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(0, 3).concat_map(lambda x: Flow.range_count(x * 10, 3).observe_on(manual)).subscribe(
        ts
    )
    manual.run_all()
    ts.assert_values(0, 1, 2, 10, 11, 12, 20, 21, 22).assert_complete()


def test_flat_map_mapper_raising_cancels_upstream() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(100)

    def f(x: int) -> Flow[int]:
        if x == 2:
            raise LookupError("mapper")
        return Flow.just(x)

    probe.source(range(10)).flat_map(f).subscribe(ts)
    ts.assert_values(0, 1).assert_error(LookupError)
    assert probe.cancelled == 1


def test_flat_map_inner_error_cancels_the_others(manual: ManualExecutor) -> None:
    cancelled: list[int] = []
    ts: TestSubscriber[int] = TestSubscriber(100)

    def inner(x: int) -> Flow[int]:
        if x == 1:
            return Flow.error(OSError("inner"))
        return Flow.range(0, 5).observe_on(manual).do_on_cancel(lambda: cancelled.append(x))

    Flow.range(0, 3).flat_map(inner).subscribe(ts)
    ts.assert_error(OSError)
    manual.run_all()
    assert cancelled == [0]  # inner 0 was subscribed before the error; inner 2 never was


def test_spec312_flat_map_cancel(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.range(0, 10).flat_map(lambda x: rs_range(x, x + 2)).subscribe(ts)
    ts.cancel()
    ts.request(5)
    ts.assert_values(0, 1).assert_no_terminal()


def test_flat_map_serializes_inners_from_threads() -> None:
    from reactive_streams.executors import ThreadPoolExecutor

    with ThreadPoolExecutor(4, name="fm") as pool:
        ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
        Flow.range(0, 50).flat_map(
            lambda x: Flow.range_count(x * 100, 50).observe_on(pool)
        ).subscribe(ts)
        ts.await_terminal(20).assert_complete()
        assert sorted(ts.values) == sorted(x * 100 + i for x in range(50) for i in range(50))


def test_merge_and_zip(fusion: bool) -> None:
    assert sorted(Flow.merge(Flow.range(0, 3), Flow.range(10, 13)).to_list()) == [
        0,
        1,
        2,
        10,
        11,
        12,
    ]
    assert Flow.zip(Flow.range(0, 3), Flow.just("a", "b")).to_list() == [(0, "a"), (1, "b")]
    assert Flow.range(0, 2).zip_with(Flow.range(5, 9)).to_list() == [(0, 5), (1, 6)]


def test_spec101_zip_bounded_demand_and_error(fusion: bool) -> None:
    ts: TestSubscriber[tuple[object, ...]] = TestSubscriber(1)
    Flow.zip(Flow.range(0, 5), Flow.range(0, 5)).subscribe(ts)
    ts.assert_values((0, 0)).assert_no_terminal()
    failing: TestSubscriber[tuple[object, ...]] = TestSubscriber(5)
    Flow.zip(Flow.range(0, 5), Flow.error(KeyError("z"))).subscribe(failing)
    failing.assert_error(KeyError)


def test_flat_map_scalar_and_sync_inners_are_not_subscribed_when_fused(
    fusion: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    subscribed: list[object] = []
    for cls in (IterablePublisher, ScalarPublisher):  # a scalar subscribes on its own
        original = cls.subscribe

        def counting(self: Any, subscriber: Any, original: Any = original) -> None:
            subscribed.append(self)
            original(self, subscriber)

        monkeypatch.setattr(cls, "subscribe", counting)
    values = (
        Flow.range(0, 6)
        .flat_map(lambda x: Flow.just(x) if x % 2 else Flow.range_count(x * 10, 2))
        .to_list()
    )
    assert values == [0, 1, 1, 20, 21, 3, 40, 41, 5]
    assert len(subscribed) == (0 if fusion else 7)  # upstream and every inner when unfused


def test_spec101_flat_map_scalars_under_bounded_demand(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(0, 50).flat_map(Flow.just, 8).subscribe(ts)
    for expected in (3, 4, 20, 50):
        ts.request(expected - len(ts.values))
        assert len(ts.values) == expected
    ts.assert_values(*range(50)).assert_complete().assert_no_violations()


class _CancelAt:
    def __init__(self, at: int) -> None:
        self.at = at
        self.seen: list[int] = []
        self.terminal: list[str] = []
        self.subscription: Any = None

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription
        subscription.request(2**63 - 1)

    def on_next(self, item: int) -> None:
        self.seen.append(item)
        if item == self.at:
            self.subscription.cancel()

    def on_error(self, error: BaseException) -> None:
        self.terminal.append("error")

    def on_complete(self) -> None:
        self.terminal.append("complete")


def test_spec312_flat_map_cancel_from_on_next_stops_the_fast_paths(fusion: bool) -> None:
    scalars = _CancelAt(3)
    Flow.range(0, 100).flat_map(Flow.just).subscribe(scalars)
    assert scalars.seen == [0, 1, 2, 3]
    pairs = _CancelAt(3)
    Flow.range(0, 100).flat_map(lambda x: Flow.range(x, x + 2)).subscribe(pairs)
    assert pairs.seen == [0, 1, 1, 2, 2, 3]
    assert scalars.terminal == pairs.terminal == []
