"""The multicast surface a caller can see beyond the streams' values: exact error and
log messages, reprs, the hop names in traces, ``auto_connect``, the source's rule
breaks, a refusing executor, and the default batch (issue 27: mutation survivors)."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams import MAX_DEMAND
from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor
from reactive_streams.multicast import (
    DisconnectedError,
    OnDisconnect,
    PublishConnection,
    ReplayConnection,
    _connection,
    publish,
    replay,
)
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import Tracer

pytestmark = pytest.mark.timeout(60)

RULE_109 = "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"


class Link:
    """The source's subscription, as the connection sees it."""

    def __init__(self) -> None:
        self.requested = 0
        self.cancelled = 0

    def request(self, n: int) -> None:
        self.requested = min(self.requested + n, MAX_DEMAND)

    def cancel(self) -> None:
        self.cancelled += 1


class Source:
    """Records every subscriber the connection subscribes with; signals on demand."""

    def __init__(self) -> None:
        self.subscribers: list[Subscriber[int]] = []
        self.links: list[Link] = []

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        link = Link()
        self.subscribers.append(subscriber)
        self.links.append(link)
        subscriber.on_subscribe(link)

    @property
    def last(self) -> Subscriber[int]:
        return self.subscribers[-1]


# ------------------------------------------------------------------ messages and names
@pytest.mark.parametrize("kind", ["publish", "replay", "ref_count", "auto_connect"])
def test_spec109_subscribe_none_message_is_exact(kind: str) -> None:
    flow = (publish if kind != "replay" else replay)(rs.range(0, 1))
    target: Any = flow.source
    if kind == "ref_count":
        target = flow.ref_count().source
    elif kind == "auto_connect":
        target = flow.auto_connect(2).source
    with pytest.raises(TypeError) as info:
        target.subscribe(None)
    assert str(info.value) == RULE_109


@pytest.mark.parametrize("signal", ["on_subscribe", "on_next", "on_error"])
def test_spec213_none_from_the_source_is_refused_by_name(signal: str) -> None:
    source = Source()
    flow = publish(source)
    flow.connect()
    with pytest.raises(TypeError) as info:
        getattr(source.last, signal)(None)
    assert str(info.value) == f"rule 2.13: {signal}(None)"


def test_spec101_a_source_that_overflows_ends_every_child_with_the_rule() -> None:
    source = Source()
    flow = publish(source, buffer_size=2)
    ts = TestSubscriber[int](1)  # one taken: no top-up below 2 free (rule 1.1 holds)
    flow.subscribe(ts)
    flow.connect()
    for i in range(3):
        source.last.on_next(i)
    assert source.links[0].requested == 2
    ts.assert_values(0)  # the error overtakes the buffered element
    assert [repr(e) for e in ts.errors] == [
        "RuntimeError('rule 1.1: the source sent more elements than were requested')"
    ]


def test_spec205_a_second_on_subscribe_from_the_source_is_cancelled() -> None:
    source = Source()
    flow = publish(source, buffer_size=4)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    flow.connect()
    second = Link()
    source.last.on_subscribe(second)
    assert second.cancelled == 1
    assert second.requested == 0
    assert source.links[0].cancelled == 0
    source.last.on_next(1)
    ts.assert_values(1)


def test_disconnected_error_says_disconnected() -> None:
    ts = TestSubscriber[int](1)
    flow = publish(Source())
    flow.subscribe(ts)
    flow.connect().disconnect()
    assert [repr(e) for e in ts.errors] == [repr(DisconnectedError("disconnected"))]


def test_child_repr_names_its_subscription(tracer: Tracer) -> None:
    flow = publish(rs.range(0, 1))
    ts = TestSubscriber[int]()
    flow.subscribe(ts)
    sid = tracer.subscriptions()[-1]
    assert repr(ts.subscription) == f"<multicast subscription {sid}>"


