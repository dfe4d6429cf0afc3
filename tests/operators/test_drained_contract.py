"""Contracts of the drained operators' base (DemandDrain) that mutation testing found
untested: a subscriber raising from on_next is cancelled and its fault logged (2.13)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.flow import Flow

from ._util import PushPublisher


class Boom(Exception):
    pass


class _Raising(Subscriber[Any]):
    def __init__(self) -> None:
        self.subscription: Subscription | None = None
        self.signals: list[object] = []

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(10)

    def on_next(self, item: Any) -> None:
        self.signals.append(item)
        raise Boom("in on_next")

    def on_error(self, error: BaseException) -> None:
        self.signals.append(error)

    def on_complete(self) -> None:
        self.signals.append("complete")


def test_spec213_drained_on_next_raising_cancels_and_logs_the_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pub = PushPublisher()
    sub = _Raising()
    Flow(pub).on_backpressure_buffer(8).subscribe(sub)
    with caplog.at_level(logging.ERROR):
        pub.push(1, 2)
    assert sub.signals == [1]  # cancelled: nothing after the raise (2.13)
    assert pub.cancelled
    records = [r for r in caplog.records if r.getMessage().startswith("rule 2.13: on_next")]
    assert len(records) == 1
    assert records[0].exc_info is not None
    assert isinstance(records[0].exc_info[1], Boom)  # the fault is logged with its traceback
