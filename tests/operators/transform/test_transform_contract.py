"""Contracts of the element-wise operators that mutation testing found untested: the rule
messages of do_on_request, which error a second failing action leaves, and the log of a
failing do_on_cancel action."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.flow import Flow

from .._util import PushPublisher


class Boom(Exception):
    pass


class _Recorder(Subscriber[Any]):
    """Requests 1 on subscribe and 1 twice from inside the first on_next."""

    def __init__(self) -> None:
        self.subscription: Subscription | None = None
        self.signals: list[tuple[str, object]] = []

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription

    def on_next(self, item: Any) -> None:
        self.signals.append(("next", item))
        assert self.subscription is not None
        self.subscription.request(1)
        self.subscription.request(1)

    def on_error(self, error: BaseException) -> None:
        self.signals.append(("error", error))

    def on_complete(self) -> None:
        self.signals.append(("complete", None))


def test_do_on_request_on_error_none_names_rule_213() -> None:
    pub = PushPublisher()
    Flow(pub).do_on_request(lambda n: None).subscribe(_Recorder())
    hop = pub.subscriber
    assert hop is not None
    with pytest.raises(TypeError) as info:
        hop.on_error(None)  # type: ignore[arg-type]
    assert str(info.value) == "rule 2.13: on_error(None)"


def test_do_on_request_second_failing_action_keeps_the_first_error() -> None:
    # both requests come from inside on_next (the hop is busy): the first fault waits for
    # on_next to return; the second must not replace it (rule 1.7: one terminal, the first)
    errors = iter([Boom("first"), Boom("second"), Boom("third")])
    calls: list[int] = []

    def action(n: int) -> None:
        calls.append(n)
        if len(calls) > 1:
            raise next(errors)

    pub = PushPublisher()
    rec = _Recorder()
    Flow(pub).do_on_request(action).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(1)
    pub.push("a")
    assert rec.signals[0] == ("next", "a")
    assert len(rec.signals) == 2
    kind, error = rec.signals[1]
    assert kind == "error"
    assert str(error) == "first"
    assert pub.cancelled


def test_do_on_cancel_failing_action_is_logged_on_the_package_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def action() -> None:
        raise Boom("in cancel")

    pub = PushPublisher()
    rec = _Recorder()
    Flow(pub).do_on_cancel(action).subscribe(rec)
    assert rec.subscription is not None
    with caplog.at_level(logging.ERROR):
        rec.subscription.cancel()  # rule 3.15: returns normally
    assert pub.cancelled
    records = [r for r in caplog.records if r.getMessage() == "do_on_cancel action raised"]
    assert len(records) == 1
    assert records[0].name == "reactive_streams"
    assert records[0].exc_info is not None
    assert isinstance(records[0].exc_info[1], Boom)
