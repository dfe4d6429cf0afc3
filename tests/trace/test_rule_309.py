"""Rule 3.9's answer is recognised by the error's class (ValueError in Python,
IllegalArgumentException in Java), never by its message, and is reported at the event
that makes the violation certain."""

from __future__ import annotations

import pytest

from ._build import ev, signal, subscribed, verdict


def _answered_by(error_type: str, error: str) -> list[dict[str, object]]:
    return [
        *subscribed(),
        ev("request", n=0),
        ev("recv_request", n=0),
        ev("end_request"),
        *signal("on_error", error=error, error_type=error_type),
    ]


@pytest.mark.parametrize(
    "error_type", ["ValueError", "IllegalArgumentException", "java.lang.IllegalArgumentException"]
)
def test_the_illegal_argument_classes_answer_request_0(error_type: str) -> None:
    result = verdict(_answered_by(error_type, "request(n) requires n > 0"))
    assert result.ok, result.line()


def test_a_wrong_class_is_rejected_whatever_its_message_says() -> None:
    result = verdict(_answered_by("RuntimeError", "RuntimeError: rule 3.9: n must be > 0"))
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (8, "send_on_error", "3.9"), result.line()
    assert "RuntimeError" in result.message


def test_a_version_1_error_text_is_read_by_its_class_prefix() -> None:
    good = _answered_by("ValueError", "")
    for e in good:
        e.pop("error_type", None)
        if "error" in e:
            e["error"] = "ValueError: request(0)"
    assert verdict(good).ok
    bad = _answered_by("RuntimeError", "")
    for e in bad:
        e.pop("error_type", None)
        if "error" in e:
            e["error"] = "RuntimeError: rule 3.9: request(n) requires n > 0"
    assert verdict(bad).rule == "3.9"


def test_a_source_value_error_without_an_invalid_request_is_legal() -> None:
    events = [
        *subscribed(),
        ev("request", n=1),
        ev("recv_request", n=1),
        ev("end_request"),
        *signal("on_error", error="ValueError: bad input", error_type="ValueError"),
    ]
    result = verdict(events, mode="async")
    assert result.ok, result.line()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_on_complete_after_an_invalid_request_is_rejected(mode: str) -> None:
    events = [
        *subscribed(),
        ev("request", n=-1),
        ev("recv_request", n=-1),
        ev("end_request"),
        *signal("on_complete"),
    ]
    result = verdict(events, mode=mode)
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (8, "send_on_complete", "3.9")


def test_an_unanswered_request_0_is_reported_at_the_request() -> None:
    events = [*subscribed(), ev("request", n=0), ev("recv_request", n=0), ev("end_request")]
    assert verdict(events, quiescent=False).ok  # the answer may still come
    result = verdict(events)
    assert not result.ok
    assert (result.index, result.sig, result.rule) == (5, "request", "3.9"), result.line()
