"""Rule 3.9 at every hop: once a hop received ``request(n <= 0)``, its terminal signal is
``on_error(ValueError)``, even when it would have completed or failed otherwise; and the
rule 2.13 message for a None element names the operator and the user function."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from reactive_streams.api import Subscription
from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import set_fusion


class Recorder:
    """Requests ``first`` in on_subscribe and ``then`` in every on_next."""

    def __init__(self, first: int, then: int | None = None) -> None:
        self.first = first
        self.then = then
        self.signals: list[Any] = []
        self.errors: list[BaseException] = []
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(self.first)

    def on_next(self, item: Any) -> None:
        self.signals.append(item)
        if self.then is not None and self.subscription is not None:
            self.subscription.request(self.then)

    def on_error(self, error: BaseException) -> None:
        self.signals.append(type(error).__name__)
        self.errors.append(error)

    def on_complete(self) -> None:
        self.signals.append("complete")


def test_take_zero_answers_an_invalid_request_with_value_error() -> None:
    rec = Recorder(0)
    Flow.range(5).take(0).subscribe(rec)
    assert rec.signals == ["ValueError"]


def test_do_on_request_whose_action_raises_on_an_invalid_request_signals_value_error() -> None:
    def action(n: int) -> None:
        if n <= 0:
            raise RuntimeError("action")

    with_fusion = set_fusion(False)
    try:
        rec = Recorder(0)
        Flow.range(5).do_on_request(action).subscribe(rec)
    finally:
        set_fusion(with_fusion)
    assert rec.signals == ["ValueError"]


def test_subscribe_on_over_an_empty_source_answers_an_invalid_request() -> None:
    ex = ManualExecutor()
    rec = Recorder(0)
    Flow.empty().subscribe_on(ex).subscribe(rec)
    ex.run_all()
    assert rec.signals == ["ValueError"]


def test_publish_child_stops_on_next_after_an_invalid_request() -> None:
    rec = Recorder(10, then=0)
    flow = Flow.range(5).publish()
    flow.subscribe(rec)
    flow.connect()
    assert rec.signals == [0, "ValueError"]


def test_ref_count_subscriber_is_dropped_after_cancel() -> None:
    rec = Recorder(1)
    Flow.range(100).publish().ref_count().subscribe(rec)
    subscription = rec.subscription
    assert subscription is not None
    subscription.cancel()
    assert rec not in gc.get_referents(subscription)  # rule 3.13


@pytest.mark.parametrize("fusion", [True, False])
def test_scan_returning_none_names_the_scan_and_its_function(fusion: bool) -> None:
    def fold(acc: int, x: int) -> Any:
        return None if x == 2 else acc + x

    previous = set_fusion(fusion)
    try:
        rec = Recorder(10)
        Flow.range(5).scan(fold, 0).subscribe(rec)
    finally:
        set_fusion(previous)
    assert [str(e) for e in rec.errors] == [
        "rule 2.13: scan(fold): returned None, and on_next(None) is not allowed"
    ]
