"""observe_on / limit_rate: what the mutation run (tools/mutation.py) showed untested.

A refused drain task leaves the drain on the caller's thread for good, a fused batch that
arrives after the drain left wakes it, on_error(None) names rule 2.13."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.executors import ImmediateExecutor
from reactive_streams.flow import Flow, set_fusion
from reactive_streams.testing import TestSubscriber

from ._util import PushPublisher


class _Refusing:
    """An executor that refuses every task (a pool shut down)."""

    def execute(self, task: Any) -> None:
        raise RuntimeError("refused")


def test_spec109_a_refused_drain_stays_on_the_caller_for_late_elements(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # once refused, the drain is the caller's (rule 1.3): a late element (rule 2.8) is
    # drained here, never offered to the refusing executor again (one logged refusal)
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        Flow(upstream).observe_on(_Refusing(), prefetch=4).subscribe(ts)
        ts.assert_error(RuntimeError, "refused")
        assert upstream.cancelled
        upstream.push(1, 2)
    ts.assert_values().assert_no_violations()
    refusals = [r for r in caplog.records if "rejected the drain task" in r.getMessage()]
    assert len(refusals) == 1, [r.getMessage() for r in caplog.records]


def test_observe_on_a_fused_batch_after_the_drain_left_wakes_it() -> None:
    # ImmediateExecutor: the drain runs inside on_subscribe, so its request(prefetch) is
    # pulled by the fused source after the drain left; the batch must wake the drain
    previous = set_fusion(True)
    try:
        flow = Flow.range(0, 10).observe_on(ImmediateExecutor(), prefetch=4)
    finally:
        set_fusion(previous)
    ts: TestSubscriber[int] = TestSubscriber(100)
    flow.subscribe(ts)
    ts.assert_values(*range(10)).assert_complete().assert_no_violations()


@pytest.mark.parametrize("executor", [None, ImmediateExecutor()], ids=["limit_rate", "observe_on"])
def test_spec213_observe_on_refuses_on_error_none_by_name(executor: Any) -> None:
    upstream = PushPublisher()
    flow = Flow(upstream)
    flow = flow.limit_rate(4) if executor is None else flow.observe_on(executor, 4)
    flow.subscribe(TestSubscriber[int](1))
    subscriber = upstream.subscriber
    assert subscriber is not None
    with pytest.raises(TypeError) as info:
        subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(info.value) == "rule 2.13: on_error(None)"