def test_child_repr_untraced_is_its_id() -> None:
    flow = publish(rs.range(0, 1))
    ts = TestSubscriber[int]()
    flow.subscribe(ts)
    assert repr(ts.subscription) == f"<multicast subscription {hex(id(ts.subscription))}>"


def test_each_childs_hop_is_named_in_the_trace(tracer: Tracer) -> None:
    for flow in (publish(Source()), replay(Source()), publish(Source()).ref_count()):
        flow.subscribe(TestSubscriber[int]())
    hops = [e["hop"] for e in tracer.events if e["sig"] == "subscribe"]
    assert hops[-3:] == ["publish", "replay", "ref_count"]


def test_a_source_whose_subscribe_raises_ends_every_child_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    boom = RuntimeError("subscribe failed")

    class Raising:
        def subscribe(self, subscriber: Subscriber[int]) -> None:
            raise boom

    flow = publish(Raising())
    ts = TestSubscriber[int](1)
    flow.subscribe(ts)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        conn = flow.connect()
    assert ts.errors == [boom]
    [record] = caplog.records
    assert record.getMessage() == f"{conn!r}: the source's subscribe raised"
    assert record.exc_info is not None
    assert record.exc_info[1] is boom


class Refusing:
    """An executor that refuses every task."""

    def __init__(self) -> None:
        self.error = RuntimeError("no more tasks")

    def execute(self, task: Any) -> None:
        raise self.error


