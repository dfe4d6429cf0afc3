"""The core's contract where its callers can see it (issue 27: mutmut survivors of
``_core/downstream.py``, ``_core/serial.py`` and ``sources.py``): emission stops at a
cancel or an invalid request (rules 1.8, 3.9), a subscriber that raises is not counted
against the task's budget, and a drain task yields after ``batch`` elements (fairness)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import reactive_streams as rs
from manual_steps import values_after_each_task
from reactive_streams import MAX_DEMAND, Emitter, sources
from reactive_streams.api import Subscription
from reactive_streams.executors import ManualExecutor
from reactive_streams.multicast import replay
from reactive_streams.operators import fusion
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing

pytestmark = pytest.mark.timeout(60)


def _emitter_of(*items: int) -> Emitter[int]:
    emitter: Emitter[int] = Emitter()
    for item in items:
        emitter.emit(item)
    return emitter


# ----------------------------------------------------------- Downstream._stopped
def test_a_cancel_from_on_next_stops_the_emitters_run_at_once() -> None:
    """Rule 1.8: the buffered elements after the cancel are not sent, even though the
    drain already took them for the demand."""

    def leave(ts: TestSubscriber[int], _item: int) -> None:
        ts.cancel()

    ts = TestSubscriber[int](3, on_next_hook=leave)
    _emitter_of(1, 2, 3).flow.subscribe(ts)
    ts.assert_values(1).assert_no_terminal().assert_no_violations()


def test_an_invalid_request_from_on_next_stops_the_emitters_run_for_its_error() -> None:
    """Rule 3.9: the error is due instead of the rest of the run."""

    def bad(ts: TestSubscriber[int], _item: int) -> None:
        ts.request(0)

    ts = TestSubscriber[int](3, on_next_hook=bad)
    _emitter_of(1, 2, 3).flow.subscribe(ts)
    ts.assert_values(1).assert_error(ValueError, r"rule 3\.9")


# -------------------------------------------------------------- Downstream.request
@pytest.mark.parametrize(
    ("n", "message"),
    [
        (-1, "rule 3.9: request(n) requires n > 0, got -1"),
        (0, "rule 3.9: request(n) requires n > 0, got 0"),
        (1.5, "rule 3.9: request(n) requires an int n > 0, got float 1.5"),
        (True, "rule 3.9: request(n) requires an int n > 0, got bool True"),
    ],
)
def test_an_invalid_request_is_answered_with_its_own_message(n: object, message: str) -> None:
    """Rule 3.9: the on_error names the argument passed (a hop that receives requests
    at once, not queued for its drain)."""
    emitter = _emitter_of(1)
    ts = TestSubscriber[int]()
    emitter.flow.subscribe(ts)
    ts.request(n)  # type: ignore[arg-type]  # the invalid argument under test
    ts.assert_values()
    assert [str(e) for e in ts.errors] == [message]
    assert [type(e) for e in ts.errors] == [ValueError]


def test_a_request_after_the_cancel_schedules_no_work() -> None:
    """Rule 3.6: after the cancel, request is a no-op: no drain task on the executor."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](2)
    rs.range(0, 10, executor=manual).subscribe(ts)
    manual.run_all()
    ts.assert_values(0, 1)
    ts.cancel()
    manual.run_all()
    ts.request(5)
    assert manual.pending == []
    ts.assert_values(0, 1).assert_no_terminal()


