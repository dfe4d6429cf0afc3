"""debounce, sample, throttle_first, buffer_timeout, window_timeout, timeout: what the
mutation run (tools/mutation.py) showed untested. Virtual time: a ``ManualExecutor``."""

from __future__ import annotations

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TimedSubscriber

from ._util import PushPublisher


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


def test_timeout_names_its_duration(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(PushPublisher()).timeout(2.5, scheduler=ex).subscribe(ts)
    ex.advance_by(10.0)
    [error] = ts.errors
    assert type(error) is TimeoutError
    assert str(error) == "timeout(2.5): no element within 2.5 s"
    assert ts.timeline == [(2.5, "on_error", error)]


def test_spec213_timeouts_fallback_subscriber_refuses_none_by_name(ex: ManualExecutor) -> None:
    fallback = PushPublisher()
    ts: TimedSubscriber[int] = TimedSubscriber(ex, 5)
    Flow(PushPublisher()).timeout(1.0, fallback, scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    inner = fallback.subscriber
    assert inner is not None  # subscribed at the timeout
    with pytest.raises(TypeError) as raised:
        inner.on_subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_subscribe(None)"
    with pytest.raises(TypeError) as raised:
        inner.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"
    fallback.push(7)
    ex.advance_by(0.0)
    assert ts.values == [7]
    assert ts.errors == []
