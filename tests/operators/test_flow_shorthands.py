"""The instance shorthands of ``Flow``'s static combinators: each is its static form."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(30)


def test_merge_with_is_merge_of_self_and_others() -> None:
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(3).merge_with(Flow.range(10, 12), Flow.just(7)).subscribe(ts)
    ts.await_terminal().assert_complete().assert_no_violations()
    assert sorted(ts.values) == [0, 1, 2, 7, 10, 11]
    assert [x for x in ts.values if x < 3] == [0, 1, 2]  # each source's order is kept
    assert [x for x in ts.values if x >= 10] == [10, 11]


def test_merge_with_passes_an_others_error_on() -> None:
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(2).merge_with(Flow.error(KeyError("boom"))).subscribe(ts)
    ts.await_terminal().assert_no_violations()
    assert len(ts.errors) == 1
    assert isinstance(ts.errors[0], KeyError)
    assert ts.completions == 0


def test_combine_latest_with_pairs_latest_elements() -> None:
    ts: TestSubscriber[tuple[int, str]] = TestSubscriber(100)
    Flow.just(1).combine_latest_with(Flow.from_iterable(["a", "b"])).subscribe(ts)
    ts.await_terminal().assert_complete().assert_no_violations()
    assert ts.values == [(1, "a"), (1, "b")]


def test_combine_latest_with_respects_demand() -> None:
    ts: TestSubscriber[tuple[int, int]] = TestSubscriber(1)
    Flow.just(1).combine_latest_with(Flow.range(5)).subscribe(ts)
    ts.await_count(1)
    assert ts.values == [(1, 0)]  # rule 1.1: one requested, one delivered
    ts.request(10)
    ts.await_terminal().assert_complete().assert_no_violations()
    assert [b for _, b in ts.values] == [0, 1, 2, 3, 4]