def test_a_request_after_the_completion_schedules_no_work() -> None:
    """Rule 3.6: after on_complete, request is a no-op: no drain task on the executor."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](5)
    rs.range(0, 2, executor=manual).subscribe(ts)
    manual.run_all()
    ts.assert_values(0, 1).assert_complete()
    ts.request(5)
    assert manual.pending == []


# -------------------------------------------------------------- Downstream._send
@pytest.mark.parametrize("traced", [False, True])
def test_replay_a_child_that_raises_mid_batch_leaves_the_budget_to_the_others(
    traced: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """The element whose on_next raised is not counted as taken (rule 2.13: the child is
    cancelled): the task's budget of 4 goes to the other child's 4 elements. The fault
    is logged with the exception (its traceback), traced or not."""
    manual = ManualExecutor()
    boom = RuntimeError("boom")

    def fail(_ts: TestSubscriber[int], _item: int) -> None:
        raise boom

    with contextlib.ExitStack() as stack:
        if traced:
            stack.enter_context(tracing())
        flow = replay(rs.range(0, 10), executor=manual, batch_size=4)
        raiser = TestSubscriber[int](MAX_DEMAND, on_next_hook=fail)
        other = TestSubscriber[int](MAX_DEMAND)
        flow.subscribe(raiser)
        flow.subscribe(other)
        manual.run_all()  # on_subscribe, the requests
        flow.connect()
        with caplog.at_level(logging.ERROR, logger="reactive_streams"):
            manual.run_next()
    raiser.assert_values(0).assert_no_terminal()
    other.assert_values(0, 1, 2, 3)  # one task: 4 elements, the raising one not counted
    faults = [r for r in caplog.records if r.getMessage().startswith("rule 2.13: on_next raised")]
    assert [r.exc_info[1] if r.exc_info else None for r in faults] == [boom]


# --------------------------------------------------------- Downstream._delivered
def test_an_observe_on_drain_task_yields_after_its_batch_of_elements() -> None:
    """Fairness: a drain task emits at most its batch (256 for observe_on), then hands
    the rest to a new task on the executor, whatever demand is left."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](MAX_DEMAND)
    rs.range(0, 600).observe_on(manual, prefetch=1000).subscribe(ts)
    assert values_after_each_task(manual, ts) == [256, 512, 600]
    ts.assert_complete().assert_no_violations()


# ------------------------------------------------------------- Downstream._cancel
def _signals(events: list[dict[str, object]]) -> list[tuple[object, ...]]:
    """Each event as (sig, its seq and raised fields when present)."""
    return [
        (e["sig"], *(e[k] for k in ("seq", "raised") if k in e))
        for e in events
        if e["sig"] not in ("subscribe", "send_on_subscribe", "begin_on_subscribe")
    ]


def test_a_raise_after_its_own_cancel_is_traced_once_as_the_raise() -> None:
    """Rule 2.13 is met by the subscriber's own cancel (3.7): the raise is recorded as
    its on_next's end, with no second cancel."""

    def cancel_then_raise(ts: TestSubscriber[int], _item: int) -> None:
        ts.cancel()
        raise RuntimeError("after the cancel")

    with tracing() as tracer:
        ts = TestSubscriber[int](3, on_next_hook=cancel_then_raise)
        rs.range(0, 3).subscribe(ts)
    assert ts.subscription is not None
    sid = ts.subscription.subscription_id  # type: ignore[attr-defined]
    assert _signals(tracer.for_subscription(sid)) == [
        ("request",),
        ("recv_request",),
        ("end_request",),
        ("end_on_subscribe", False),
        ("send_on_next", 1),
        ("begin_on_next", 1),
        ("cancel",),
        ("recv_cancel",),
        ("end_cancel",),
        ("end_on_next", 1, True),
    ]
    ts.assert_values(0).assert_no_terminal()


# ------------------------------------------------------------- DrainLoop._drain


