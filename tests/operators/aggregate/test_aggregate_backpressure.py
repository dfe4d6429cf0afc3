"""buffer/window, reduce/fold/collect; on_backpressure_buffer (each overflow policy),
_drop, _latest: demand (1.1), bounded buffering, errors, cancel."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import BufferOverflowError
from reactive_streams.testing import TestSubscriber

from .._util import Probe, PushPublisher


def test_buffer_requests_count_per_list_and_flushes_the_rest(fusion: bool) -> None:
    probe = Probe()
    ts: TestSubscriber[list[int]] = TestSubscriber(1)
    probe.source(range(7)).buffer(3).subscribe(ts)
    assert probe.requests == [3]
    ts.assert_values([0, 1, 2]).assert_no_terminal()
    ts.request(5)
    ts.assert_values([0, 1, 2], [3, 4, 5], [6]).assert_complete()


def test_window_emits_flows_of_count() -> None:
    windows = Flow.range(0, 5).window(2).to_list()
    assert [w.to_list() for w in windows] == [[0, 1], [2, 3], [4]]


def test_reduce_fold_collect_wait_for_demand(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(1, 5).reduce(lambda a, b: a + b).subscribe(ts)
    ts.assert_values().assert_no_terminal()  # rule 1.1: the value waits for request
    ts.request(1)
    ts.assert_values(10).assert_complete()
    assert Flow.range(1, 4).fold(lambda acc, x: acc * x, 10).to_list() == [60]
    assert Flow.range(1, 4).collect().to_list() == [[1, 2, 3]]
    assert Flow.empty().reduce(lambda a, b: a).to_list() == []


def test_reduce_function_raising_cancels_upstream() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(1)
    probe.source(range(5)).reduce(lambda a, b: a // (b - 3)).subscribe(ts)
    ts.assert_error(ZeroDivisionError)
    assert probe.cancelled == 1


@pytest.mark.parametrize(
    ("overflow", "expected", "error"),
    [
        ("error", [0, 1, 2, 3], True),
        ("drop_latest", [0, 1, 2, 3], False),
        ("drop_oldest", [0, 7, 8, 9], False),
    ],
)
def test_on_backpressure_buffer_policies(overflow: str, expected: list[int], error: bool) -> None:
    source = PushPublisher()
    dropped: list[int] = []
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(source).on_backpressure_buffer(3, overflow, on_drop=dropped.append).subscribe(ts)
    assert source.requested == [2**63 - 1]
    source.push(*range(10))
    if not error:
        source.complete()
    ts.request(100)
    ts.assert_values(*expected).assert_no_violations()
    if error:
        ts.assert_error(BufferOverflowError)
        assert source.cancelled
    else:
        ts.assert_complete()
        assert len(dropped) == 6


def test_on_backpressure_drop_and_latest() -> None:
    source = PushPublisher()
    dropped: list[int] = []
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow(source).on_backpressure_drop(dropped.append).subscribe(ts)
    source.push(*range(5))
    ts.request(1)
    source.push(5, 6)
    source.complete()
    ts.assert_values(0, 1, 5).assert_complete()
    assert dropped == [2, 3, 4, 6]

    source2 = PushPublisher()
    latest: TestSubscriber[int] = TestSubscriber(1)
    Flow(source2).on_backpressure_latest().subscribe(latest)
    source2.push(*range(5))
    source2.complete()
    latest.assert_values(0).assert_no_terminal()
    latest.request(3)
    latest.assert_values(0, 4).assert_complete()


def test_backpressure_cancel_and_upstream_error() -> None:
    source = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(source).on_backpressure_buffer(10).subscribe(ts)
    source.push(1, 2)
    source.fail(EOFError("up"))
    ts.assert_values(1).assert_no_terminal()  # the error follows the buffered element
    ts.request(1)
    ts.assert_values(1, 2).assert_error(EOFError)
    other = PushPublisher()
    ts2: TestSubscriber[int] = TestSubscriber(1)
    Flow(other).on_backpressure_latest().subscribe(ts2)
    ts2.cancel()
    assert other.cancelled
