"""The operators whose element is known at the end (operators/_tail.py): element_at's
IndexError message, the deciding element cancelling upstream (3.12), demand (1.1)."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, hops_over_just


def test_element_at_past_the_end_names_how_many_were_missing() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.from_iterable([1, 2]).element_at(4).subscribe(ts)
    ts.assert_values().assert_error(IndexError)
    assert str(ts.errors[0]) == "element_at: the flow completed 2 element(s) short"


def test_element_at_past_the_end_gives_the_default() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.from_iterable([1, 2]).element_at(2, 9).subscribe(ts)
    ts.assert_values(9).assert_complete()


@pytest.mark.parametrize(
    ("name", "items", "expected"),
    [
        ("element_at", [5, 6, 7], 6),
        ("all", [2, 4, 5, 6], False),
        ("any", [1, 3, 4, 5], True),
    ],
)
def test_spec312_the_deciding_element_cancels_upstream_and_waits_for_demand(
    name: str, items: list[int], expected: Any
) -> None:
    ops: dict[str, Any] = {
        "element_at": lambda f: f.element_at(1),
        "all": lambda f: f.all(lambda x: x % 2 == 0),
        "any": lambda f: f.any(lambda x: x % 2 == 0),
    }
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    ops[name](Flow(pub)).subscribe(ts)
    stop = {"element_at": 2, "all": 3, "any": 3}[name]
    pub.push(*items[:stop])
    assert pub.cancelled  # rule 3.12: nothing more is needed
    ts.assert_no_terminal()  # rule 1.1: no demand yet
    ts.request(1)
    ts.assert_values(expected).assert_complete()


@pytest.mark.parametrize(("name", "expected"), [("all", True), ("any", False), ("count", 3)])
def test_at_the_end_all_any_count_answer(name: str, expected: Any) -> None:
    ops: dict[str, Any] = {
        "all": lambda f: f.all(lambda x: x > 0),
        "any": lambda f: f.any(lambda x: x > 5),
        "count": lambda f: f.count(),
    }
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    ops[name](Flow(pub)).subscribe(ts)
    assert pub.requested == [2**63 - 1]  # rule 3.17: everything
    pub.push(1, 2, 3)
    pub.complete()
    ts.assert_no_terminal()
    ts.request(1)
    ts.assert_values(expected).assert_complete()


def test_take_last_emits_under_demand_then_completes() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(pub).take_last(3).subscribe(ts)
    pub.push(1, 2, 3, 4, 5)
    pub.complete()
    ts.assert_values(3).assert_no_terminal()
    ts.request(1)
    ts.assert_values(3, 4).assert_no_terminal()
    ts.request(5)
    ts.assert_values(3, 4, 5).assert_complete()


def test_take_last_cancelled_from_on_next_sends_no_more() -> None:
    class _CancelAtFirst(TestSubscriber[int]):
        def on_next(self, item: int) -> None:
            super().on_next(item)
            self.cancel()

    pub = PushPublisher()
    ts = _CancelAtFirst(5)
    Flow(pub).take_last(3).subscribe(ts)
    pub.push(1, 2, 3)
    pub.complete()
    ts.assert_values(1).assert_no_terminal()


def test_an_error_drops_the_queue() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).take_last(3).subscribe(ts)
    pub.push(1, 2)
    pub.fail(RuntimeError("x"))
    ts.assert_values().assert_error(RuntimeError)


@pytest.mark.parametrize(
    ("name", "build"),
    [
        ("count", lambda f: f.count()),
        ("take_last", lambda f: f.take_last(1)),
        ("all", lambda f: f.all(bool)),
        ("any", lambda f: f.any(bool)),
        ("element_at", lambda f: f.element_at(0)),
    ],
)
def test_the_hop_names_itself_in_the_trace(name: str, build: Any) -> None:
    assert hops_over_just(build) == [name, "just"]


def test_take_last_emits_nothing_before_the_completion_even_with_demand() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).take_last(2).subscribe(ts)
    pub.push(1, 2, 3)
    ts.request(5)
    ts.assert_values()  # which are the last is known only at the end
    pub.complete()
    ts.assert_values(2, 3).assert_complete()


def test_take_last_sends_only_as_many_as_requested_in_one_round() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).take_last(3).subscribe(ts)
    pub.push(1, 2, 3, 4, 5)
    pub.complete()
    ts.request(2)
    ts.assert_values(3, 4).assert_no_terminal()  # rule 1.1
    ts.request(1)
    ts.assert_values(3, 4, 5).assert_complete()


@pytest.mark.parametrize("name", ["all", "any"])
def test_a_raising_predicate_is_the_error_and_cancels_upstream(name: str) -> None:
    def predicate(x: int) -> bool:
        raise KeyError(x)

    pub = PushPublisher()
    ts: TestSubscriber[bool] = TestSubscriber(1)
    (Flow(pub).all(predicate) if name == "all" else Flow(pub).any(predicate)).subscribe(ts)
    pub.push(4)
    assert pub.cancelled
    assert [repr(e) for e in ts.errors] == ["KeyError(4)"]