def test_a_drain_task_that_emits_less_than_its_batch_leaves_no_task_behind() -> None:
    """A task continues as a new one only once its batch is spent: 255 of 256 elements
    end the task, and nothing is left on the executor."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](255)
    rs.range(0, 600).observe_on(manual, prefetch=1000).subscribe(ts)
    assert values_after_each_task(manual, ts) == [255]
    ts.request(1)
    assert values_after_each_task(manual, ts) == [256]
    ts.assert_no_terminal()


def test_a_sources_drain_task_yields_after_its_batch_size_and_goes_on() -> None:
    """Fairness of a source on an executor: ``batch_size`` elements per task, the rest in
    continuation tasks, with no new request needed."""
    manual = ManualExecutor()
    ts = TestSubscriber[int](10)
    rs.range(0, 20, executor=manual, batch_size=4).subscribe(ts)
    assert values_after_each_task(manual, ts) == [4, 8, 10]
    ts.assert_values(*range(10)).assert_no_terminal()


def test_a_task_that_ends_the_stream_with_its_batch_spent_ends_cleanly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The batch is spent by the last elements, and requests made from on_next are still
    recorded as work: the drain retires them after the end without a continuation task
    and without an error (nothing logged, the executor left empty)."""

    def more(ts: TestSubscriber[int], _item: int) -> None:
        ts.request(1)

    manual = ManualExecutor()
    ts = TestSubscriber[int](4, on_next_hook=more)
    rs.range(0, 4, executor=manual, batch_size=4).subscribe(ts)
    with caplog.at_level(logging.DEBUG, logger="reactive_streams"):
        assert values_after_each_task(manual, ts) == [4]
    ts.assert_values(0, 1, 2, 3).assert_complete()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


# --------------------------------------------------- Downstream._deliver_subscribe
class _Opened:
    """An iterable that counts the iterators made from it."""

    def __init__(self) -> None:
        self.opened = 0

    def __iter__(self) -> Iterator[int]:
        self.opened += 1
        return iter((1, 2, 3))


class _RaisesOnSubscribe(TestSubscriber[int]):
    def on_subscribe(self, subscription: Subscription) -> None:
        super().on_subscribe(subscription)
        raise RuntimeError("on_subscribe failed")


def test_a_source_opens_no_iterator_after_on_subscribe_raised() -> None:
    """Rule 2.13: on_subscribe raised, so the subscription is cancelled: the source makes
    no iterator (rule 3.13: nothing is opened for nobody) and sends nothing."""
    source = _Opened()
    ts = _RaisesOnSubscribe(5)
    rs.from_iterable(source).subscribe(ts)
    assert source.opened == 0
    ts.assert_values().assert_no_terminal()


# --------------------------------------------------------- Downstream._next_traced
def test_a_traced_hop_sends_nothing_once_cancelled_inside_its_step() -> None:
    """Rule 1.8: the cancel lands between the hop's check and its send (here: inside
    ``map``'s function); the traced send re-checks under the lock and sends nothing."""
    ts = TestSubscriber[int](5)

    def cancel_at_2(x: int) -> int:
        if x == 2:
            ts.cancel()
        return x

    with fusion(False), tracing():  # unfused: the map hop is a relay
        rs.range(0, 5).map(cancel_at_2).subscribe(ts)
    ts.assert_values(0, 1).assert_no_terminal().assert_no_violations()


def test_a_traced_hop_sends_nothing_once_an_invalid_request_is_due() -> None:
    """Rule 3.9: the invalid request lands between the hop's check and its send; the
    traced send re-checks under the lock, and the error comes instead of the element."""
    ts = TestSubscriber[int](5)

    def bad_at_2(x: int) -> int:
        if x == 2:
            ts.request(-1)
        return x

    with fusion(False), tracing():  # unfused: the map hop is a relay
        rs.range(0, 5).map(bad_at_2).subscribe(ts)
    ts.assert_values(0, 1).assert_error(ValueError, r"rule 3\.9")


# ------------------------------------------------------------ DrainLoop.__init__
@pytest.mark.parametrize("batch_size", [0, -3])
def test_a_batch_size_below_one_is_one_element_per_task(batch_size: int) -> None:
    """The drain loop takes a batch below 1 as 1: every task still makes progress (one
    element), and the stream ends."""
    manual = ManualExecutor()
    flow = replay(rs.range(0, 5), executor=manual, batch_size=batch_size)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    manual.run_all()  # on_subscribe, the request
    flow.connect()
    assert values_after_each_task(manual, ts)[:5] == [1, 2, 3, 4, 5]
    ts.assert_complete()


