"""The up-front argument checks of the Flow methods (operators/_args.py): each message
names the method and the argument, and is raised at assembly."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow


def test_check_callable_names_method_argument_and_the_value() -> None:
    with pytest.raises(TypeError) as info:
        Flow.just(1).skip_while(3)  # type: ignore[arg-type]
    assert str(info.value) == "skip_while: predicate must be callable, got int 3"


def test_a_callable_passes_the_check() -> None:
    assert Flow.just(1).skip_while(bool) is not None


def test_check_publisher_names_method_argument_and_the_type() -> None:
    with pytest.raises(TypeError) as info:
        Flow.just(1).switch_if_empty(3)  # type: ignore[arg-type]
    assert str(info.value) == "switch_if_empty: other must be a Publisher, got int"


def test_a_publisher_passes_the_check() -> None:
    assert Flow.just(1).switch_if_empty(Flow.just(2)) is not None


def test_check_element_names_rule_213_method_and_argument() -> None:
    with pytest.raises(TypeError) as info:
        Flow.just(1).default_if_empty(None)  # type: ignore[arg-type]
    assert str(info.value) == (
        "rule 2.13: default_if_empty: value must not be None (it would be on_next(None))"
    )


@pytest.mark.parametrize("times", [-1, 1.5, "2", True])
def test_check_times_refuses_what_is_not_an_int_at_least_0(times: Any) -> None:
    with pytest.raises(ValueError, match=r"^retry: times") as info:
        Flow.just(1).retry(times)
    assert str(info.value) == f"retry: times must be None or an int >= 0, got {times!r}"


@pytest.mark.parametrize("times", [None, 0, 1, 5])
def test_check_times_accepts_none_and_ints_from_0(times: int | None) -> None:
    assert Flow.just(1).retry(times) is not None
