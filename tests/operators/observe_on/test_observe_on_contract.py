"""observe_on / limit_rate: what the mutation run (tools/mutation.py) showed untested.

A refused drain task leaves the drain on the caller's thread for good, a fused batch that
arrives after the drain left wakes it, a cancel (or a raise) inside on_next stops the run
and reaches upstream, a synchronous refill is delivered by the same task, an element that
arrives as the drain leaves is delivered by a new task (observe_on) or at once
(limit_rate), on_error(None), subscribe(None) and a bad prefetch name their rules."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.executors import ImmediateExecutor, ManualExecutor
from reactive_streams.flow import Flow, set_fusion
from reactive_streams.operators._observe_on import _ObserveOn
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, inject_on_leave


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


def test_spec312_a_cancel_inside_on_next_stops_the_run_and_reaches_upstream(
    manual: ManualExecutor,
) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10, on_next_hook=lambda t, _: t.cancel())
    Flow(upstream).observe_on(manual, 8).subscribe(ts)
    upstream.push(1, 2, 3)  # queued before the first drain task runs
    manual.run_all()
    ts.assert_values(1).assert_no_terminal().assert_no_violations()
    assert upstream.cancelled


def test_spec213_a_raising_on_next_cancels_upstream(manual: ManualExecutor) -> None:
    def boom(t: TestSubscriber[int], item: int) -> None:
        raise RuntimeError("subscriber failed")

    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10, on_next_hook=boom)
    Flow(upstream).observe_on(manual, 8).subscribe(ts)
    upstream.push(1, 2, 3)
    manual.run_all()
    ts.assert_values(1).assert_no_terminal()
    assert upstream.cancelled  # rule 2.13: cancelled, and the cancel goes upstream (3.12)


def test_spec312_a_cancel_between_the_drains_check_and_its_round_reaches_upstream(
    manual: ManualExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the cancel of another thread, forced into the window after the round's state check
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).observe_on(manual, 8).subscribe(ts)
    manual.run_all()
    check = _ObserveOn._answer_bad_request
    cancelled: list[bool] = []

    def cancel_first(self: _ObserveOn[int]) -> bool:
        if not cancelled:
            cancelled.append(True)
            ts.cancel()
        return check(self)

    monkeypatch.setattr(_ObserveOn, "_answer_bad_request", cancel_first)
    upstream.push(1)
    manual.run_all()
    assert cancelled == [True]
    assert upstream.cancelled
    ts.assert_values().assert_no_terminal().assert_no_violations()


def test_observe_on_delivers_a_synchronous_refill_in_the_same_task(
    manual: ManualExecutor, fusion: bool
) -> None:
    # each request(75 %) refills the queue at once (a synchronous source): the running
    # task delivers on, up to its budget, instead of leaving it to a new task
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(0, 20).observe_on(manual, prefetch=4).subscribe(ts)
    manual.run_next()
    ts.assert_values(*range(20)).assert_complete().assert_no_violations()
    assert len(manual) == 0


def test_observe_on_delivers_an_element_arriving_as_the_drain_leaves_in_a_new_task(
    manual: ManualExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10)
    Flow(upstream).observe_on(manual, 8).subscribe(ts)
    manual.run_all()
    injected = inject_on_leave(monkeypatch, upstream)
    upstream.push(1)
    manual.run_next()
    assert injected == [2]
    ts.assert_values(1)
    assert len(manual) == 1  # the drain hands the late element to the executor
    manual.run_all()
    ts.assert_values(1, 2).assert_no_terminal().assert_no_violations()


def test_limit_rate_delivers_an_element_arriving_as_the_drain_leaves_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10)
    Flow(upstream).limit_rate(8).subscribe(ts)
    injected = inject_on_leave(monkeypatch, upstream)
    upstream.push(1)  # limit_rate drains on the caller's thread: the late element too
    assert injected == [2]
    ts.assert_values(1, 2).assert_no_terminal().assert_no_violations()


@pytest.mark.parametrize("prefetch", [0, -1])
def test_spec309_a_bad_prefetch_is_refused_by_name(manual: ManualExecutor, prefetch: int) -> None:
    expected = f"rule 3.9: prefetch requires n > 0, got {prefetch}"
    with pytest.raises(ValueError, match="prefetch") as raised:
        Flow.range(0, 3).observe_on(manual, prefetch=prefetch)
    assert str(raised.value) == expected
    with pytest.raises(ValueError, match="prefetch") as raised:
        Flow.range(0, 3).limit_rate(prefetch)
    assert str(raised.value) == expected


def test_spec109_observe_on_refuses_a_none_subscriber_by_name(manual: ManualExecutor) -> None:
    for flow in (Flow.range(0, 3).observe_on(manual), Flow.range(0, 3).limit_rate(4)):
        with pytest.raises(TypeError) as raised:
            flow.source.subscribe(None)  # type: ignore[arg-type]
        expected = "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
        assert str(raised.value) == expected
    assert len(manual) == 0