# --------------------------------------------------------------- Downstream._finish
def test_a_traced_on_error_records_the_error_and_its_type() -> None:
    """The trace tells rule 3.9's error by its type, and shows its text."""
    with tracing() as tracer:
        ts = TestSubscriber[int]()
        rs.range(0, 3).subscribe(ts)
        ts.request(0)
    assert ts.subscription is not None
    sid = ts.subscription.subscription_id  # type: ignore[attr-defined]
    sent = [
        (e["error"], e["error_type"])
        for e in tracer.for_subscription(sid)
        if e["sig"] == "send_on_error"
    ]
    assert sent == [("ValueError: rule 3.9: request(n) requires n > 0, got 0", "ValueError")]


# ------------------------------------------------------ Downstream._answer_bad_request
class _Pulled:
    """0, 1, 2, ... counted as they are pulled."""

    def __init__(self) -> None:
        self.pulled = 0

    def __iter__(self) -> Iterator[int]:
        for x in range(100):
            self.pulled += 1
            yield x


def test_an_invalid_request_with_demand_pulls_nothing_more_from_the_source() -> None:
    """Rule 3.9: the requests are received together by the drain (on an executor); the
    error is answered first, and the source's iterator is not pulled for the demand."""
    manual = ManualExecutor()
    source = _Pulled()
    ts = TestSubscriber[int]()
    rs.from_iterable(source, executor=manual).subscribe(ts)
    manual.run_all()  # on_subscribe
    ts.request(3)
    ts.request(-1)
    manual.run_all()
    ts.assert_values().assert_error(ValueError, r"rule 3\.9")
    assert source.pulled == 0


def test_an_invalid_request_during_an_async_pull_ends_with_its_error_only() -> None:
    """Rule 3.9 then 1.7: the invalid request arrives while the bridge awaits the next
    element; the element that then arrives is not sent, the error is, once."""
    ts = TestSubscriber[int](1)

    async def main() -> None:
        pulling = asyncio.Event()
        gate = asyncio.Event()

        async def slow() -> AsyncIterator[int]:
            pulling.set()
            await gate.wait()
            yield 1
            yield 2

        rs.Flow.from_async_iterable(slow()).subscribe(ts)
        await asyncio.wait_for(pulling.wait(), 10)  # the bridge awaits the first element
        ts.request(-1)
        gate.set()
        for _ in range(1000):  # bounded: the loop's turns until the terminal signal
            if ts.terminated:
                break
            await asyncio.sleep(0)

    asyncio.run(main())
    ts.assert_values().assert_error(ValueError, r"rule 3\.9").assert_no_violations()


def test_a_request_after_the_error_schedules_no_work() -> None:
    """Rule 3.6: after on_error (here rule 3.9's), request is a no-op: no drain task."""
    manual = ManualExecutor()
    ts = TestSubscriber[int]()
    rs.range(0, 10, executor=manual).subscribe(ts)
    manual.run_all()
    ts.request(-1)
    manual.run_all()
    ts.assert_error(ValueError, r"rule 3\.9")
    ts.request(5)
    assert manual.pending == []
    ts.assert_values()


# ------------------------------------------------------------- Downstream._raised
def test_a_raise_from_on_subscribe_is_traced_as_its_end_without_a_seq() -> None:
    """Rule 2.13: the raise is recorded as on_subscribe's end (raised, no element seq),
    atomically with the cancel it causes."""
    with tracing() as tracer:
        ts = _RaisesOnSubscribe(0)
        rs.range(0, 3).subscribe(ts)
    assert ts.subscription is not None
    sid = ts.subscription.subscription_id  # type: ignore[attr-defined]
    assert _signals(tracer.for_subscription(sid)) == [
        ("end_on_subscribe", True),
        ("cancel",),
        ("recv_cancel",),
        ("end_cancel",),
    ]


# ------------------------------------------------------ IterablePublisher.subscribe
@pytest.mark.parametrize(
    "publisher",
    [sources.from_iterable([1, 2]), sources.just(1, 2), sources.range(0, 3)],
    ids=["from_iterable", "just", "range"],
)
def test_a_source_refuses_a_none_subscriber_naming_the_rule(publisher: Any) -> None:
    """Rule 1.9: the publisher itself (not only the Flow around it) refuses None."""
    with pytest.raises(TypeError) as raised:
        publisher.subscribe(None)
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
