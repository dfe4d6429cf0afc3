"""``buffer(count, skip)`` (operators/_sliding.py): overlapping and gapped lists, the
open lists at completion, exactly the elements the requested lists need (rule 1.1),
errors, the cancel (3.12), the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


@pytest.mark.parametrize(
    ("count", "skip", "expected"),
    [
        (3, 1, [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4], [4]]),
        (3, 2, [[0, 1, 2], [2, 3, 4], [4]]),
        (2, 3, [[0, 1], [3, 4]]),
        (2, 2, [[0, 1], [2, 3], [4]]),
    ],
)
def test_lists_as_reactivex_buffer_with_count(count: int, skip: int, expected: Any) -> None:
    assert Flow.range(5).buffer(count, skip).to_list(timeout=5) == expected


def test_matches_reactivex_on_the_same_input() -> None:
    reactivex = pytest.importorskip("reactivex")
    from reactivex import operators as ops

    for count, skip in [(3, 1), (3, 2), (2, 3), (4, 4), (1, 2)]:
        theirs: list[Any] = []
        reactivex.from_iterable(range(9)).pipe(ops.buffer_with_count(count, skip)).subscribe(
            theirs.append
        )
        assert Flow.range(9).buffer(count, skip).to_list(timeout=5) == theirs, (count, skip)


def test_spec101_upstream_is_asked_for_what_the_requested_lists_need() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).buffer(3, 1).subscribe(ts)
    assert pub.requested == []  # nothing before downstream asks
    ts.request(1)
    assert sum(pub.requested) == 3  # list 0 needs elements 0..2
    ts.request(2)
    assert sum(pub.requested) == 5  # lists 1, 2 need elements 3, 4
    pub.push(0, 1, 2, 3, 4)
    ts.assert_values([0, 1, 2], [1, 2, 3], [2, 3, 4]).assert_no_violations()


def test_spec101_the_open_lists_at_completion_wait_for_demand() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow(pub).buffer(3, 1).subscribe(ts)
    pub.push(0, 1, 2)
    pub.complete()
    ts.assert_values([0, 1, 2]).assert_no_terminal()  # [1, 2], [2] wait for demand
    ts.request(5)
    ts.assert_values([0, 1, 2], [1, 2], [2]).assert_complete().assert_no_violations()


def test_an_error_drops_the_lists_and_passes_at_once() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).buffer(2, 1).subscribe(ts)
    ts.request(1)
    pub.push(0, 1)
    pub.fail(KeyError("k"))
    ts.assert_values([0, 1]).assert_error(KeyError)


def test_spec312_cancel_mid_stream_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).buffer(2, 1).subscribe(ts)
    pub.push(0, 1)
    ts.cancel()
    assert pub.cancelled
    pub.push(2)
    ts.assert_values([0, 1]).assert_no_terminal()


def test_unbounded_demand_asks_upstream_unbounded_once() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(2**63 - 1)
    Flow(pub).buffer(3, 2).subscribe(ts)
    assert pub.requested == [2**63 - 1]  # rule 3.17


@pytest.mark.parametrize("skip", [0, -1, 1.5])
def test_a_bad_skip_is_refused_naming_it(skip: Any) -> None:
    with pytest.raises(ValueError, match=f"buffer: skip must be None or an int > 0, got {skip}"):
        Flow.just(1).buffer(2, skip)
