"""``Flow.never()`` (operators/_never.py): on_subscribe only, whatever the demand; the
cancel and rule 3.9 still answered."""

from __future__ import annotations

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber


def test_never_signals_nothing_after_on_subscribe_whatever_the_demand() -> None:
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow.never().subscribe(ts)
    ts.await_subscribed(1)
    ts.request(2**63 - 1)
    ts.assert_values().assert_no_terminal().assert_no_violations()


def test_spec309_an_invalid_request_fails_never() -> None:
    ts: TestSubscriber[int] = TestSubscriber()
    Flow.never().subscribe(ts)
    ts.request(0)
    ts.assert_error(ValueError)
    assert "rule 3.9" in str(ts.errors[0])


def test_never_under_take_until_completes_when_the_other_fires() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.never().take_until(Flow.just(1)).subscribe(ts)
    ts.assert_values().assert_complete()


def test_spec313_a_cancelled_never_drops_its_subscriber() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.never().subscribe(ts)
    ts.cancel()
    ts.request(1)  # rule 3.6: a no-op after the cancel
    ts.assert_values().assert_no_terminal().assert_no_violations()
