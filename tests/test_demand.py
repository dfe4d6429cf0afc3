"""Demand arithmetic: rules 3.9 and 3.17."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactive_streams._core.demand import MAX_DEMAND, add_demand, check_request, take

demand = st.integers(min_value=0, max_value=MAX_DEMAND)
positive = st.integers(min_value=1, max_value=2**70)


def test_spec317_max_demand_is_java_long_max() -> None:
    assert MAX_DEMAND == 9223372036854775807


@given(demand, positive)
def test_spec317_add_demand_saturates(current: int, n: int) -> None:
    result = add_demand(current, n)
    assert result == min(current + n, MAX_DEMAND)
    assert current <= result <= MAX_DEMAND


def test_spec317_add_to_unbounded_stays_unbounded() -> None:
    assert add_demand(MAX_DEMAND, 1) == MAX_DEMAND
    assert add_demand(MAX_DEMAND - 1, MAX_DEMAND) == MAX_DEMAND
    assert add_demand(MAX_DEMAND - 2, 1) == MAX_DEMAND - 1


@given(demand, st.data())
def test_spec317_take_keeps_unbounded_and_subtracts_bounded(
    current: int, data: st.DataObject
) -> None:
    k = data.draw(st.integers(min_value=0, max_value=current))
    left = take(current, k)
    assert left == (MAX_DEMAND if current == MAX_DEMAND else current - k)
    assert 0 <= left <= current


@pytest.mark.parametrize("k", [0, 1, 128, MAX_DEMAND - 1, MAX_DEMAND])
def test_spec317_taking_from_unbounded_demand_leaves_it_unbounded(k: int) -> None:
    assert take(MAX_DEMAND, k) == MAX_DEMAND


@pytest.mark.parametrize("n", [0, -1, -(2**63)])
def test_spec309_non_positive_request_is_rejected_with_rule_text(n: int) -> None:
    assert check_request(n) == f"rule 3.9: request(n) requires n > 0, got {n}"


@pytest.mark.parametrize("n", [True, False, 1.0, "1", None, 2.5])
def test_spec309_non_int_or_bool_request_is_rejected(n: object) -> None:
    message = check_request(n)
    assert message is not None
    assert message.startswith("rule 3.9: ")


@pytest.mark.parametrize(
    ("n", "shown"), [("1", "str '1'"), (2.5, "float 2.5"), (None, "NoneType None")]
)
def test_spec309_a_non_int_request_is_named_by_its_type_and_value(n: object, shown: str) -> None:
    assert check_request(n) == f"rule 3.9: request(n) requires an int n > 0, got {shown}"


@given(positive)
def test_spec309_positive_ints_are_valid(n: int) -> None:
    assert check_request(n) is None
