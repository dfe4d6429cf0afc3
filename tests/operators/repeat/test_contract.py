"""``repeat`` and ``repeat_when`` (operators/_repeat.py): the subscriptions counted,
demand carried across resubscriptions (rule 1.1), errors at once, the cancel (3.12)."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def counted(items: list[int]) -> tuple[Flow[int], list[int]]:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.from_iterable(items)

    return Flow.defer(make), subscriptions


def test_repeat_n_subscribes_n_plus_one_times_as_reactor() -> None:
    flow, subscriptions = counted([1, 2])
    assert flow.repeat(2).to_list(timeout=5) == [1, 2, 1, 2, 1, 2]
    assert len(subscriptions) == 3


def test_repeat_zero_is_the_flow_once() -> None:
    flow, subscriptions = counted([1, 2])
    assert flow.repeat(0).to_list(timeout=5) == [1, 2]
    assert len(subscriptions) == 1


def test_repeat_without_times_runs_until_the_subscriber_has_enough() -> None:
    flow, subscriptions = counted([1, 2])
    assert flow.repeat().take(7).to_list(timeout=5) == [1, 2, 1, 2, 1, 2, 1]
    assert len(subscriptions) == 4


def test_spec101_demand_carries_over_to_the_next_subscription() -> None:
    ts: TestSubscriber[int] = TestSubscriber(3)
    Flow.from_iterable([1, 2]).repeat(3).subscribe(ts)
    ts.assert_values(1, 2, 1).assert_no_terminal()  # never more than requested
    ts.request(4)
    ts.assert_values(1, 2, 1, 2, 1, 2, 1).assert_no_terminal()
    ts.request(1)
    ts.assert_values(1, 2, 1, 2, 1, 2, 1, 2).assert_complete().assert_no_violations()


def test_an_error_passes_on_at_once_and_is_not_repeated() -> None:
    flow, subscriptions = counted([1])
    failing = flow.concat_with(Flow.error(KeyError("k")))
    ts: TestSubscriber[int] = TestSubscriber(10)
    failing.repeat(5).subscribe(ts)
    ts.assert_values(1).assert_error(KeyError)
    assert len(subscriptions) == 1


def test_spec312_cancel_mid_stream_cancels_the_current_subscription() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(pub).repeat(3).subscribe(ts)
    pub.push(1)
    ts.cancel()
    assert pub.cancelled
    ts.assert_values(1).assert_no_terminal()


def test_repeat_when_asks_the_predicate_with_the_completions_counted() -> None:
    asked: list[int] = []

    def again(completions: int) -> bool:
        asked.append(completions)
        return completions < 3

    assert Flow.just(7).repeat_when(again).to_list(timeout=5) == [7, 7, 7]
    assert asked == [1, 2, 3]


def test_a_raising_repeat_when_predicate_fails_the_stream() -> None:
    def boom(completions: int) -> bool:
        raise ArithmeticError("predicate")

    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow.just(7).repeat_when(boom).subscribe(ts)
    ts.assert_values(7).assert_error(ArithmeticError)


def test_spec309_an_invalid_request_ends_it_and_is_never_repeated() -> None:
    flow, subscriptions = counted([1, 2])
    ts: TestSubscriber[int] = TestSubscriber()
    flow.repeat().subscribe(ts)
    ts.request(-1)
    ts.assert_error(ValueError)
    assert "rule 3.9" in str(ts.errors[0])
    assert len(subscriptions) <= 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f: f.repeat(-1), "repeat: times must be None or an int >= 0, got -1"),
        (lambda f: f.repeat(1.5), "repeat: times must be None or an int >= 0, got 1.5"),
        (lambda f: f.repeat_when(3), "repeat_when: predicate must be callable"),
    ],
)
def test_bad_arguments_are_refused_naming_them(call: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message.replace("(", r"\(")):
        call(Flow.just(1))
