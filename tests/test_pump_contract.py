"""The sources' pump (``_core/pump.py``: ``IteratorSubscription``, ``ScalarSubscription``)
and the exact end of an iterator (``_core/exact.py``), driven through the public
sources: synchronously, and on a ``ManualExecutor`` (one task at a time)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import pytest

from manual_steps import values_after_each_task
from reactive_streams import sources
from reactive_streams._core.exact import exact_end
from reactive_streams._core.pump import ScalarSubscription
from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing


# ------------------------------------------------------------ the drain budget
@pytest.mark.parametrize("batch_size", [0, -3, 1])
def test_a_batch_size_below_one_emits_one_element_per_task(batch_size: int) -> None:
    """Fairness: a batch size under 1 is taken as 1, never as "no element per task"
    (which would re-schedule forever without progress)."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](5)
    sources.range(0, 5, executor=manual, batch_size=batch_size).subscribe(ts)
    assert values_after_each_task(manual, ts, limit=50) == [1, 2, 3, 4, 5]
    ts.assert_values(0, 1, 2, 3, 4).assert_complete()  # rule 1.5: eager, exact length


# ------------------------------------------------------------------- the reprs
def test_the_reprs_name_the_source_and_the_subscription() -> None:
    """Untraced: the id of the object (subscription_id is 0); traced: the trace's id."""
    for publisher, name in ((sources.range(0, 3), "range"), (sources.just(1), "just")):
        ts = TestSubscriber[int](0)
        publisher.subscribe(ts)
        sub: Any = ts.subscription
        assert sub.subscription_id == 0
        assert repr(sub) == f"<{name} subscription {hex(id(sub))}>"
        with tracing():
            traced = TestSubscriber[int](0)
            publisher.subscribe(traced)
        tsub: Any = traced.subscription
        assert tsub.subscription_id > 0
        assert repr(tsub) == f"<{name} subscription {tsub.subscription_id}>"


# ------------------------------------------------------ the synchronous rounds
def test_a_synchronous_source_serves_each_later_request_on_the_callers_thread() -> None:
    """Subscribed without demand (rule 1.1: nothing sent), each later request drains
    its elements at once; the last one completes eagerly (exact length, rule 1.5)."""
    ts = TestSubscriber[int](0)
    sources.from_iterable([1, 2, 3]).subscribe(ts)
    ts.assert_values().assert_no_terminal()
    ts.request(1)
    ts.assert_values(1).assert_no_terminal()
    ts.request(2)
    ts.assert_values(1, 2, 3).assert_complete()


# --------------------------------------------- the exact end, without demand
def test_an_exact_source_signals_its_recorded_error_without_demand() -> None:
    """Rule 1.4: a generate sink that failed is signalled by the next round even when
    no demand is left (here the continuation task after a spent budget of 1)."""
    sinks: list[sources.Sink[int]] = []

    def gen(state: int, sink: sources.Sink[int]) -> int:
        sinks.append(sink)
        sink.next(state)
        return state + 1

    boom = RuntimeError("boom")
    manual = ManualExecutor()
    ts = TestSubscriber[int](1)
    sources.generate(1, gen, executor=manual, batch_size=1).subscribe(ts)
    manual.run_next()  # on_subscribe, the request, element 1: the budget is spent
    ts.assert_values(1).assert_no_terminal()
    assert len(manual) == 1  # the continuation task
    sinks[0].error(boom)
    manual.run_all()
    ts.assert_values(1)
    assert ts.errors == [boom]  # rule 1.4: the recorded error, not a completion


# ----------------------------------------------------------- the scalar source
def test_a_scalar_answers_a_non_int_request_with_rule_3_9() -> None:
    ts = TestSubscriber[int](0)
    sources.just(1).subscribe(ts)
    ts.request(1.5)  # type: ignore[arg-type]  # the invalid argument under test
    ts.assert_values()
    assert [type(e) for e in ts.errors] == [ValueError]
    assert "3.9" in str(ts.errors[0])


def test_a_scalar_whose_on_next_raises_is_cancelled_and_the_fault_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Rule 2.13: the raise is logged with its exception, and the subscription is
    cancelled (traced: the cancel follows the raising on_next's end)."""
    boom = RuntimeError("boom")

    def fail(_ts: TestSubscriber[int], _item: int) -> None:
        raise boom

    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        ts = TestSubscriber[int](1, on_next_hook=fail)
        sources.just(1).subscribe(ts)
    assert [r.exc_info[1] if r.exc_info else None for r in caplog.records] == [boom]
    ts.assert_no_terminal()
    with tracing() as tracer:
        traced = TestSubscriber[int](1, on_next_hook=fail)
        sources.just(1).subscribe(traced)
    sub: Any = traced.subscription
    sigs = [e["sig"] for e in tracer.for_subscription(sub.subscription_id)]
    assert sigs[-4:] == ["end_on_next", "cancel", "recv_cancel", "end_cancel"]
    traced.assert_no_terminal()


# ------------------------------------------------------------------- exact_end
class _Lying:
    """An iterator that says it is exhausted and still has an element."""

    def __iter__(self) -> _Lying:
        return self

    def __next__(self) -> int:
        return 1

    def __length_hint__(self) -> int:
        return 0


def test_an_element_after_an_exact_length_of_zero_is_an_error_naming_rule_1_1() -> None:
    ended, error = exact_end(_Lying())
    assert ended is True
    assert isinstance(error, RuntimeError)
    assert str(error) == "_Lying: an element after length 0 (rule 1.1)"


# ------------------------------------------------- calls from inside on_next
@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("call", ["request(-1)", "cancel"])
def test_a_call_from_inside_on_next_stops_the_batch(
    call: str, asynchronous: bool, traced: bool
) -> None:
    """Rule 3.9: an invalid request from on_next ends the stream with its error (no later
    element when synchronous; queued, the batch may run on); rule 3.12: a cancel from
    on_next stops emission at once, with no terminal signal."""

    def hook(ts: TestSubscriber[int], item: int) -> None:
        if item == 1:
            ts.request(-1) if call == "request(-1)" else ts.cancel()

    manual = ManualExecutor() if asynchronous else None
    with contextlib.ExitStack() as stack:
        if traced:
            stack.enter_context(tracing())
        ts = TestSubscriber[int](5, on_next_hook=hook)
        sources.range(0, 10, executor=manual, batch_size=3).subscribe(ts)
        if manual is not None:
            manual.run_all()
    if call == "cancel":
        ts.assert_values(0, 1).assert_no_terminal()
        return
    assert ts.values[:2] == [0, 1]
    if not asynchronous:
        ts.assert_values(0, 1)
    assert [str(e) for e in ts.errors] == ["rule 3.9: request(n) requires n > 0, got -1"]


def test_a_scalar_cancelled_after_its_activity_check_sends_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A cancel from another thread that lands right after the round found the
    subscription active (forced here at the end of ``_deliver_subscribe``): the round
    sends nothing (rule 3.12), and nothing is logged as a subscriber fault."""
    deliver = ScalarSubscription._deliver_subscribe

    def then_cancelled(self: ScalarSubscription[int], subscription: Any = None) -> bool:
        active = deliver(self, subscription)
        self.cancel()  # the other thread's cancel, after the check
        return active

    monkeypatch.setattr(ScalarSubscription, "_deliver_subscribe", then_cancelled)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        ts = TestSubscriber[int](1)
        sources.just(1).subscribe(ts)
    ts.assert_values().assert_no_terminal()
    assert caplog.records == []
