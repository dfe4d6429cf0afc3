"""``exhaust_map`` (operators/_exhaust.py): elements arriving while an inner runs are
dropped; the next one after it completed (and was drained) starts a new inner; errors,
demand (1.1), the cancel (3.12), the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def wired(demand: int = 10) -> tuple[PushPublisher, dict[Any, PushPublisher], TestSubscriber[Any]]:
    main = PushPublisher()
    inners: dict[Any, PushPublisher] = {}

    def inner(x: Any) -> PushPublisher:
        inners[x] = PushPublisher()
        return inners[x]

    ts: TestSubscriber[Any] = TestSubscriber(demand)
    Flow(main).exhaust_map(inner, prefetch=4).subscribe(ts)
    return main, inners, ts


def test_elements_during_an_inner_are_dropped() -> None:
    main, inners, ts = wired()
    assert main.requested == [2**63 - 1]  # rule 3.17: upstream unbounded
    main.push("a")
    main.push("b", "c")  # dropped: a's inner runs
    assert list(inners) == ["a"]
    inners["a"].push(1, 2)
    inners["a"].complete()
    main.push("d")  # a completed and was drained: d starts the next inner
    inners["d"].push(3)
    inners["d"].complete()
    main.complete()
    ts.assert_values(1, 2, 3).assert_complete().assert_no_violations()


def test_an_inner_not_yet_drained_still_counts_as_running() -> None:
    main, inners, ts = wired(demand=1)
    main.push("a")
    inners["a"].push(1, 2)
    inners["a"].complete()
    main.push("b")  # 2 waits for demand: b is dropped
    ts.request(5)
    main.complete()
    assert list(inners) == ["a"]
    ts.assert_values(1, 2).assert_complete()


def test_an_error_of_the_inner_or_upstream_passes_and_cancels() -> None:
    main, inners, ts = wired()
    main.push("a")
    inners["a"].fail(KeyError("k"))
    ts.assert_error(KeyError)
    assert main.cancelled
    main2, inners2, ts2 = wired()
    main2.push("a")
    main2.fail(LookupError("up"))
    ts2.assert_error(LookupError)
    assert inners2["a"].cancelled


def test_spec312_cancel_cancels_upstream_and_the_inner() -> None:
    main, inners, ts = wired()
    main.push("a")
    ts.cancel()
    assert main.cancelled and inners["a"].cancelled  # noqa: PT018


def test_synchronous_inners_drop_nothing() -> None:
    assert Flow.range(3).exhaust_map(lambda x: [x, x]).to_list(timeout=5) == [0, 0, 1, 1, 2, 2]


def test_bad_arguments_are_refused_naming_them() -> None:
    with pytest.raises(TypeError, match="exhaust_map: fn must be callable"):
        Flow.just(1).exhaust_map(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exhaust_map prefetch: size must be an int > 0"):
        Flow.just(1).exhaust_map(lambda x: [x], prefetch=0)
