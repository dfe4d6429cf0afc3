"""Macro-fusion of map/filter (operators/_fused.py): the fused hop's name, completion
exactly when the unfused chain completes, rule 2.13 refusals named as unfused."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import set_fusion
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing


@pytest.fixture(autouse=True)
def _fused() -> Iterator[None]:
    previous = set_fusion(True)
    yield
    set_fusion(previous)


def _run(flow: Callable[[], Flow[Any]], n: int) -> tuple[TestSubscriber[Any], list[Any]]:
    ts: TestSubscriber[Any] = TestSubscriber(n)
    with tracing() as tracer:
        flow().subscribe(ts)
    return ts, [e.get("hop") for e in tracer.events if e["sig"] == "subscribe"]


def test_fused_map_is_one_hop_and_completes_with_the_last_element() -> None:
    ts, hops = _run(lambda: Flow.range(0, 3).map(lambda x: x + 1), 3)
    ts.assert_values(1, 2, 3).assert_complete()  # exact: no request after the last
    assert hops == ["range+map"]


def test_fused_map_over_a_list_completes_with_the_last_element() -> None:
    ts, hops = _run(lambda: Flow.from_iterable([4, 5]).map(lambda x: -x), 2)
    ts.assert_values(-4, -5).assert_complete()
    assert hops == ["from_iterable+map"]


def test_fused_filter_is_one_hop_and_completes_when_its_source_is_exhausted() -> None:
    ts, hops = _run(lambda: Flow.range(0, 5).filter(lambda x: x % 2 == 0), 3)
    ts.assert_values(0, 2, 4).assert_complete()
    assert hops == ["range+filter"]
    ts, _ = _run(lambda: Flow.range(0, 6).filter(lambda x: x % 2 == 0), 3)
    ts.assert_values(0, 2, 4).assert_no_terminal()  # 5 is left: maybe more


def test_fused_map_over_a_one_shot_iterator_waits_for_its_end() -> None:
    ts, _ = _run(lambda: Flow.from_iterable(iter([1, 2])).map(lambda x: x), 2)
    ts.assert_values(1, 2)  # its end is known at the latest on the next pull
    ts.request(1)
    ts.assert_values(1, 2).assert_complete()


def test_spec213_a_fused_map_returning_none_is_named_as_unfused() -> None:
    def parse(x: int) -> Any:
        return None if x == 2 else x

    ts, _ = _run(lambda: Flow.range(0, 4).map(parse).filter(lambda x: True), 5)
    ts.assert_values(0, 1).assert_error(TypeError)
    assert str(ts.errors[0]) == (
        "rule 2.13: map(parse): returned None, and on_next(None) is not allowed"
    )


@pytest.mark.parametrize("stage", ["map", "filter"])
def test_spec213_a_none_from_the_source_fails_the_fused_stage(stage: str) -> None:
    seen: list[Any] = []

    def fn(x: Any) -> Any:
        seen.append(x)
        return x

    def build() -> Flow[Any]:
        source = Flow.from_iterable([1, None, 3])
        return source.map(fn) if stage == "map" else source.filter(fn)

    ts, _ = _run(build, 5)
    ts.assert_values(1).assert_error(TypeError)
    assert str(ts.errors[0]) == "rule 2.13: a publisher must not signal on_next(None)"
    assert seen == [1]  # the function never sees the None


def test_a_stage_over_a_fused_filter_carries_the_whole_name() -> None:
    ts, hops = _run(lambda: Flow.range(0, 4).filter(lambda x: x > 1).map(lambda x: -x), 2)
    ts.assert_values(-2, -3).assert_complete()
    assert hops == ["range+filter+map"]