@pytest.mark.parametrize("make", [publish, replay])
def test_a_refused_drain_ends_every_child_with_the_refusal_and_is_logged(
    make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    refusing = Refusing()
    flow = make(Source(), executor=refusing)
    ts, late = TestSubscriber[int](1), TestSubscriber[int](1)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        flow.subscribe(ts)
        flow.subscribe(late)  # the ended connection is current: it drains here, unasked
    conn = flow.connection
    assert ts.errors == late.errors == [refusing.error]  # on_subscribe, then the error
    messages = [(r.getMessage(), r.exc_info and r.exc_info[1]) for r in caplog.records]
    assert messages == [(f"{conn!r}: the executor rejected the drain task", refusing.error)]


class Flaky:
    """A manual executor that refuses every task once ``refuse`` is set."""

    def __init__(self) -> None:
        self.manual = ManualExecutor()
        self.refuse = False
        self.error = RuntimeError("refused")

    def execute(self, task: Any) -> None:
        if self.refuse:
            raise self.error
        self.manual.execute(task)


def test_replay_a_refused_drain_overtakes_the_replay() -> None:
    flaky = Flaky()
    source = Source()
    flow = replay(source, executor=flaky)
    ts, other = TestSubscriber[int](1), TestSubscriber[int](3)
    flow.subscribe(ts)
    flow.subscribe(other)  # the source is asked for 3 (max-requesting)
    flow.connect()
    flaky.manual.run_all()
    for i in range(3):
        source.last.on_next(i)
        flaky.manual.run_all()
    ts.assert_values(0)
    flaky.refuse = True
    ts.request(5)
    ts.assert_values(0)
    assert ts.errors == [flaky.error]


# ------------------------------------------------------------------ auto_connect
def test_auto_connect_connects_at_the_nth_subscriber_and_only_once() -> None:
    source = Source()
    flow = publish(source).auto_connect(2)
    first, second, third = (TestSubscriber[int](MAX_DEMAND) for _ in range(3))
    flow.subscribe(first)
    assert source.subscribers == []
    flow.subscribe(second)
    assert len(source.subscribers) == 1
    source.last.on_next(1)
    source.last.on_complete()
    flow.subscribe(third)  # the run ended: it gets the end, and nothing reconnects
    assert len(source.subscribers) == 1
    first.assert_values(1).assert_complete()
    second.assert_values(1).assert_complete()
    third.assert_values().assert_complete()


def test_ref_count_joins_a_connection_started_by_hand_without_subscribing_again() -> None:
    source = Source()
    flow = publish(source)
    flow.connect()
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.ref_count().subscribe(ts)
    assert len(source.subscribers) == 1
    source.last.on_next(7)
    ts.assert_values(7)


# ------------------------------------------------------------------ the default batch
@pytest.mark.parametrize("make", [publish, replay])
def test_default_batch_is_256_elements_per_drain_task(make: Any) -> None:
    manual = ManualExecutor()
    kwargs = {"buffer_size": 1000} if make is publish else {}
    flow = make(rs.range(0, 1000), executor=manual, **kwargs)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    flow.connect()
    manual.run_next()
    assert len(ts.values) == 256
    manual.run_all()
    ts.assert_value_count(1000).assert_complete()


# ------------------------------------------------------------------ ref_count's count
def test_ref_count_a_child_whose_on_error_raises_is_uncounted_once() -> None:
    """Rule 3.9's error ends ``bad`` and uncounts it; its on_error raising cancels it
    (rule 2.13), which must not uncount it a second time and disconnect ``good``."""

    class Exploding(TestSubscriber[int]):
        def on_error(self, error: BaseException) -> None:
            super().on_error(error)
            raise RuntimeError("on_error fault")

    source = Source()
    shared = publish(source).ref_count()
    good = TestSubscriber[int](MAX_DEMAND)
    bad = Exploding()
    shared.subscribe(good)
    shared.subscribe(bad)
    bad.request(0)
    bad.assert_error(ValueError)
    assert shared.subscriber_count == 1
    assert source.links[0].cancelled == 0
    source.last.on_next(1)
    good.assert_values(1).assert_no_terminal()


def test_ref_count_the_last_cancel_gets_no_signal_and_cancels_the_source() -> None:
    source = Source()
    shared = publish(source).ref_count()
    ts = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(ts)
    ts.cancel()
    assert source.links[0].cancelled == 1
    ts.assert_no_terminal()  # the detach comes first: no DisconnectedError to the canceller


def test_ref_count_a_raising_childs_trace_records_the_raise(tracer: Tracer) -> None:
    def explode(_ts: TestSubscriber[int], _item: int) -> None:
        raise RuntimeError("on_next fault")

    shared = publish(rs.range(0, 3)).ref_count()
    ts = TestSubscriber[int](MAX_DEMAND, on_next_hook=explode)
    shared.subscribe(ts)
    sid = ts.subscription.subscription_id  # type: ignore[union-attr]
    mine = [e for e in tracer.events if e["sub"] == sid]
    ends = [e for e in mine if e["sig"] == "end_on_next"]
    assert ends, mine
    assert ends[0].get("raised") is True, mine


# ------------------------------------------------------------------ children
def test_spec309_an_invalid_request_made_during_a_batch_stops_that_childs_elements() -> None:
    """``a``'s on_next makes ``b``'s invalid request while one emission loop runs: ``b``
    receives no element after it, then rule 3.9's error."""
    flow = publish(rs.range(0, 10), buffer_size=16)
    b = TestSubscriber[int](MAX_DEMAND)

    def invalid(_ts: TestSubscriber[int], item: int) -> None:
        if item == 2:
            b.request(0)

    a = TestSubscriber[int](MAX_DEMAND, on_next_hook=invalid)
    flow.subscribe(a)
    flow.subscribe(b)
    flow.connect()
    a.assert_values(*range(10)).assert_complete()
    b.assert_values(0, 1).assert_error(ValueError, r"rule 3\.9")


def test_replay_a_child_that_cancels_mid_batch_leaves_the_budget_to_the_others() -> None:
    manual = ManualExecutor()
    flow = replay(rs.range(0, 10), executor=manual, batch_size=4)

    def leave(ts: TestSubscriber[int], _item: int) -> None:
        ts.cancel()

    quitter = TestSubscriber[int](MAX_DEMAND, on_next_hook=leave)
    other = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(quitter)
    flow.subscribe(other)
    manual.run_all()  # on_subscribe, the requests
    flow.connect()
    manual.run_next()
    quitter.assert_values(0)
    other.assert_values(0, 1, 2)  # one task: 4 elements in all, 1 of them to the quitter


def test_a_dropped_child_is_cancelled_for_its_later_calls(tracer: Tracer) -> None:
    flow = publish(Source(), on_disconnect="none")
    ts = TestSubscriber[int]()
    flow.subscribe(ts)
    flow.connect().disconnect()
    sid = ts.subscription.subscription_id  # type: ignore[union-attr]
    ts.request(3)  # rule 3.6: a no-op after the drop
    sigs = [e["sig"] for e in tracer.events if e["sub"] == sid]
    assert sigs[-2:] == ["request", "end_request"], sigs


def test_a_fresh_connection_is_neither_connected_nor_disconnected() -> None:
    conn = publish(Source()).connection
    assert conn.connected is False
    assert conn.disconnected is False


def test_disconnect_twice_schedules_no_more_work() -> None:
    manual = ManualExecutor()
    flow = publish(Source(), executor=manual)
    conn = flow.connect()
    conn.disconnect()
    manual.run_all()
    conn.disconnect()  # idempotent
    assert len(manual) == 0


def test_ref_count_the_last_cancel_after_a_disconnect_schedules_no_work() -> None:
    manual = ManualExecutor()
    flow = publish(Source(), on_disconnect="none", executor=manual)
    ts = TestSubscriber[int]()
    flow.ref_count().subscribe(ts)
    manual.run_all()
    flow.connection.disconnect()  # ts is dropped, still counted
    manual.run_all()
    ts.cancel()  # uncounted: the connection is already disconnected
    assert len(manual) == 0


def test_a_childs_request_pumps_the_source_on_its_own_thread() -> None:
    """A request (unlike a cancel, rule 3.5) tops up the source from the caller's drain,
    however much that is."""
    threads: list[int] = []

    class Recorded(Link):
        def request(self, n: int) -> None:
            threads.append(threading.get_ident())
            super().request(n)

    class RecordedSource(Source):
        def subscribe(self, subscriber: Subscriber[int]) -> None:
            link = Recorded()
            self.subscribers.append(subscriber)
            self.links.append(link)
            subscriber.on_subscribe(link)

    source = RecordedSource()
    flow = publish(source, buffer_size=8, batch_size=2)
    ts = TestSubscriber[int]()
    flow.subscribe(ts)
    flow.connect()
    for i in range(8):
        source.last.on_next(i)
    ts.request(8)
    ts.assert_value_count(8)
    assert source.links[0].requested == 16
    assert threads == [threading.get_ident()] * 2


# ------------------------------------------------------------------ after the disconnect
def test_spec205_an_on_subscribe_after_the_disconnect_is_cancelled() -> None:
    """The connection cancelled its subscription; a second ``on_subscribe`` from the
    source must be cancelled too (rule 2.5), not kept for ever by nobody."""
    source = Source()
    flow = publish(source)
    flow.connect().disconnect()
    assert source.links[0].cancelled == 1
    late = Link()
    source.last.on_subscribe(late)
    assert late.cancelled == 1
    assert late.requested == 0


def test_spec28_an_element_after_the_disconnect_is_ignored() -> None:
    source = Source()
    flow = publish(source, on_disconnect="complete")
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    flow.connect().disconnect()
    source.last.on_next(5)  # in flight when the cancel came (rule 2.8): no raise
    ts.assert_values().assert_complete()
    assert source.links[0].cancelled == 1


def test_a_source_signal_after_the_disconnect_schedules_no_work() -> None:
    manual = ManualExecutor()
    source = Source()
    flow = publish(source, executor=manual)
    flow.connect().disconnect()
    manual.run_all()
    source.last.on_complete()  # crossed the cancel: ignored
    assert len(manual) == 0


def test_spec35_a_cancel_pumps_at_most_a_batch_also_one_element_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """buffer_size=1 tops the source up one element at a time; the cancel that releases
    the lockstep requests exactly ``batch_size`` of them on its own thread, then hands
    the pump to the shared pool (here a manual executor) and returns."""
    pool = ManualExecutor()
    monkeypatch.setattr(_connection, "default_executor", lambda: pool)
    flow = publish(rs.range(0, 2000), buffer_size=1, batch_size=16)
    fast = TestSubscriber[int](MAX_DEMAND)
    idle = TestSubscriber[int]()
    flow.subscribe(fast)
    flow.subscribe(idle)
    conn = flow.connect()
    assert fast.values == []  # held back by idle
    idle.cancel()
    assert len(fast.values) == 1 + 16  # the buffered one, then one per request
    assert conn.upstream_requested == 1 + 16
    assert len(pool) == 1  # the rest is the pool's
    pool.run_next()  # one task: the pool's drain has no pump budget
    fast.assert_value_count(2000).assert_complete()
    assert len(pool) == 0


@pytest.mark.parametrize("strategy", ["error", "complete", "none"])
def test_a_child_that_slips_in_while_disconnecting_is_treated_as_the_others(
    strategy: OnDisconnect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``disconnect()`` marks the connection, then the hub forgets it: a subscriber in
    between joins it. Forced here: a drain (another thread's, in general) handles the
    disconnect first, then ``late`` arrives. It gets what the others got: the same
    error, a completion, or (``"none"``) nothing after its on_subscribe."""
    source = Source()
    flow = publish(source, on_disconnect=strategy)
    early = TestSubscriber[int](MAX_DEMAND)
    late = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(early)
    conn = flow.connect()
    forget = conn._forget  # the hub's, handed to the connection

    def slip_in(c: Any) -> None:
        c._kick()  # the disconnect is handled now
        flow.subscribe(late)  # the hub still hands out this connection
        forget(c)

    monkeypatch.setattr(conn, "_forget", slip_in)
    conn.disconnect()
    assert late.subscription is not None
    if strategy == "error":
        assert len(early.errors) == 1
        assert late.errors == early.errors  # the same DisconnectedError
        assert late.errors[0] is early.errors[0]
    elif strategy == "complete":
        late.assert_complete()
    else:
        early.assert_no_terminal()
        late.assert_no_terminal()


def test_replay_disconnect_error_overtakes_a_lagging_childs_replay() -> None:
    source = Source()
    flow = replay(source, on_disconnect="error")
    lagging, ahead = TestSubscriber[int](1), TestSubscriber[int](5)
    flow.subscribe(lagging)
    flow.subscribe(ahead)
    conn = flow.connect()
    for i in range(5):
        source.last.on_next(i)
    conn.disconnect()
    lagging.assert_values(0).assert_error(DisconnectedError)  # 1..4 are not replayed first
    ahead.assert_values(0, 1, 2, 3, 4).assert_error(DisconnectedError)


# ------------------------------------------------------------------ publish's own surface
def test_validation_messages_are_exact() -> None:
    strategies = "('error', 'complete', 'none')"
    bad: Any = "drop"
    half: Any = 1.5
    cases: list[tuple[Any, str]] = [
        (lambda: publish(Source(), 0), "publish: buffer_size must be an int >= 1, got 0"),
        (lambda: publish(Source(), half), "publish: buffer_size must be an int >= 1, got 1.5"),
        (
            lambda: publish(Source(), on_disconnect=bad),
            f"publish: on_disconnect must be one of {strategies}",
        ),
        (lambda: replay(Source(), -1), "replay: bound must be >= 0 or None, got -1"),
        (
            lambda: replay(Source(), on_disconnect=bad),
            f"replay: on_disconnect must be one of {strategies}",
        ),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)) as info:
            make()
        assert str(info.value) == message


def test_publish_with_unbounded_buffer_requests_once() -> None:
    """``buffer_size=MAX_DEMAND`` asks the source for everything (rule 3.17): no other
    request follows."""
    calls: list[int] = []

    class Counted(Link):
        def request(self, n: int) -> None:
            calls.append(n)
            super().request(n)

    class CountedSource(Source):
        def subscribe(self, subscriber: Subscriber[int]) -> None:
            link = Counted()
            self.subscribers.append(subscriber)
            self.links.append(link)
            subscriber.on_subscribe(link)

    source = CountedSource()
    flow = publish(source, buffer_size=MAX_DEMAND)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    flow.connect()
    for i in range(3):
        source.last.on_next(i)
    ts.assert_values(0, 1, 2)
    assert calls == [MAX_DEMAND]


def test_flow_publish_default_batch_bounds_a_cancels_pump(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Flow.publish()`` takes the default batch (256): the cancel that releases the
    lockstep requests exactly 256 elements on its own thread (rule 3.5), then hands over."""
    pool = ManualExecutor()
    monkeypatch.setattr(_connection, "default_executor", lambda: pool)
    flow = rs.Flow.range(0, 1000).publish(buffer_size=1)
    fast, idle = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int]()
    flow.subscribe(fast)
    flow.subscribe(idle)
    flow.connect()
    idle.cancel()
    assert len(fast.values) == 1 + 256
    assert len(pool) == 1
    pool.run_next()
    fast.assert_value_count(1000).assert_complete()


def publish_conn(flow: Any) -> PublishConnection[int]:
    conn = flow.connection
    assert isinstance(conn, PublishConnection)
    return conn


def test_replay_disconnect_none_forgets_the_replay() -> None:
    source = Source()
    flow = replay(source, on_disconnect="none")
    ts = TestSubscriber[int](1)
    flow.subscribe(ts)
    conn = flow.connect()
    assert isinstance(conn, ReplayConnection)
    source.last.on_next(1)
    assert conn.replayable == [1]
    conn.disconnect()
    assert conn.replayable == []
    ts.assert_values(1).assert_no_terminal()


def test_replay_unbounded_child_requests_the_source_once() -> None:
    """A child's ``MAX_DEMAND`` makes the source unbounded (rule 3.17): no request follows."""
    calls: list[int] = []

    class Counted(Link):
        def request(self, n: int) -> None:
            calls.append(n)
            super().request(n)

    class CountedSource(Source):
        def subscribe(self, subscriber: Subscriber[int]) -> None:
            link = Counted()
            self.subscribers.append(subscriber)
            self.links.append(link)
            subscriber.on_subscribe(link)

    source = CountedSource()
    flow = replay(source, 2)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    flow.connect()
    for i in range(3):
        source.last.on_next(i)
    flow.subscribe(TestSubscriber[int](1))  # another drain round
    ts.assert_values(0, 1, 2)
    assert calls == [MAX_DEMAND]


def test_replay_bound_zero_replays_nothing() -> None:
    source = Source()
    flow = replay(source, 0)
    early = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(early)
    conn = flow.connect()
    assert isinstance(conn, ReplayConnection)
    source.last.on_next(1)
    assert conn.replayable == []
    late = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(late)
    source.last.on_next(2)
    early.assert_values(1, 2)
    late.assert_values(2)


def test_replay_a_child_that_leaves_mid_round_does_not_cost_the_next_its_turn() -> None:
    """One task, a budget of 4: ``first`` takes 1 and (from its on_next) makes ``gone``
    cancel and asks for more; ``last``, after ``gone``, still gets the rest of the
    task's budget, before ``first``'s new demand is served."""
    manual = ManualExecutor()
    flow = replay(rs.range(0, 20), executor=manual, batch_size=4)
    gone = TestSubscriber[int](MAX_DEMAND)

    def leave_and_ask(ts: TestSubscriber[int], item: int) -> None:
        if item == 0:
            gone.cancel()
            ts.request(10)

    first = TestSubscriber[int](1, on_next_hook=leave_and_ask)
    last = TestSubscriber[int](MAX_DEMAND)
    for ts in (first, gone, last):
        flow.subscribe(ts)
    manual.run_all()
    flow.connect()
    manual.run_next()
    first.assert_values(0)
    last.assert_values(0, 1, 2)
    gone.assert_values()
