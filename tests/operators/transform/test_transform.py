"""map, filter, scan, do_on_next, do_on_request, do_on_cancel: values, demand (1.1, 3.17),
cancel (3.12), errors from user functions (cancel upstream, original exception down)."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import Probe


class Boom(Exception):
    pass


def test_map_filter_values_and_completion(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(1, 11).map(lambda x: x * 3).filter(lambda x: x % 2 == 0).subscribe(ts)
    ts.assert_values(6, 12, 18, 24, 30).assert_complete()


def test_spec101_map_delivers_no_more_than_requested(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.range(1, 11).map(lambda x: x + 1).subscribe(ts)
    ts.assert_values(2, 3).assert_no_terminal().assert_no_violations()
    ts.request(3)
    ts.assert_values(2, 3, 4, 5, 6).assert_no_terminal()
    ts.request(100)
    ts.assert_complete()


def test_spec101_filter_replaces_dropped_elements_with_requests() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2)
    probe.source(range(10)).filter(lambda x: x % 3 == 0).subscribe(ts)
    ts.assert_values(0, 3).assert_no_violations()
    assert probe.requests == [2, 1, 1]  # one request(1) per dropped element (1 and 2)


def test_spec317_filter_does_not_request_per_drop_under_unbounded_demand() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
    probe.source(range(10)).filter(lambda x: x % 3 == 0).subscribe(ts)
    ts.assert_values(0, 3, 6, 9).assert_complete()
    assert probe.requests == [2**63 - 1]


@pytest.mark.parametrize("where", ["map", "filter", "scan", "do_on_next"])
def test_user_function_raising_cancels_upstream_and_signals_the_original_error(
    where: str,
) -> None:
    probe = Probe()
    error = Boom("at 3")

    def f(x: int) -> int:
        if x == 3:
            raise error
        return x

    flow = probe.source(range(10))
    if where == "map":
        flow = flow.map(f)
    elif where == "filter":
        flow = flow.filter(f)
    elif where == "scan":
        flow = flow.scan(lambda acc, x: f(x), 0)
    else:
        flow = flow.do_on_next(f)
    ts: TestSubscriber[int] = TestSubscriber(100)
    flow.subscribe(ts)
    ts.assert_error(Boom)
    assert ts.errors[0] is error
    assert probe.cancelled == 1


def test_map_raising_fused_signals_the_same(fusion: bool) -> None:
    error = Boom("x")

    def f(x: int) -> int:
        if x == 2:
            raise error
        return x

    ts: TestSubscriber[int] = TestSubscriber(10)
    Flow.range(0, 5).map(f).subscribe(ts)
    ts.assert_values(0, 1).assert_error(Boom)
    assert ts.errors[0] is error


def test_spec213_map_returning_none_fails_with_type_error(fusion: bool) -> None:
    ts: TestSubscriber[object] = TestSubscriber(10)
    Flow.range(0, 5).map(lambda x: None if x == 1 else x).subscribe(ts)
    ts.assert_values(0).assert_error(TypeError, "rule 2.13")


def test_scan_emits_running_accumulation() -> None:
    ts: TestSubscriber[int] = TestSubscriber(10)
    Flow.range(1, 5).scan(lambda acc, x: acc + x, 0).subscribe(ts)
    ts.assert_values(1, 3, 6, 10).assert_complete()


def test_spec312_cancel_through_map_reaches_the_source() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2)
    probe.source(range(10)).map(lambda x: x).subscribe(ts)
    ts.cancel()
    ts.request(5)  # rule 3.6: no-op after cancel
    ts.assert_values(0, 1).assert_no_terminal()
    assert probe.cancelled == 1


def test_do_on_request_and_cancel_see_the_calls() -> None:
    seen: list[int] = []
    cancels: list[str] = []
    ts: TestSubscriber[int] = TestSubscriber(3)
    Flow.range(0, 10).do_on_request(seen.append).do_on_cancel(
        lambda: cancels.append("c")
    ).subscribe(ts)
    ts.request(2)
    ts.cancel()
    ts.cancel()  # rule 3.5: idempotent
    assert seen == [3, 2]
    assert cancels == ["c"]
    ts.assert_values(0, 1, 2, 3, 4)


def test_spec309_invalid_request_through_operators_signals_value_error(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber()
    Flow.range(0, 10).map(lambda x: x).filter(lambda x: True).subscribe(ts)
    ts.request(0)
    ts.assert_error(ValueError, "rule 3.9")


def test_subscriber_raising_in_on_next_is_cancelled_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    probe = Probe()
    got: list[int] = []

    def on_next(x: int) -> None:
        got.append(x)
        if x == 2:
            raise Boom("subscriber")

    probe.source(range(10)).map(lambda x: x).subscribe(on_next)
    assert got == [0, 1, 2]  # the source cancelled itself: nothing after the fault
    assert "rule 2.13" in caplog.text
