"""The switching operators (operators/_recover.py): Backoff's checks and delays, the
messages of a fallback or factory that returns no Publisher."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import Backoff
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, Recorder


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"first": "1"}, "Backoff: first must be a number, got '1'"),
        ({"first": True}, "Backoff: first must be a number, got True"),
        ({"first": float("nan")}, "Backoff: first must be a number, got nan"),
        ({"first": 1.0, "factor": None}, "Backoff: factor must be a number, got None"),
        ({"first": 1.0, "max": "3"}, "Backoff: max must be a number, got '3'"),
    ],
)
def test_backoff_refuses_what_is_not_a_number(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError) as info:
        Backoff(**kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"first": -1}, "Backoff: first must be >= 0, got -1"),
        ({"first": 1.0, "max": -0.5}, "Backoff: max must be >= 0, got -0.5"),
        ({"first": 1.0, "factor": 0.5}, "Backoff: factor must be >= 1, got 0.5"),
    ],
)
def test_backoff_refuses_negative_values_and_a_factor_below_1(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=r"^Backoff: ") as info:
        Backoff(**kwargs)
    assert str(info.value) == message


def test_backoff_accepts_the_bounds() -> None:
    b = Backoff(0, factor=1, max=0)
    assert (b.first, b.factor, b.max) == (0, 1, 0)
    assert Backoff(1.0).max is None
    assert Backoff(1.0).factor == 2.0


def test_backoff_delays_grow_by_factor_up_to_max() -> None:
    b = Backoff(0.5, factor=3.0, max=10.0)
    assert [b.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.5, 4.5, 10.0]
    assert Backoff(2.0, factor=2.0).delay(3) == 8.0  # no cap


def test_backoff_delay_past_overflow_is_the_cap_or_infinite() -> None:
    assert Backoff(1.0, factor=10.0, max=7.0).delay(10_000) == 7.0
    assert Backoff(1.0, factor=10.0).delay(10_000) == float("inf")


def _fails() -> Flow[int]:
    return Flow.error(RuntimeError("source failed"))


def test_on_error_resume_returning_none_names_rule_213_and_the_function() -> None:
    def fallback(error: BaseException) -> Any:
        return None

    ts: TestSubscriber[int] = TestSubscriber(1)
    _fails().on_error_resume(fallback).subscribe(ts)
    ts.assert_error(TypeError)
    error = ts.errors[0]
    assert str(error) == "rule 2.13: on_error_resume(fallback): returned None, not a Publisher"
    assert isinstance(error.__context__, RuntimeError)  # the source's error as context


def test_on_error_resume_returning_no_publisher_names_the_type() -> None:
    def fallback(error: BaseException) -> Any:
        return [1, 2]

    ts: TestSubscriber[int] = TestSubscriber(1)
    _fails().on_error_resume(fallback).subscribe(ts)
    ts.assert_error(TypeError)
    assert str(ts.errors[0]) == "on_error_resume(fallback): returned list, not a Publisher"


def test_defer_factory_returning_none_is_on_subscribe_then_the_rule_213_error() -> None:
    def factory() -> Any:
        return None

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(factory).subscribe(ts)
    ts.assert_error(TypeError).assert_no_violations()
    assert str(ts.errors[0]) == "rule 2.13: defer(factory): returned None, not a Publisher"


def test_retry_with_a_scheduler_refusing_the_timer_ends_with_its_error() -> None:
    from reactive_streams.executors import ManualExecutor

    refused = RuntimeError("scheduler shut down")

    class Refusing(ManualExecutor):
        def schedule(self, delay: float, task: Any) -> Any:
            raise refused

    subscribed: list[int] = []

    def source() -> Flow[int]:
        subscribed.append(1)
        return _fails()

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(source).retry(3, backoff=Backoff(1.0), scheduler=Refusing()).subscribe(ts)
    ts.assert_values().assert_no_violations()
    assert ts.errors == [refused]  # rules 1.9, 1.4: the scheduler's error, once
    assert subscribed == [1]  # no resubscription


def test_on_error_resume_hands_the_error_to_its_function() -> None:
    seen: list[BaseException] = []

    def fallback(error: BaseException) -> Flow[int]:
        seen.append(error)
        return Flow.just(7)

    ts: TestSubscriber[int] = TestSubscriber(5)
    _fails().on_error_resume(fallback).subscribe(ts)
    ts.assert_values(7).assert_complete()
    assert [str(e) for e in seen] == ["source failed"]


def test_retry_resubscribes_times_times_then_passes_the_error() -> None:
    subscribed: list[int] = []

    def source() -> Flow[int]:
        subscribed.append(1)
        return _fails()

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(source).retry(2).subscribe(ts)
    assert len(subscribed) == 3  # the first subscription and two retries
    assert [str(e) for e in ts.errors] == ["source failed"]


def test_retry_when_counts_the_attempts_from_1() -> None:
    attempts: list[int] = []

    def again(error: BaseException, attempt: int) -> bool:
        attempts.append(attempt)
        return attempt < 3

    ts: TestSubscriber[int] = TestSubscriber(1)
    _fails().retry_when(again).subscribe(ts)
    assert attempts == [1, 2, 3]
    ts.assert_error(RuntimeError)


def test_on_error_resume_passes_the_fallbacks_own_error() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    _fails().on_error_resume(lambda e: Flow.error(KeyError("fallback"))).subscribe(ts)
    assert [repr(e) for e in ts.errors] == ["KeyError('fallback')"]  # not resumed again


def test_concat_subscribes_each_source_in_turn_at_the_previous_completion() -> None:
    rec = Recorder()
    a, b, c = PushPublisher(), PushPublisher(), PushPublisher()
    Flow.concat(a, b, c).subscribe(rec)
    assert (a.subscriber is not None, b.subscriber, c.subscriber) == (True, None, None)
    a.push(1)
    a.complete()
    assert (b.subscriber is not None, c.subscriber) == (True, None)
    b.push(2)
    b.complete()
    assert c.subscriber is not None
    c.push(3)
    c.complete()
    assert (rec.values, rec.ends) == ([1, 2, 3], ["complete"])


def test_switch_if_empty_switches_only_for_an_empty_source() -> None:
    fallback = PushPublisher()
    rec = Recorder()
    up = PushPublisher()
    Flow(up).switch_if_empty(fallback).subscribe(rec)
    up.push(1)
    up.complete()
    assert (rec.values, rec.ends, fallback.subscriber) == ([1], ["complete"], None)
    empty = PushPublisher()
    rec = Recorder()
    Flow(empty).switch_if_empty(fallback).subscribe(rec)
    empty.complete()
    assert fallback.subscriber is not None
    fallback.push(7)
    fallback.complete()
    assert (rec.values, rec.ends) == ([7], ["complete"])
