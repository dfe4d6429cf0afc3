"""``map_not_none`` (Reactor's ``mapNotNull``) and ``handle`` (emit zero or one per
element): the same signals fused and unfused, a drop replaced upstream under bounded
demand, early completion and failure through the sink, rule 2.13 named, one fused hop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.operators import HandleSink
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing

from .._util import Probe, PushPublisher


def parse(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def odd_until_seven(x: int, sink: HandleSink[int]) -> None:
    if x % 2:
        sink.next(x * 10)
    if x == 7:
        sink.complete()


def run(flow: Flow[Any], n: int = 100) -> TestSubscriber[Any]:
    ts: TestSubscriber[Any] = TestSubscriber(n)
    flow.subscribe(ts)
    return ts


@pytest.mark.usefixtures("fusion")
def test_map_not_none_skips_the_nones() -> None:
    rows = ["1", "x", "22", "", "3"]
    run(Flow.from_iterable(rows).map_not_none(parse)).assert_values(1, 22, 3).assert_complete()


@pytest.mark.usefixtures("fusion")
def test_map_not_none_keeps_falsy_values() -> None:
    flow = Flow.range(0, 4).map_not_none(lambda x: [0, "", False, None][x])
    run(flow).assert_values(0, "", False).assert_complete()


@pytest.mark.usefixtures("fusion")
def test_map_not_none_completes_exactly_under_exact_demand() -> None:
    run(Flow.range(0, 3).map_not_none(lambda x: x + 1), 3).assert_values(1, 2, 3).assert_complete()


@pytest.mark.usefixtures("fusion")
def test_map_not_none_fails_with_the_mapper_error() -> None:
    def boom(x: int) -> int:
        if x == 2:
            raise ValueError("bad row")
        return x

    ts = run(Flow.range(0, 5).map_not_none(boom))
    ts.assert_values(0, 1).assert_error(ValueError)


@pytest.mark.usefixtures("fusion")
def test_map_not_none_never_sees_a_none_from_its_source() -> None:
    seen: list[Any] = []

    def record(x: Any) -> Any:
        seen.append(x)
        return x

    ts = run(Flow.from_iterable([1, None, 3]).map_not_none(record))
    ts.assert_values(1).assert_error(TypeError)
    assert "rule 2.13" in str(ts.errors[0])
    assert seen == [1]


def test_map_not_none_replaces_each_drop_under_bounded_demand() -> None:
    probe = Probe()
    ts = run(probe.source(["1", "x", "y", "2"]).map_not_none(parse), 2)
    ts.assert_values(1, 2).assert_complete()
    assert probe.requests == [2, 1, 1]  # two drops, two replacements (rule 1.1 intact)


def test_map_not_none_is_one_fused_hop() -> None:
    with tracing() as tracer:
        run(Flow.range(0, 3).map_not_none(lambda x: x or None))
    hops = [e.get("hop") for e in tracer.events if e["sig"] == "subscribe"]
    assert hops == ["range+map_not_none"]


@pytest.mark.usefixtures("fusion")
def test_handle_emits_zero_or_one_then_completes_early() -> None:
    run(Flow.range(0, 100).handle(odd_until_seven)).assert_values(10, 30, 50, 70).assert_complete()


@pytest.mark.usefixtures("fusion")
def test_handle_completes_with_the_last_value_under_exact_demand() -> None:
    ts = run(Flow.range(0, 100).handle(odd_until_seven), 4)
    ts.assert_values(10, 30, 50, 70).assert_complete()  # no fifth request needed


@pytest.mark.usefixtures("fusion")
def test_handle_complete_without_a_value() -> None:
    def stop_at_two(x: int, sink: HandleSink[int]) -> None:
        if x == 2:
            sink.complete()
        else:
            sink.next(x)

    run(Flow.range(0, 10).handle(stop_at_two)).assert_values(0, 1).assert_complete()


@pytest.mark.usefixtures("fusion")
def test_handle_error_fails_the_stream_without_the_value() -> None:
    def fail_at_two(x: int, sink: HandleSink[int]) -> None:
        sink.next(x)
        if x == 2:
            sink.error(LookupError("no such key"))

    ts = run(Flow.range(0, 10).handle(fail_at_two))
    ts.assert_values(0, 1).assert_error(LookupError)


@pytest.mark.usefixtures("fusion")
@pytest.mark.parametrize(
    ("fn", "error", "text"),
    [
        (
            lambda x, sink: sink.next(None),
            TypeError,
            "rule 2.13: handle(<lambda>): sink.next(None)",
        ),
        (
            lambda x, sink: (sink.next(x), sink.next(x)),
            RuntimeError,
            "at most one element per element",
        ),
        # fused, a StopIteration would end the iterator silently: it is wrapped
        (lambda x, sink: next(iter(())), Exception, "StopIteration"),
    ],
    ids=["none", "twice", "stop_iteration"],
)
def test_handle_misuse_fails_the_stream_by_name(
    fn: Callable[[int, HandleSink[int]], object], error: type[Exception], text: str
) -> None:
    ts = run(Flow.range(0, 3).handle(fn))
    ts.assert_values().assert_error(error)
    assert text in repr(ts.errors[0]) + str(ts.errors[0]) + repr(ts.errors[0].__cause__)


def test_handle_cancels_upstream_on_complete() -> None:
    upstream = PushPublisher()
    ts = run(Flow(upstream).handle(odd_until_seven))
    upstream.push(1, 2, 7)
    ts.assert_values(10, 70).assert_complete()
    assert upstream.cancelled


def test_handle_replaces_each_drop_under_bounded_demand() -> None:
    probe = Probe()
    ts = run(probe.source([1, 2, 4, 3]).handle(odd_until_seven), 2)
    ts.assert_values(10, 30).assert_complete()
    assert probe.requests == [2, 1, 1]


@pytest.mark.parametrize("method", ["map_not_none", "handle"])
def test_a_non_callable_fails_at_assembly(method: str) -> None:
    with pytest.raises(TypeError, match=f"{method}: fn must be callable"):
        getattr(Flow.range(0, 3), method)(42)
