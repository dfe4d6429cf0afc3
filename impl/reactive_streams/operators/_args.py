"""Up-front argument checks of the Flow methods: each message names the method and the
argument (a bad argument fails at assembly, not inside a subscription)."""

from __future__ import annotations

from typing import Any

__all__ = ["check_callable", "check_element", "check_publisher", "check_times"]


def check_callable(method: str, arg: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"{method}: {arg} must be callable, got {type(fn).__name__} {fn!r}")


def check_publisher(method: str, arg: str, publisher: Any) -> None:
    if not hasattr(publisher, "subscribe"):
        raise TypeError(f"{method}: {arg} must be a Publisher, got {type(publisher).__name__}")


def check_element(method: str, arg: str, value: Any) -> None:
    if value is None:
        raise TypeError(f"rule 2.13: {method}: {arg} must not be None (it would be on_next(None))")


def check_times(method: str, arg: str, times: Any) -> None:
    if times is not None and (type(times) is not int or times < 0):
        raise ValueError(f"{method}: {arg} must be None or an int >= 0, got {times!r}")
