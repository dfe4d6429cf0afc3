"""``pipe`` refuses a reactivex operator at assembly, naming the bridge (``rx.py``):
before, it built without complaint and failed at subscribe with an ``AttributeError``."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow

reactivex = pytest.importorskip("reactivex")
ops = pytest.importorskip("reactivex.operators")
rx = pytest.importorskip("reactive_streams.rx")


def test_a_reactivex_operator_is_refused_by_position_naming_the_bridge() -> None:
    with pytest.raises(TypeError) as info:
        Flow.range(0, 3).pipe(lambda f: f.map(str), ops.map(len))
    text = str(info.value)
    assert text.startswith("pipe: operator 2 is a reactivex operator")
    assert "reactive_streams.rx.to_observable" in text
    assert "reactive_streams.rx.from_observable" in text


def test_an_operator_returning_an_observable_is_refused() -> None:
    def wrapped(flow: Flow[int]) -> Any:
        return ops.filter(bool)(flow)

    with pytest.raises(TypeError, match=r"pipe: operator 1 returned a reactivex Observable"):
        Flow.range(0, 3).pipe(wrapped)


def test_the_named_bridge_works_both_ways() -> None:
    observable = rx.to_observable(Flow.range(0, 5)).pipe(ops.map(lambda x: x * 3))
    back = rx.from_observable(observable, strategy="buffer")
    assert back.pipe(lambda f: f.filter(lambda x: x % 2 == 0)).to_list(timeout=10) == [0, 6, 12]


def test_own_operators_still_pipe() -> None:
    assert Flow.range(0, 3).pipe(lambda f: f.map(str)).to_list(timeout=10) == ["0", "1", "2"]
