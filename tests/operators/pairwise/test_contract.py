"""``pairwise`` (operators/_pairwise.py): the pairs, the one element asked at subscription
(then downstream's demand as it is: rule 1.1), short flows, errors, the cancel."""

from __future__ import annotations

from typing import Any

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_each_element_with_the_one_before() -> None:
    assert Flow.range(4).pairwise().to_list(timeout=5) == [(0, 1), (1, 2), (2, 3)]


def test_fewer_than_two_elements_complete_empty() -> None:
    assert Flow.just(1).pairwise().to_list(timeout=5) == []
    assert Flow.empty().pairwise().to_list(timeout=5) == []


def test_spec101_one_element_asked_at_subscription_then_the_demand_as_it_is() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).pairwise().subscribe(ts)
    assert pub.requested == [1]  # the first element: it forms no pair alone
    ts.request(2)
    assert pub.requested == [1, 2]
    pub.push(1, 2, 3)
    ts.assert_values((1, 2), (2, 3)).assert_no_violations()


def test_an_error_passes_on_after_the_pairs() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow.just(1, 2).concat_with(Flow.error(KeyError("k"))).pairwise().subscribe(ts)
    ts.assert_values((1, 2)).assert_error(KeyError)


def test_spec312_cancel_mid_stream_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(5)
    Flow(pub).pairwise().subscribe(ts)
    pub.push(1, 2)
    ts.cancel()
    assert pub.cancelled
    pub.push(3)
    ts.assert_values((1, 2)).assert_no_terminal()
