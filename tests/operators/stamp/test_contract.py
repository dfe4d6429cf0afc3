"""``timestamp`` and ``time_interval`` (operators/_stamp.py): times read on the
operator's scheduler clock (a ``ManualExecutor``'s virtual time here), demand as it is
(rule 1.1), errors, the cancel, a bad scheduler refused."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_timestamp_reads_the_scheduler_clock_at_each_arrival() -> None:
    clock = ManualExecutor()
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).timestamp(scheduler=clock).subscribe(ts)
    clock.advance_by(2.0)
    pub.push("a")
    clock.advance_by(1.5)
    pub.push("b")
    ts.assert_values((2.0, "a"), (3.5, "b")).assert_no_violations()


def test_time_interval_counts_from_the_subscription_then_between_elements() -> None:
    clock = ManualExecutor()
    clock.advance_by(10.0)
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).time_interval(scheduler=clock).subscribe(ts)
    clock.advance_by(1.0)
    pub.push("a")
    pub.push("b")
    clock.advance_by(0.5)
    pub.push("c")
    ts.assert_values((1.0, "a"), (0.0, "b"), (0.5, "c"))


@pytest.mark.parametrize("name", ["timestamp", "time_interval"])
def test_spec101_demand_passes_as_it_is(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    getattr(Flow(pub), name)(scheduler=ManualExecutor()).subscribe(ts)
    ts.request(3)
    assert pub.requested == [3]


@pytest.mark.parametrize("name", ["timestamp", "time_interval"])
def test_errors_pass_on_and_the_cancel_cancels_upstream(name: str) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(5)
    getattr(Flow.error(KeyError("k")), name)().subscribe(ts)
    ts.assert_error(KeyError)
    pub = PushPublisher()
    ts2: TestSubscriber[Any] = TestSubscriber(5)
    getattr(Flow(pub), name)().subscribe(ts2)
    ts2.cancel()
    assert pub.cancelled


@pytest.mark.parametrize("name", ["timestamp", "time_interval"])
def test_a_bad_scheduler_is_refused_at_assembly(name: str) -> None:
    with pytest.raises(TypeError, match=f"{name}: scheduler: executor must be"):
        getattr(Flow.just(1), name)(scheduler=3)
