"""Rules 3.15, 3.16: cancel() and request() return normally, in every state of the
subscription; and the twins of the spec's Spec315_CallsReturnProp and
Spec213_RaisedConsideredCancelledProp judge a replayed state."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.invariants import (
    spec213_raised_considered_cancelled_prop,
    spec315_calls_return_prop,
)
from reactive_streams.trace.state import Open, SubState

pytestmark = pytest.mark.timeout(30)

FLOWS: dict[str, Any] = {
    "range": lambda: Flow.range(5),
    "map": lambda: Flow.range(5).map(lambda x: x + 1),
    "flat_map": lambda: Flow.range(3).flat_map(lambda x: Flow.range(x)),
    "error": lambda: Flow.error(KeyError("boom")),
    "empty": lambda: Flow.empty(),
}


@pytest.mark.parametrize("name", sorted(FLOWS))
def test_spec315_cancel_and_request_return_normally_before_during_and_after_the_end(
    name: str,
) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(0)
    FLOWS[name]().subscribe(ts)
    ts.await_subscribed()
    subscription = ts.subscription
    assert subscription is not None
    ts.request(1)  # rule 3.16 (through the subscriber, which counts its demand)
    ts.request(2**63 - 1)  # rules 3.16, 3.17
    ts.await_terminal()
    subscription.request(1)  # rule 3.6: a no-op, returns normally (a raise fails the test)
    subscription.cancel()  # rule 3.15, after the end
    subscription.cancel()  # rule 3.7: idempotent
    subscription.request(1)  # rule 3.6 after a cancel
    assert len(ts.errors) + ts.completions == 1  # nothing more was signalled (1.7)
    ts.assert_no_violations()


def test_spec315_twin_refuses_a_call_that_never_returned() -> None:
    state = SubState()
    assert spec315_calls_return_prop(state)
    state.stacks[1] = [Open("request", 0)]
    assert not spec315_calls_return_prop(state)
    state.stacks[1] = [Open("onNext", 1)]
    assert spec315_calls_return_prop(state)


def test_spec213_twin_refuses_a_request_queued_after_a_raise_without_a_cancel() -> None:
    state = SubState()
    state.faulted = True
    assert spec213_raised_considered_cancelled_prop(state)
    state.up_requests = 1
    assert not spec213_raised_considered_cancelled_prop(state)
    state.cancels = 1
    assert spec213_raised_considered_cancelled_prop(state)
