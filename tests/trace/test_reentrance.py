"""Contract 2 (re-entrance): legal same-thread nesting is accepted, the onNext ->
request -> onNext depth is bounded by an option, concurrent signals (1.3) and
overlapping calls (2.7) are rejected, open calls at the end of a truncated trace are
not alarms unless the trace is quiescent."""

from __future__ import annotations

import pytest

from reactive_streams.trace.format import FormatError

from ._build import ev, range_publisher, signal, subscribed, trace, verdict


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_range_publisher_reentrance_is_legal(mode: str) -> None:
    result = verdict(range_publisher(3), mode=mode)
    assert result.ok, result.line()


def _depth_two() -> list[dict[str, object]]:
    """onNext 1 calls request(1), which delivers onNext 2 inside it (depth 2)."""
    return [
        *subscribed(),
        ev("request", n=1),
        ev("recv_request", n=1),
        ev("send_on_next", seq=1),
        ev("begin_on_next", seq=1),
        ev("request", n=1),
        ev("recv_request", n=1),
        *signal("on_next", seq=2),
        ev("end_request"),
        ev("end_on_next", seq=1, raised=False),
        ev("end_request"),
    ]


def test_a_synchronous_depth_beyond_the_bound_is_rule_303_at_the_commit() -> None:
    result = verdict(_depth_two(), mode="sync")
    assert (result.ok, result.index, result.sig) == (False, 11, "send_on_next"), result.line()
    assert result.rule == "3.3"


def test_depth_beyond_the_bound_is_rule_303() -> None:
    result = verdict(_depth_two(), mode="async")
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (12, "begin_on_next", "3.3"), result.line()
    assert "nested 2 deep" in result.message
    assert "the bound is 1" in result.message


def test_the_bound_is_an_option() -> None:
    assert verdict(_depth_two(), max_depth=2).ok
    result = verdict(_depth_two(), mode="async", max_depth=2)
    assert result.ok, result.line()


def test_a_signal_on_another_thread_while_one_runs_is_rule_103() -> None:
    events = [
        ev("subscribe"),
        ev("send_on_subscribe"),
        ev("begin_on_subscribe"),
        ev("request", n=1),
        ev("end_request"),
        ev("recv_request", 2, n=1),
        ev("send_on_next", 2, seq=1),
        ev("begin_on_next", 2, seq=1),
    ]
    result = verdict(events, mode="async", quiescent=False)
    assert not result.ok
    assert (result.index, result.rule) == (8, "1.3"), result.line()
    assert "thread 2" in result.message
    assert "thread 1" in result.message


def test_the_same_signal_on_the_same_thread_inside_a_request_is_legal_in_async_mode() -> None:
    events = [
        ev("subscribe"),
        ev("send_on_subscribe"),
        ev("begin_on_subscribe"),
        ev("request", n=1),
        ev("recv_request", n=1),
        *signal("on_next", seq=1),
        ev("end_request"),
        ev("end_on_subscribe", raised=False),
    ]
    result = verdict(events, mode="async")
    assert result.ok, result.line()


def test_overlapping_requests_from_two_threads_are_rule_207() -> None:
    events = [
        *subscribed(),
        ev("request", 1, n=1),
        ev("request", 2, n=1),
        ev("end_request", 2),
        ev("end_request", 1),
    ]
    result = verdict(events, mode="async", quiescent=False)
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (6, "request", "2.7"), result.line()


def test_a_request_directly_inside_a_request_on_one_thread_is_rule_207() -> None:
    # no signal between the two calls: the Subscriber's code is not running, so the
    # second call is not nested in it (the spec's CanCall rejects it at the same event)
    events = [
        *subscribed(),
        ev("request", 1, n=1),
        ev("cancel", 1),
        ev("end_cancel", 1),
        ev("end_request", 1),
    ]
    result = verdict(events, mode="async", quiescent=False)
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (6, "cancel", "2.7"), result.line()
    assert "directly inside request (event 5)" in result.message
    inside_a_signal = [
        *subscribed(),
        ev("request", 1, n=1),
        ev("recv_request", 2, n=1),
        *signal("on_next", 1, seq=1)[:2],
        ev("request", 1, n=1),
        ev("end_request", 1),
        ev("end_on_next", 1, seq=1, raised=False),
        ev("end_request", 1),
    ]
    assert verdict(inside_a_signal, mode="async", quiescent=False).ok


def test_serial_requests_from_two_threads_are_legal() -> None:
    events = [
        *subscribed(),
        ev("request", 1, n=1),
        ev("end_request", 1),
        ev("cancel", 2),
        ev("end_cancel", 2),
        ev("recv_request", 3, n=1),
        ev("recv_cancel", 3),
    ]
    result = verdict(events, mode="async")
    assert result.ok, result.line()


def test_a_truncated_trace_with_open_calls_is_not_an_alarm() -> None:
    events = [
        *subscribed(),
        ev("request", n=3),
        ev("recv_request", n=3),
        ev("send_on_next", seq=1),
        ev("begin_on_next", seq=1),
    ]
    result = verdict(events, quiescent=False)
    assert result.ok, result.line()
    quiet = verdict(events, quiescent=True)
    assert not quiet.ok
    assert (quiet.index, quiet.rule) == (8, "1.3"), quiet.line()
    assert "never returned" in quiet.message


def test_a_request_that_never_returns_in_a_quiescent_trace_is_rule_304() -> None:
    events = [
        *subscribed(),
        ev("request", n=1),
        ev("end_request"),
        ev("request", n=1),
        ev("recv_request", n=1),
        ev("recv_request", n=1),
    ]
    assert verdict(events, mode="async", quiescent=False).ok
    result = verdict(events, mode="async")
    assert (result.ok, result.index, result.rule) == (False, 7, "3.4"), result.line()


def test_a_trace_without_any_call_end_is_read_as_version_1() -> None:
    """Calls return at once: a request that "stays open" is no alarm, and nesting inside
    it cannot be told from overlapping (rule 1.3)."""
    events = [*subscribed(), ev("request", n=1), ev("recv_request", n=1)]
    assert verdict(events).ok
    nested = [e for e in range_publisher(1) if e["sig"] != "end_request"]
    result = verdict(nested, mode="async")
    assert (result.ok, result.rule) == (False, "1.3"), result.line()


def test_end_request_on_the_wrong_thread_is_malformed() -> None:
    """An end pairs with its call on the same thread: not a protocol violation."""
    events = [*subscribed(), ev("request", 1, n=1), ev("end_request", 2)]
    with pytest.raises(FormatError) as error:
        trace(events, quiescent=False)
    assert error.value.line == 7
    assert "end_request without a request before it (sub 1, thread 2)" in str(error.value)
