"""``reactive_streams.testing``'s event-list checks apply the twins of
``reactive_streams.trace.invariants`` (one definition) to a core tracer's events."""

from __future__ import annotations

from reactive_streams.testing import spec101_delivered_leq_requested_inv, spec103_serial_signals_inv
from reactive_streams.trace import invariants as twins

_OPEN: list[dict[str, object]] = [
    {"sig": "subscribe"},
    {"sig": "send_on_subscribe"},
    {"sig": "begin_on_subscribe"},
    {"sig": "end_on_subscribe"},
]


def _events(*sigs: dict[str, object]) -> list[dict[str, object]]:
    return [{"clock": k + 1, "sub": 1, "thread": 7, **raw} for k, raw in enumerate(sigs)]


def test_the_event_checks_carry_the_twins_names_and_define_no_body_of_their_own() -> None:
    assert (
        spec101_delivered_leq_requested_inv.__name__
        == twins.spec101_delivered_leq_requested_inv.__name__
    )
    assert spec103_serial_signals_inv.__name__ == twins.spec103_serial_signals_inv.__name__


def test_spec101_flags_an_on_next_beyond_the_demand_received_once() -> None:
    events = _events(
        *_OPEN,
        {"sig": "recv_request", "n": 1},
        {"sig": "send_on_next", "seq": 1},
        {"sig": "send_on_next", "seq": 2},
        {"sig": "send_on_next", "seq": 3},
    )
    problems = spec101_delivered_leq_requested_inv(events)
    assert [p[:9] for p in problems] == ["rule 1.1:"], problems
    assert spec101_delivered_leq_requested_inv(events[:-2]) == []


def test_spec103_flags_overlap_terminal_order_and_a_second_on_subscribe() -> None:
    overlap = _events(
        *_OPEN,
        {"sig": "recv_request", "n": 2},
        {"sig": "send_on_next", "seq": 1},
        {"sig": "send_on_next", "seq": 2},
        {"sig": "begin_on_next", "seq": 1},
        {"sig": "begin_on_next", "seq": 2, "thread": 8},
    )
    assert [p[:9] for p in spec103_serial_signals_inv(overlap)] == ["rule 1.3:"]
    after = _events(*_OPEN, {"sig": "send_on_complete"}, {"sig": "send_on_error"})
    assert [p[:9] for p in spec103_serial_signals_inv(after)] == ["rule 1.7:"]
    first = _events({"sig": "subscribe"}, {"sig": "send_on_complete"})
    assert [p[:9] for p in spec103_serial_signals_inv(first)] == ["rule 1.9:"]
    twice = _events(*_OPEN, {"sig": "send_on_subscribe"})
    assert [p[:10] for p in spec103_serial_signals_inv(twice)] == ["rule 2.12:"]
    clock = _events(*_OPEN)
    clock[-1]["clock"] = 1
    assert [p[:20] for p in spec103_serial_signals_inv(clock)] == ["clock not increasing"]
    assert spec103_serial_signals_inv(_events(*_OPEN)) == []
