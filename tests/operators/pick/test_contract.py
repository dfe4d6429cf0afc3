"""``first_element``, ``last_element``, ``single`` (operators/_pick.py): the picked
element waits for demand (rule 1.1), the default or ``IndexError`` on an empty flow,
``single``'s ``ValueError`` at a second element (upstream cancelled, 3.12), the cancel,
upstream's error, rule 2.13."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher

PICKS = ["first_element", "last_element", "single"]


def run(name: str, items: list[int], *default: int) -> TestSubscriber[Any]:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    getattr(Flow.from_iterable(items), name)(*default).subscribe(ts)
    return ts


@pytest.mark.parametrize(
    ("name", "items", "value"),
    [("first_element", [4, 5, 6], 4), ("last_element", [4, 5, 6], 6), ("single", [4], 4)],
)
def test_the_picked_element_then_completion(name: str, items: list[int], value: int) -> None:
    run(name, items).assert_values(value).assert_complete().assert_no_violations()


@pytest.mark.parametrize("name", PICKS)
def test_an_empty_flow_gives_the_default(name: str) -> None:
    run(name, [], 9).assert_values(9).assert_complete()


@pytest.mark.parametrize("name", PICKS)
def test_an_empty_flow_without_default_fails_with_index_error_naming_the_operator(
    name: str,
) -> None:
    ts = run(name, [])
    ts.assert_values().assert_error(IndexError)
    assert str(ts.errors[0]) == f"{name}: the flow completed without an element"


def test_single_fails_at_the_second_element_and_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(pub).single(0).subscribe(ts)
    pub.push(1, 2)
    assert pub.cancelled  # rule 3.12: the answer is known
    ts.assert_values().assert_error(ValueError)
    assert str(ts.errors[0]) == "single: the flow has more than one element"


def test_first_element_cancels_upstream_at_its_element_and_waits_for_demand() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(pub).first_element().subscribe(ts)
    assert pub.requested == [2**63 - 1]  # rule 3.17: unbounded
    pub.push(7)
    assert pub.cancelled
    ts.assert_values().assert_no_terminal()  # rule 1.1: no demand yet
    ts.request(1)
    ts.assert_values(7).assert_complete()


@pytest.mark.parametrize("name", ["last_element", "single"])
def test_spec101_the_element_known_at_completion_waits_for_demand(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    getattr(Flow(pub), name)().subscribe(ts)
    pub.push(3)
    pub.complete()
    ts.assert_values().assert_no_terminal()
    ts.request(1)
    ts.assert_values(3).assert_complete().assert_no_violations()


@pytest.mark.parametrize("name", PICKS)
def test_upstream_error_passes_on(name: str) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    getattr(Flow.error(KeyError("k")), name)().subscribe(ts)
    ts.assert_values().assert_error(KeyError)


@pytest.mark.parametrize("name", PICKS)
def test_spec312_cancel_mid_stream_cancels_upstream(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    getattr(Flow(pub), name)().subscribe(ts)
    ts.cancel()
    assert pub.cancelled
    pub.push(1)
    pub.complete()
    ts.assert_values().assert_no_terminal()


@pytest.mark.parametrize("name", PICKS)
def test_spec213_a_none_default_is_refused_naming_the_argument(name: str) -> None:
    with pytest.raises(TypeError, match=f"rule 2.13: {name}: default must not be None"):
        getattr(Flow.just(1), name)(None)
