"""``Flow.merge_sequential`` (operators/_sequential.py): all subscribed at once, emitted
in publisher order; prefetch per publisher and demand (1.1); the first error at once,
cancelling the rest; the cancel (3.12); the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_elements_come_in_publisher_order_whatever_the_arrival_order() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow.merge_sequential(a, b, prefetch=4).subscribe(ts)
    assert a.requested == [4]
    assert b.requested == [4]  # subscribed at once, both asked
    b.push("b1", "b2")
    a.push("a1")
    ts.assert_values("a1")
    b.complete()
    a.push("a2")
    a.complete()
    ts.assert_values("a1", "a2", "b1", "b2").assert_complete().assert_no_violations()


def test_spec101_demand_is_honoured_across_publishers() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.merge_sequential(Flow.range(3), Flow.range(10, 13)).subscribe(ts)
    ts.request(4)
    ts.assert_values(0, 1, 2, 10).assert_no_terminal()
    ts.request(5)
    ts.assert_values(0, 1, 2, 10, 11, 12).assert_complete()


def test_an_error_from_any_publisher_passes_at_once_and_cancels_the_rest() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow.merge_sequential(a, b).subscribe(ts)
    a.push(1)
    b.fail(KeyError("k"))
    ts.assert_values(1).assert_error(KeyError)
    assert a.cancelled


def test_spec312_cancel_cancels_every_publisher() -> None:
    a, b = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow.merge_sequential(a, b).subscribe(ts)
    ts.cancel()
    assert a.cancelled and b.cancelled  # noqa: PT018


def test_none_is_empty_and_bad_arguments_are_named() -> None:
    assert Flow.merge_sequential().to_list(timeout=5) == []
    with pytest.raises(TypeError, match=r"merge_sequential: publishers\[0\] must be a Publisher"):
        Flow.merge_sequential(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="merge_sequential prefetch: size must be an int > 0"):
        Flow.merge_sequential(Flow.just(1), prefetch=0)


def recording() -> tuple[dict[int, PushPublisher], Any]:
    """A mapper whose inners are test-driven publishers, kept by element."""
    inners: dict[int, PushPublisher] = {}

    def inner(x: int) -> PushPublisher:
        inners[x] = PushPublisher()
        return inners[x]

    return inners, inner


def test_flat_map_sequential_emits_inners_in_upstream_order_subscribing_eagerly() -> None:
    inners, inner = recording()
    main = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow(main).flat_map_sequential(inner, max_concurrency=2, prefetch=4).subscribe(ts)
    assert main.requested == [2]  # max_concurrency inners at once
    main.push(0, 1)
    assert inners[0].requested == [4]
    assert inners[1].requested == [4]  # both subscribed at once
    inners[1].push("b")
    inners[1].complete()
    ts.assert_values()  # 1's elements wait for 0's
    inners[0].push("a")
    inners[0].complete()
    ts.assert_values("a", "b")
    assert main.requested == [2, 1, 1]  # one more per inner emitted whole
    main.complete()
    ts.assert_complete().assert_no_violations()


def test_flat_map_sequential_completes_over_empty_inners_without_demand() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.range(3).flat_map_sequential(lambda x: Flow.empty()).subscribe(ts)
    ts.assert_values().assert_complete()


def test_spec101_flat_map_sequential_honours_demand() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.range(3).flat_map_sequential(lambda x: [x, x]).subscribe(ts)
    ts.request(3)
    ts.assert_values(0, 0, 1).assert_no_terminal()
    ts.request(10)
    ts.assert_values(0, 0, 1, 1, 2, 2).assert_complete().assert_no_violations()


def test_flat_map_sequential_errors_pass_at_once_and_cancel_everything() -> None:
    inners, inner = recording()
    main = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow(main).flat_map_sequential(inner).subscribe(ts)
    main.push(0, 1)
    inners[1].fail(KeyError("k"))
    ts.assert_error(KeyError)
    assert main.cancelled and inners[0].cancelled  # noqa: PT018

    def boom(x: int) -> Flow[int]:
        raise LookupError("fn")

    ts2: TestSubscriber[Any] = TestSubscriber(1)
    Flow.just(1).flat_map_sequential(boom).subscribe(ts2)
    ts2.assert_error(LookupError)


def test_spec312_flat_map_sequential_cancel_cancels_upstream_and_inners() -> None:
    inners, inner = recording()
    main = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    Flow(main).flat_map_sequential(inner).subscribe(ts)
    main.push(0)
    ts.cancel()
    assert main.cancelled and inners[0].cancelled  # noqa: PT018


def test_flat_map_sequential_bad_arguments_are_named() -> None:
    with pytest.raises(TypeError, match="flat_map_sequential: fn must be callable"):
        Flow.just(1).flat_map_sequential(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="flat_map_sequential max_concurrency: size must be"):
        Flow.just(1).flat_map_sequential(lambda x: [x], max_concurrency=0)
