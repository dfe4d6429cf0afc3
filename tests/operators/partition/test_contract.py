"""``partition`` (operators/_partition.py): two cold halves, each with ``filter``'s demand
(1.1), a raising predicate failing both, the cancel, the argument."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators._partition import Not
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_the_two_halves_each_subscribe_the_flow() -> None:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.range(6)

    evens, odds = Flow.defer(make).partition(lambda x: x % 2 == 0)
    assert evens.to_list(timeout=5) == [0, 2, 4]
    assert odds.to_list(timeout=5) == [1, 3, 5]
    assert len(subscriptions) == 2


def test_behind_share_one_subscription_feeds_both() -> None:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.range(4)

    shared = Flow.defer(make).publish()
    small, large = shared.partition(lambda x: x < 2)
    a: TestSubscriber[int] = TestSubscriber(10)
    b: TestSubscriber[int] = TestSubscriber(10)
    small.subscribe(a)
    large.subscribe(b)
    shared.connect()
    a.assert_values(0, 1).assert_complete()
    b.assert_values(2, 3).assert_complete()
    assert len(subscriptions) == 1


def test_spec101_a_dropped_element_is_replaced_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    _, odds = Flow(pub).partition(lambda x: x % 2 == 0)
    odds.subscribe(ts)
    pub.push(0)  # dropped by this half: one more is asked
    assert pub.requested == [1, 1]
    pub.push(1)
    ts.assert_values(1).assert_no_violations()


def test_a_raising_predicate_fails_both_halves_and_cancels_upstream() -> None:
    def boom(x: int) -> bool:
        raise ArithmeticError("p")

    for half in Flow.range(3).partition(boom):
        ts: TestSubscriber[Any] = TestSubscriber(1)
        half.subscribe(ts)
        ts.assert_error(ArithmeticError)


def test_spec312_cancel_mid_stream_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).partition(lambda x: True)[0].subscribe(ts)
    pub.push(1)
    ts.cancel()
    assert pub.cancelled


def test_the_predicate_is_checked_and_named() -> None:
    with pytest.raises(TypeError, match="partition: predicate must be callable"):
        Flow.just(1).partition(3)  # type: ignore[arg-type]
    assert repr(Not(str.isdigit)) == "not isdigit"  # the second half's predicate, named
