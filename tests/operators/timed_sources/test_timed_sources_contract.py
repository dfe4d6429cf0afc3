"""interval and timer: what the mutation run (tools/mutation.py) showed untested.
Virtual time: a ``ManualExecutor`` clock."""

from __future__ import annotations

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import BufferOverflowError
from reactive_streams.testing import TimedSubscriber
from reactive_streams.tracing import tracing


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


def test_spec101_interval_names_the_tick_that_found_no_demand(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 2)
    Flow.interval(1.5, scheduler=ex).subscribe(ts)
    ex.advance_by(10.0)
    [error] = ts.errors
    assert type(error) is BufferOverflowError
    assert str(error) == (
        "rule 1.1: interval(1.5) could not emit tick 2: no demand "
        "(request more, or add on_backpressure_drop/latest/buffer)"
    )
    assert ts.values == [0, 1]


@pytest.mark.parametrize("hop", ["interval", "timer"])
def test_each_timed_source_names_itself_in_the_trace(ex: ManualExecutor, hop: str) -> None:
    flow = Flow.interval(1.0, scheduler=ex) if hop == "interval" else Flow.timer(1.0, scheduler=ex)
    with tracing() as tracer:
        flow.subscribe(TimedSubscriber(ex, 1))
    assert next(e["hop"] for e in tracer.events if e["sig"] == "subscribe") == hop
