"""The timed core (``TimedDrain``, ``delay``, the duration check): what the mutation run
(tools/mutation.py) showed untested. Virtual time: a ``ManualExecutor`` clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber, TimedSubscriber

from ._util import PushPublisher

_ONE: Any = "1"  # not a number


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: Flow.timer(True), TypeError, "timer: seconds must be a number, got True"),
        (lambda: Flow.timer(_ONE), TypeError, "timer: seconds must be a number, got '1'"),
        (lambda: Flow.timer(float("nan")), TypeError, "timer: seconds must be a number, got nan"),
        (lambda: Flow.timer(-0.5), ValueError, "timer: seconds must be >= 0, got -0.5"),
        (lambda: Flow.just(1).delay(-1), ValueError, "delay: seconds must be >= 0, got -1"),
        (lambda: Flow.just(1).debounce(0), ValueError, "debounce: seconds must be > 0, got 0"),
        (
            lambda: Flow.just(1).debounce(-2.0),
            ValueError,
            "debounce: seconds must be > 0, got -2.0",
        ),
    ],
    ids=["bool", "str", "nan", "negative", "negative-int", "zero-positive", "negative-positive"],
)
def test_durations_are_refused_by_name(
    build: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        build()
    assert str(raised.value) == message


def test_zero_and_fractional_durations_are_accepted(ex: ManualExecutor) -> None:
    Flow.timer(0, scheduler=ex)
    Flow.just(1).delay(0.0, scheduler=ex)
    Flow.just(1).debounce(1e-9, scheduler=ex)
    ts: TimedSubscriber[int] = TimedSubscriber(ex)
    Flow.timer(0, scheduler=ex).subscribe(ts)
    ex.advance_by(0.0)
    assert ts.timeline == [(0.0, "on_next", 0), (0.0, "on_complete", None)]


def test_spec213_a_timed_hop_refuses_on_error_none_by_name(ex: ManualExecutor) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(upstream).delay(1.0, scheduler=ex).subscribe(ts)
    assert upstream.subscriber is not None
    with pytest.raises(TypeError) as raised:
        upstream.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"
    ex.advance_by(5.0)
    ts.assert_no_terminal()


@pytest.mark.parametrize(
    "build",
    [lambda c: Flow.timer(1.0, scheduler=c), lambda c: Flow.just(1).delay(1.0, scheduler=c)],
    ids=["source", "operator"],
)
def test_spec109_a_timed_publisher_refuses_a_none_subscriber_by_name(
    ex: ManualExecutor, build: Callable[[Any], Flow[Any]]
) -> None:
    with pytest.raises(TypeError) as raised:
        build(ex).source.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert ex.scheduled == 0
