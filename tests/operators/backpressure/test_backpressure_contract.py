"""The backpressure strategies (operators/_backpressure.py): the overflow errors'
messages, the on_drop callback's log, what each strategy keeps."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import BufferOverflowError
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, hops_over_just


def test_buffer_overflow_error_names_the_operator_and_bound_after_the_buffered() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).on_backpressure_buffer(2).subscribe(ts)
    pub.push(1, 2, 3)
    assert pub.cancelled
    ts.assert_no_terminal()  # the buffered elements first
    ts.request(5)
    ts.assert_values(1, 2).assert_error(BufferOverflowError)
    assert str(ts.errors[0]) == "on_backpressure_buffer: more than 2 elements undelivered"


@pytest.mark.parametrize(
    ("overflow", "kept", "dropped"),
    [("drop_oldest", [3, 4], [1, 2]), ("drop_latest", [1, 2], [3, 4])],
)
def test_drop_oldest_and_drop_latest_keep_the_bound(
    overflow: str, kept: list[int], dropped: list[int]
) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    drops: list[int] = []
    Flow(pub).on_backpressure_buffer(2, overflow, drops.append).subscribe(ts)
    pub.push(1, 2, 3, 4)
    pub.complete()
    assert not pub.cancelled
    ts.assert_no_terminal()
    ts.request(10)
    ts.assert_values(*kept).assert_complete()
    assert drops == dropped


def test_a_raising_on_drop_is_logged_and_the_stream_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def on_drop(item: Any) -> None:
        raise RuntimeError(f"drop {item}")

    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).on_backpressure_buffer(1, "drop_latest", on_drop).subscribe(ts)
    with caplog.at_level(logging.ERROR):
        pub.push(1, 2)
    records = [r for r in caplog.records if r.getMessage() == "on_drop callback raised"]
    assert len(records) == 1
    assert records[0].name == "reactive_streams"
    assert records[0].exc_info is not None
    assert str(records[0].exc_info[1]) == "drop 2"
    ts.request(1)
    ts.assert_values(1).assert_no_terminal()


def test_on_backpressure_drop_passes_what_is_requested_and_drops_the_rest() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    drops: list[int] = []
    Flow(pub).on_backpressure_drop(drops.append).subscribe(ts)
    assert pub.requested == [2**63 - 1]  # rule 3.17
    pub.push(1, 2)
    ts.request(1)
    pub.push(3, 4)
    ts.assert_values(1, 3).assert_no_violations()
    assert drops == [2, 4]


def test_on_backpressure_latest_keeps_only_the_latest_undelivered() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).on_backpressure_latest().subscribe(ts)
    pub.push(1, 2, 3)
    pub.complete()
    ts.assert_no_terminal()
    ts.request(5)
    ts.assert_values(3).assert_complete()


def test_on_backpressure_error_fails_with_its_message_when_no_demand() -> None:
    from reactive_streams.operators._backpressure import OnBackpressureError
    from reactive_streams.operators._base import OperatorPublisher

    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(OperatorPublisher(pub, OnBackpressureError, "on_backpressure_error")).subscribe(ts)
    assert pub.requested == [2**63 - 1]
    pub.push(1, 2)
    assert pub.cancelled
    ts.assert_values(1).assert_error(BufferOverflowError)
    assert str(ts.errors[0]) == "an element arrived without downstream demand"


class _DrainedAtTheCheck(str):
    """``"drop_oldest"`` whose comparison runs ``armed`` once: the window between the
    buffer's bound check and its drop, where a drain on another thread (forced here, on
    one thread) can take the queue empty."""

    armed: Any = None

    def __eq__(self, other: object) -> bool:
        armed, self.armed = self.armed, None
        if armed is not None:
            armed()
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_drop_oldest_finding_the_queue_taken_meanwhile_keeps_the_element() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    drops: list[int] = []
    overflow = _DrainedAtTheCheck("drop_oldest")
    Flow(pub).on_backpressure_buffer(1, overflow, drops.append).subscribe(ts)
    pub.push(1)  # the buffer is full
    overflow.armed = lambda: ts.request(1)  # the drain delivers 1 inside the window
    pub.push(2)  # nothing left to drop: 2 is buffered, nothing raised
    ts.assert_values(1)
    ts.request(1)
    ts.assert_values(1, 2)
    assert drops == []


@pytest.mark.parametrize(
    ("name", "build"),
    [
        ("on_backpressure_buffer", lambda f: f.on_backpressure_buffer(4)),
        ("on_backpressure_latest", lambda f: f.on_backpressure_latest()),
    ],
)
def test_the_hop_names_itself_in_the_trace(name: str, build: Any) -> None:
    assert hops_over_just(build) == [name, "just"]


def test_on_backpressure_buffer_delivers_what_waits_only_as_far_as_the_demand() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).on_backpressure_buffer(8).subscribe(ts)
    pub.push(1, 2, 3)
    ts.request(2)
    ts.assert_values(1, 2)  # rule 1.1: one drain round, two of three
    ts.request(1)
    ts.assert_values(1, 2, 3)


def test_on_backpressure_latest_of_nothing_completes_empty() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(pub).on_backpressure_latest().subscribe(ts)
    ts.assert_values()  # nothing arrived: nothing to deliver
    pub.complete()
    ts.assert_values().assert_complete()


def test_on_backpressure_latest_takes_one_demand_per_element_delivered() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow(pub).on_backpressure_latest().subscribe(ts)
    pub.push(1)
    pub.push(2)
    ts.assert_values(1, 2)  # rule 1.1: two asked, two sent, none taken for nothing
    pub.push(3)
    ts.assert_values(1, 2)  # no demand: 3 waits as the latest
    ts.request(1)
    ts.assert_values(1, 2, 3)


def test_spec309_on_backpressure_drop_forwards_a_bad_request_and_passes_nothing_more() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(pub).on_backpressure_drop().subscribe(ts)
    ts.request(-1)
    assert pub.requested == [2**63 - 1, -1]  # rule 3.9: upstream signals it too
    pub.push(1)  # the hop's own rule 3.9 error instead of the element
    ts.assert_values().assert_error(ValueError)
    assert str(ts.errors[0]) == "rule 3.9: request(n) requires n > 0, got -1"


def test_on_backpressure_drop_under_unbounded_demand_drops_nothing() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
    drops: list[int] = []
    Flow(pub).on_backpressure_drop(drops.append).subscribe(ts)
    pub.push(1, 2, 3)
    ts.assert_values(1, 2, 3)  # rule 3.17: unbounded demand is never used up
    assert drops == []
