"""Contracts of take/skip/take_while that mutation testing found untested: take's cap on
what it requests upstream, request by request, and its invalid requests passed on (3.9)."""

from __future__ import annotations

from typing import Any

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_take_caps_the_sum_of_requests_upstream_one_by_one() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).take(3).subscribe(ts)
    for n in (1, 1, 5, 1):
        ts.request(n)
    assert pub.requested == [1, 1, 1]  # never more than 3 in total


def test_spec309_take_passes_an_invalid_request_upstream_as_made() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).take(3).subscribe(ts)
    ts.request(0)
    assert pub.requested == [0]  # rule 3.9: upstream signals the error too
    pub.push(1)  # a late element: the hop ends with its own rule 3.9 error
    ts.assert_values().assert_error(ValueError)


class _CancelsAtOnce(TestSubscriber[Any]):
    def on_subscribe(self, subscription: Any) -> None:
        super().on_subscribe(subscription)
        subscription.cancel()


def test_spec312_skip_asks_nothing_of_upstream_after_a_cancel_in_on_subscribe() -> None:
    pub = PushPublisher()
    Flow(pub).skip(2).subscribe(_CancelsAtOnce(0))
    assert pub.cancelled
    assert pub.requested == []  # rule 3.6: the skipped elements are not asked for


def test_spec205_skip_refusing_a_second_on_subscribe_after_skipping_asks_nothing() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).skip(2).subscribe(ts)
    pub.push(1, 2)  # both skipped
    assert pub.subscriber is not None
    second = PushPublisher()
    pub.subscriber.on_subscribe(second)
    assert second.cancelled  # rule 2.5
    assert pub.requested == [2]  # no request(0) (rule 3.9) upstream
    ts.assert_values().assert_no_violations()
