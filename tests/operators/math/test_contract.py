"""``min``, ``max``, ``sum``, ``average``, ``to_dict`` (operators/_math.py): the values,
an empty flow's answer (``sum``: start, ``to_dict``: {}, the others: empty), a raising key
(upstream cancelled), demand (rule 1.1), the cancel, rule 2.13, the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher

ALL: dict[str, Any] = {
    "min": lambda f: f.min(),
    "max": lambda f: f.max(),
    "sum": lambda f: f.sum(),
    "average": lambda f: f.average(),
    "to_dict": lambda f: f.to_dict(lambda x: x % 2),
}


@pytest.mark.parametrize(
    ("name", "value"),
    [("min", 1), ("max", 9), ("sum", 24), ("average", 4.8), ("to_dict", {1: 5, 0: 6})],
)
def test_the_folded_value_then_completion(name: str, value: Any) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    ALL[name](Flow.from_iterable([3, 1, 9, 5, 6])).subscribe(ts)
    ts.assert_values(value).assert_complete().assert_no_violations()


def test_min_max_with_a_key_keep_the_first_of_equals() -> None:
    words = ["bb", "a", "cc", "d"]
    assert Flow.from_iterable(words).min(key=len).to_list(timeout=5) == ["a"]
    assert Flow.from_iterable(words).max(key=len).to_list(timeout=5) == ["bb"]


def test_sum_starts_at_start_and_average_takes_a_key() -> None:
    assert Flow.range(4).sum(10).to_list(timeout=5) == [16]
    assert Flow.from_iterable(["ab", "abcd"]).average(key=len).to_list(timeout=5) == [3.0]
    pairs = Flow.range(3).to_dict(lambda x: f"k{x}", lambda x: x * x)
    assert pairs.to_list(timeout=5) == [{"k0": 0, "k1": 1, "k2": 4}]


@pytest.mark.parametrize(
    ("name", "values"),
    [("min", []), ("max", []), ("average", []), ("sum", [0]), ("to_dict", [{}])],
)
def test_an_empty_flow(name: str, values: list[Any]) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    ALL[name](Flow.empty()).subscribe(ts)
    ts.assert_values(*values).assert_complete()


@pytest.mark.parametrize(
    "make",
    [
        lambda f, k: f.min(key=k),
        lambda f, k: f.max(key=k),
        lambda f, k: f.average(key=k),
        lambda f, k: f.to_dict(k),
        lambda f, k: f.to_dict(lambda x: x, k),
    ],
)
def test_a_raising_function_cancels_upstream_and_fails(make: Any) -> None:
    def key(x: int) -> int:
        if x == 2:
            raise ArithmeticError("key")
        return x

    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    make(Flow(pub), key).subscribe(ts)
    pub.push(1, 2)
    assert pub.cancelled
    ts.assert_values().assert_error(ArithmeticError)


def test_an_incomparable_element_fails_min_with_its_type_error() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.just(1, "a").min().subscribe(ts)
    ts.assert_error(TypeError)


@pytest.mark.parametrize("name", list(ALL))
def test_spec101_the_value_waits_for_demand(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    ALL[name](Flow(pub)).subscribe(ts)
    assert pub.requested == [2**63 - 1]  # rule 3.17: everything
    pub.push(2, 4)
    pub.complete()
    ts.assert_values().assert_no_terminal()
    ts.request(1)
    ts.assert_value_count(1).assert_complete().assert_no_violations()


@pytest.mark.parametrize("name", list(ALL))
def test_spec312_cancel_mid_stream_cancels_upstream(name: str) -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    ALL[name](Flow(pub)).subscribe(ts)
    pub.push(1)
    ts.cancel()
    assert pub.cancelled
    pub.complete()
    ts.assert_values().assert_no_terminal()


@pytest.mark.parametrize("name", list(ALL))
def test_upstream_error_passes_on(name: str) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    ALL[name](Flow.just(1).concat_with(Flow.error(KeyError("k")))).subscribe(ts)
    ts.assert_values().assert_error(KeyError)


def test_spec213_sum_refuses_a_none_start_and_a_none_total() -> None:
    with pytest.raises(TypeError, match=r"rule 2\.13: sum: start must not be None"):
        Flow.just(1).sum(None)

    class Nothing:
        def __add__(self, other: object) -> None:
            return None

    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.just(1).sum(Nothing()).subscribe(ts)
    ts.assert_error(TypeError)
    assert "rule 2.13: sum" in str(ts.errors[0])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f: f.min(key=1), "min: key must be callable"),
        (lambda f: f.max(key=1), "max: key must be callable"),
        (lambda f: f.average(key=1), "average: key must be callable"),
        (lambda f: f.to_dict(1), "to_dict: key must be callable"),
        (lambda f: f.to_dict(str, 1), "to_dict: value must be callable"),
    ],
)
def test_bad_arguments_are_refused_naming_them(call: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call(Flow.just(1))
