"""``buffer_until(p)``, ``buffer_while(p)`` and ``buffer_until_changed(key)``
(operators/_cut.py): lists cut by a predicate or a change of key, the open list at
completion, ``filter``'s demand (1.1: each element closing no list replaced), a raising
predicate or key, the cancel (3.12), the argument."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_buffer_until_closes_a_list_at_each_matching_element() -> None:
    lists = Flow.range(8).buffer_until(lambda x: x % 3 == 2).to_list(timeout=5)
    assert lists == [[0, 1, 2], [3, 4, 5], [6, 7]]


def test_buffer_while_drops_the_failing_element_and_never_emits_an_empty_list() -> None:
    lists = Flow.from_iterable([0, 1, 2, 0, 0, 3, 4]).buffer_while(bool).to_list(timeout=5)
    assert lists == [[1, 2], [3, 4]]


@pytest.mark.parametrize("name", ["buffer_until", "buffer_while"])
def test_spec101_an_element_closing_no_list_is_replaced(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    getattr(Flow(pub), name)(lambda x: x < 5 if name == "buffer_while" else x >= 5).subscribe(ts)
    ts.request(1)
    assert pub.requested == [1]
    pub.push(1, 2)
    assert pub.requested == [1, 1, 1]  # each joined the open list: one more asked
    pub.push(7)  # closes the list (buffer_until: its last; buffer_while: dropped)
    assert pub.requested == [1, 1, 1]
    ts.assert_value_count(1).assert_no_violations()


@pytest.mark.parametrize("name", ["buffer_until", "buffer_while"])
def test_spec101_the_open_list_at_completion_is_within_demand(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    getattr(Flow(pub), name)(lambda x: name == "buffer_while").subscribe(ts)
    pub.push(1, 2)
    pub.complete()
    ts.assert_values([1, 2]).assert_complete().assert_no_violations()


def test_unbounded_demand_asks_nothing_more() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(2**63 - 1)
    Flow(pub).buffer_until(lambda x: False).subscribe(ts)
    pub.push(1, 2, 3)
    assert pub.requested == [2**63 - 1]


@pytest.mark.parametrize("name", ["buffer_until", "buffer_while"])
def test_a_raising_predicate_cancels_upstream_and_fails(name: str) -> None:
    def boom(x: int) -> bool:
        raise ArithmeticError("p")

    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    getattr(Flow(pub), name)(boom).subscribe(ts)
    pub.push(1)
    assert pub.cancelled
    ts.assert_error(ArithmeticError)


@pytest.mark.parametrize("name", ["buffer_until", "buffer_while"])
def test_spec312_cancel_mid_stream_drops_the_open_list(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    getattr(Flow(pub), name)(lambda x: False).subscribe(ts)
    pub.push(1)
    ts.cancel()
    assert pub.cancelled
    ts.assert_values().assert_no_terminal()


def test_an_error_drops_the_open_list() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(1).concat_with(Flow.error(KeyError("k"))).buffer_until(bool).subscribe(ts)
    ts.assert_values([1]).assert_error(KeyError)
    ts2: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(0).concat_with(Flow.error(KeyError("k"))).buffer_until(bool).subscribe(ts2)
    ts2.assert_values().assert_error(KeyError)


@pytest.mark.parametrize("name", ["buffer_until", "buffer_while"])
def test_the_predicate_is_checked_by_name(name: str) -> None:
    with pytest.raises(TypeError, match=f"{name}: predicate must be callable"):
        getattr(Flow.just(1), name)(3)


def test_buffer_until_changed_cuts_where_the_key_changes() -> None:
    lists = Flow.from_iterable([1, 1, 2, 2, 2, 1, 3]).buffer_until_changed().to_list(timeout=5)
    assert lists == [[1, 1], [2, 2, 2], [1], [3]]
    words = Flow.from_iterable(["a", "ab", "b", "cd", "ce"]).buffer_until_changed(lambda w: w[0])
    assert words.to_list(timeout=5) == [["a", "ab"], ["b"], ["cd", "ce"]]
    assert Flow.empty().buffer_until_changed().to_list(timeout=5) == []


def test_spec101_buffer_until_changed_replaces_an_element_of_the_open_list() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).buffer_until_changed().subscribe(ts)
    ts.request(1)
    assert pub.requested == [1]
    pub.push(1, 1)
    assert pub.requested == [1, 1, 1]  # each joined the open list: one more asked
    pub.push(2)  # closes [1, 1] and opens [2]: owed to the list it closed
    assert pub.requested == [1, 1, 1]
    ts.assert_values([1, 1]).assert_no_violations()
    ts.request(1)
    pub.push(2)
    pub.complete()  # the open list, within the demand asked for it
    ts.assert_values([1, 1], [2, 2]).assert_complete().assert_no_violations()


def test_buffer_until_changed_a_raising_key_cancels_upstream_and_fails() -> None:
    def boom(x: int) -> int:
        if x == 3:
            raise ArithmeticError("key")
        return x

    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).buffer_until_changed(boom).subscribe(ts)
    pub.push(1, 2, 3)
    assert pub.cancelled
    ts.assert_values([1]).assert_error(ArithmeticError)  # [2] was open: lost


def test_spec312_buffer_until_changed_cancel_drops_the_open_list() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).buffer_until_changed().subscribe(ts)
    pub.push(1)
    ts.cancel()
    pub.complete()
    assert pub.cancelled
    ts.assert_values().assert_no_terminal()


def test_buffer_until_changed_key_is_checked_by_name() -> None:
    with pytest.raises(TypeError, match="buffer_until_changed: key must be callable"):
        Flow.just(1).buffer_until_changed(3)  # type: ignore[arg-type]
