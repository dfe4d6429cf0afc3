"""publish, replay, ref_count: request coordination, disconnect strategies, rules per child."""

from __future__ import annotations

import itertools
import logging
import random
import threading
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams import MAX_DEMAND
from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor, ThreadPoolExecutor
from reactive_streams.multicast import (
    ConnectableFlow,
    DisconnectedError,
    PublishConnection,
    ReplayConnection,
    publish,
    replay,
)
from reactive_streams.testing import (
    TestSubscriber,
    spec101_delivered_leq_requested_inv,
    spec103_serial_signals_inv,
)
from reactive_streams.tracing import Tracer

pytestmark = pytest.mark.timeout(60)


class HotSource:
    """A source driven by the test: ``emit`` pushes one element (only when requested)."""

    def __init__(self) -> None:
        self.subscriber: Subscriber[int] | None = None
        self.requested = 0
        self.sent = 0
        self.cancelled = False
        self.subscriptions = 0

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        self.subscriptions += 1
        self.subscriber = subscriber
        self.requested = self.sent = 0
        self.cancelled = False
        source = self

        class _Sub:
            def request(self, n: int) -> None:
                source.requested = min(source.requested + n, MAX_DEMAND)

            def cancel(self) -> None:
                source.cancelled = True

        subscriber.on_subscribe(_Sub())

    @property
    def outstanding(self) -> int:
        return self.requested - self.sent

    def emit(self, item: int) -> None:
        assert self.subscriber is not None
        assert not self.cancelled
        assert self.sent < self.requested, "test bug: the source must respect rule 1.1"
        self.sent += 1
        self.subscriber.on_next(item)

    def emit_all_requested(self, start: int) -> int:
        n = self.outstanding
        for i in range(n):
            self.emit(start + i)
        return start + n

    def complete(self) -> None:
        assert self.subscriber is not None
        self.subscriber.on_complete()

    def fail(self, error: BaseException) -> None:
        assert self.subscriber is not None
        self.subscriber.on_error(error)


def publish_conn(flow: ConnectableFlow[Any]) -> PublishConnection[Any]:
    conn = flow.connection
    assert isinstance(conn, PublishConnection)
    return conn


# ---------------------------------------------------------------- publish: lockstep
def test_spec101_lockstep_gives_no_subscriber_more_than_it_requested() -> None:
    flow = publish(rs.range(1, 11), buffer_size=4)
    a, b = TestSubscriber[int](3), TestSubscriber[int](1)
    flow.subscribe(a)
    flow.subscribe(b)
    flow.connect()
    a.assert_values(1)
    b.assert_values(1)
    b.request(5)
    a.assert_values(1, 2, 3)
    b.assert_values(1, 2, 3)
    a.request(2)
    b.request(100)
    a.assert_values(1, 2, 3, 4, 5).assert_no_terminal().assert_no_violations()
    b.assert_values(1, 2, 3, 4, 5).assert_no_violations()


def test_upstream_requested_never_exceeds_min_demand_plus_buffer() -> None:
    source = HotSource()
    flow = publish(source, buffer_size=8)
    a, b = TestSubscriber[int](), TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(a)
    flow.subscribe(b)
    conn = publish_conn(flow)
    flow.connect()
    assert source.requested == 8  # prefetch: the buffer bound, nothing more
    nxt = source.emit_all_requested(0)
    assert conn.buffered == 8
    assert source.outstanding == 0
    assert a.values == b.values == []  # a has no demand: lockstep holds b back
    rng = random.Random(7)
    for _ in range(200):
        if rng.random() < 0.5:
            a.request(rng.randint(1, 5))
        nxt = source.emit_all_requested(nxt)
        min_demand = min(a.requested - len(a.values), MAX_DEMAND)
        # UpstreamLeqMinDemandPlusBufferInv
        assert source.requested - conn.taken <= min_demand + 8
        assert conn.buffered <= 8
        assert a.values == b.values == list(range(len(a.values)))
    a.assert_no_violations()
    b.assert_no_violations()


def test_subscriber_that_never_requests_holds_others_and_leaving_releases() -> None:
    manual = ManualExecutor()
    flow = publish(rs.range(0, 20, executor=manual), buffer_size=4, executor=manual)
    idle, eager = TestSubscriber[int](), TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(idle)
    flow.subscribe(eager)
    flow.connect()
    manual.run_all()
    eager.assert_value_count(0)
    assert idle.subscription is not None
    idle.cancel()  # its pressure is released
    manual.run_all()
    eager.assert_values(*range(20)).assert_complete()
    idle.assert_no_terminal().assert_no_violations()


def test_unbounded_subscriber_that_leaves_leaves_the_others_bounded() -> None:
    flow = publish(rs.range(0, 100), buffer_size=4)
    greedy, slow = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int](2)
    flow.subscribe(greedy)
    flow.subscribe(slow)
    conn = publish_conn(flow)
    flow.connect()
    greedy.assert_values(0, 1)
    greedy.cancel()
    slow.request(3)
    slow.assert_values(0, 1, 2, 3, 4).assert_no_violations()
    greedy.assert_values(0, 1)
    assert conn.upstream_requested - conn.taken <= 4


def test_late_subscriber_to_publish_sees_only_later_elements() -> None:
    source = HotSource()
    flow = publish(source, buffer_size=4)
    early = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(early)
    flow.connect()
    source.emit(1)
    source.emit(2)
    late = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(late)
    source.emit(3)
    source.complete()
    early.assert_values(1, 2, 3).assert_complete()
    late.assert_values(3).assert_complete()


def test_without_subscribers_publish_drops_at_the_sources_pace() -> None:
    source = HotSource()
    flow = publish(source, buffer_size=4)
    conn = publish_conn(flow)
    flow.connect()
    nxt = source.emit_all_requested(0)
    nxt = source.emit_all_requested(nxt)
    assert conn.buffered == 0
    assert conn.taken == source.sent == nxt == 7
    assert 0 < source.requested - conn.taken <= 4  # and replenished, within the bound
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    source.emit(nxt)
    ts.assert_values(nxt)


def test_nothing_is_requested_before_connect() -> None:
    source = HotSource()
    flow = publish(source)
    ts = TestSubscriber[int](5)
    flow.subscribe(ts)
    assert source.subscriptions == 0
    conn = flow.connect()
    assert source.requested == 256
    assert flow.connect() is conn  # idempotent while it runs
    assert source.subscriptions == 1


def test_source_error_overtakes_buffered_elements() -> None:
    source = HotSource()
    flow = publish(source, buffer_size=4)
    ts = TestSubscriber[int](1)
    flow.subscribe(ts)
    flow.connect()
    source.emit_all_requested(0)
    source.fail(RuntimeError("boom"))
    ts.assert_values(0)
    assert [str(e) for e in ts.errors] == ["boom"]
    ts.assert_no_violations()


def test_completion_waits_for_the_buffer_then_late_subscribers_get_it_at_once() -> None:
    flow = publish(rs.range(0, 3))
    ts = TestSubscriber[int](2)
    flow.subscribe(ts)
    conn = flow.connect()
    ts.assert_values(0, 1).assert_no_terminal()
    ts.request(1)
    ts.assert_values(0, 1, 2).assert_complete()
    late = TestSubscriber[int](1)
    flow.subscribe(late)
    late.assert_values().assert_complete()
    again = flow.connect()
    assert again is not conn  # a new run
    fresh = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(fresh)
    fresh.assert_values().assert_complete()  # the new run drained with nobody listening


# ---------------------------------------------------------------- disconnect strategies
def test_disconnect_error_overtakes_buffer() -> None:
    ts = TestSubscriber[int](5)
    flow = publish(rs.range(1, 11), on_disconnect="error")
    flow.subscribe(ts)
    conn = flow.connect()
    conn.disconnect()
    ts.assert_values(1, 2, 3, 4, 5)
    assert len(ts.errors) == 1
    assert isinstance(ts.errors[0], DisconnectedError)
    ts.assert_no_violations()
    assert conn.disconnected


def test_disconnect_complete_delivers_buffered_on_demand_then_completes() -> None:
    source = HotSource()
    ts = TestSubscriber[int](1)
    flow = publish(source, buffer_size=4, on_disconnect="complete")
    flow.subscribe(ts)
    conn = flow.connect()
    source.emit_all_requested(0)
    conn.disconnect()
    assert source.cancelled
    ts.assert_values(0).assert_no_terminal()
    ts.request(10)
    ts.assert_values(0, 1, 2, 3).assert_complete()


def test_disconnect_none_sends_nothing_and_cancels_the_source() -> None:
    source = HotSource()
    ts = TestSubscriber[int](1)
    flow = publish(source, buffer_size=4, on_disconnect="none")
    flow.subscribe(ts)
    conn = flow.connect()
    source.emit_all_requested(0)
    with conn:
        pass  # the context manager disconnects
    assert source.cancelled
    ts.request(10)
    ts.assert_values(0).assert_no_terminal().assert_no_violations()
    assert conn.subscriber_count == 0


def test_subscribers_after_disconnect_wait_for_the_next_connect() -> None:
    flow = publish(rs.range(0, 3))
    first = flow.connect()
    first.disconnect()
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    ts.assert_values()
    second = flow.connect()
    assert second is not first
    ts.assert_values(0, 1, 2).assert_complete()


def test_disconnect_before_the_source_subscribes_cancels_it_on_arrival() -> None:
    manual = ManualExecutor()
    flow = publish(rs.range(0, 5, executor=manual), executor=manual)
    ts = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(ts)
    conn = flow.connect()
    conn.disconnect()
    manual.run_all()
    ts.assert_values()
    assert isinstance(ts.errors[0], DisconnectedError)


# ---------------------------------------------------------------- rules toward each child
def test_spec109_subscribe_none_raises() -> None:
    with pytest.raises(TypeError, match=r"rule 1\.9"):
        publish(rs.range(0, 1)).source.subscribe(None)  # type: ignore[arg-type]


def test_spec309_invalid_request_errors_only_that_subscriber() -> None:
    flow = publish(rs.range(0, 5), buffer_size=2)
    bad, good = TestSubscriber[int](), TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(bad)
    flow.subscribe(good)
    bad.request(0)
    bad.assert_error(ValueError, r"rule 3\.9")
    flow.connect()
    good.assert_values(0, 1, 2, 3, 4).assert_complete()


def test_spec306_request_after_cancel_is_a_noop() -> None:
    flow = publish(rs.range(0, 5))
    ts = TestSubscriber[int]()
    flow.subscribe(ts)
    ts.cancel()
    ts.cancel()  # rule 3.5
    ts.request(3)
    flow.connect()
    ts.assert_values().assert_no_terminal()


def test_spec213_raising_subscriber_is_cancelled_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(ts: TestSubscriber[int], item: int) -> None:
        if item == 1:
            raise RuntimeError("subscriber fault")

    flow = publish(rs.range(0, 5), buffer_size=2)
    faulty = TestSubscriber[int](MAX_DEMAND, on_next_hook=explode)
    other = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(faulty)
    flow.subscribe(other)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        flow.connect()
    faulty.assert_values(0, 1).assert_no_terminal()
    other.assert_values(0, 1, 2, 3, 4).assert_complete()
    assert any("rule 2.13" in r.getMessage() for r in caplog.records)


def test_spec303_request_from_on_next_trampolines() -> None:
    n = 50_000

    def more(ts: TestSubscriber[int], _item: int) -> None:
        ts.request(1)

    flow = publish(rs.range(0, n), buffer_size=16)
    a = TestSubscriber[int](1, on_next_hook=more)
    b = TestSubscriber[int](1, on_next_hook=more)
    flow.subscribe(a)
    flow.subscribe(b)
    flow.connect()
    a.assert_value_count(n).assert_complete()
    b.assert_value_count(n).assert_complete()


@pytest.mark.parametrize("sizing", [{"buffer_size": 4}, {"lead": 4}])
def test_traced_run_satisfies_spec101_and_spec103(tracer: Tracer, sizing: Any) -> None:
    flow = publish(rs.range(0, 30), **sizing)  # lockstep, or each at its own pace (lead)
    subs = [TestSubscriber[int](k) for k in (MAX_DEMAND, 7, 3)]
    for ts in subs:
        flow.subscribe(ts)
    flow.connect()
    subs[2].cancel()
    subs[1].request(100)
    assert spec101_delivered_leq_requested_inv(tracer.events) == []
    assert spec103_serial_signals_inv(tracer.events) == []
    assert len(tracer.subscriptions()) == 4  # three children and the source's own
    sigs = [e["sig"] for e in tracer.events]
    assert "recv_cancel" in sigs
    assert "send_on_complete" in sigs


# ---------------------------------------------------------------- ref_count
def test_ref_count_connects_on_first_and_disconnects_after_last() -> None:
    source = HotSource()
    shared = publish(source, buffer_size=4).ref_count()
    a = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(a)
    assert source.subscriptions == 1
    assert shared.subscriber_count == 1
    b = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(b)
    assert source.subscriptions == 1
    source.emit(1)
    a.cancel()
    assert not source.cancelled
    source.emit(2)
    b.cancel()
    assert source.cancelled
    assert shared.subscriber_count == 0
    a.assert_values(1)
    b.assert_values(1, 2)
    c = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(c)
    assert source.subscriptions == 2  # reconnected
    source.emit(3)
    c.assert_values(3)


def test_ref_count_terminal_signal_uncounts() -> None:
    shared = publish(rs.range(0, 3)).ref_count()
    ts = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(ts)
    ts.assert_values(0, 1, 2).assert_complete()
    assert shared.subscriber_count == 0
    again = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(again)
    again.assert_values(0, 1, 2).assert_complete()


# ---------------------------------------------------------------- replay
def test_unbounded_replay_gives_late_subscribers_everything() -> None:
    flow = replay(rs.range(0, 5))
    early = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(early)
    flow.connect()
    late = TestSubscriber[int](2)
    flow.subscribe(late)
    early.assert_values(0, 1, 2, 3, 4).assert_complete()
    late.assert_values(0, 1).assert_no_terminal()
    late.request(10)
    late.assert_values(0, 1, 2, 3, 4).assert_complete()


def test_bounded_replay_replays_the_last_n_and_lagging_children_skip_nothing() -> None:
    source = HotSource()
    flow = replay(source, 2)
    lagging = TestSubscriber[int](1)
    fast = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(lagging)
    flow.subscribe(fast)
    conn = flow.connect()
    assert isinstance(conn, ReplayConnection)
    assert source.requested == MAX_DEMAND  # 'fast' requested everything (max-requesting)
    for i in range(6):
        source.emit(i)
    assert conn.replayable == [4, 5]
    late = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(late)
    late.assert_values(4, 5)
    lagging.assert_values(0)
    lagging.request(10)
    lagging.assert_values(0, 1, 2, 3, 4, 5)  # no skip although the window moved on
    fast.assert_values(0, 1, 2, 3, 4, 5)


def test_replay_requests_the_furthest_any_child_wants() -> None:
    source = HotSource()
    flow = replay(source, 1)
    a, b = TestSubscriber[int](2), TestSubscriber[int](5)
    flow.subscribe(a)
    flow.subscribe(b)
    flow.connect()
    assert source.requested == 5  # max-requesting
    source.emit_all_requested(0)
    a.assert_values(0, 1)
    b.assert_values(0, 1, 2, 3, 4)
    # a latecomer counts from its pinned position (window of 1: element 4)
    c = TestSubscriber[int](2)
    flow.subscribe(c)
    c.assert_values(4)
    assert source.requested == 6  # pin 4 + 2 requested
    source.emit(5)
    c.assert_values(4, 5)
    b.assert_values(0, 1, 2, 3, 4)
    for ts in (a, b, c):
        ts.assert_no_violations()


def test_replay_terminal_comes_after_the_replay() -> None:
    flow = replay(rs.just(1, 2, 3), 2)
    flow.connect()
    ts = TestSubscriber[int]()
    flow.subscribe(ts)  # nobody requested before: nothing buffered yet
    ts.assert_values().assert_no_terminal()
    ts.request(1)
    ts.assert_values(1).assert_no_terminal()
    ts.request(5)
    ts.assert_values(1, 2, 3).assert_complete()
    late = TestSubscriber[int](1)
    flow.subscribe(late)
    late.assert_values(2).assert_no_terminal()
    late.request(1)
    late.assert_values(2, 3).assert_complete()


def test_replay_source_error_reaches_each_child_after_its_replay() -> None:
    source = HotSource()
    flow = replay(source)
    ts = TestSubscriber[int](1)
    flow.subscribe(ts)
    flow.connect()
    source.emit(7)
    source.fail(RuntimeError("late failure"))
    ts.assert_values(7).assert_error(RuntimeError, "late failure")


def test_replay_disconnect_error_overtakes() -> None:
    flow = replay(rs.range(0, 10), on_disconnect="error")
    a = TestSubscriber[int](3)
    flow.subscribe(a)
    conn = flow.connect()
    conn.disconnect()
    a.assert_values(0, 1, 2).assert_error(DisconnectedError)


def test_replay_validation() -> None:
    with pytest.raises(ValueError, match="bound"):
        replay(rs.range(0, 1), -1)
    with pytest.raises(ValueError, match="on_disconnect"):
        replay(rs.range(0, 1), on_disconnect="drop")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="buffer_size"):
        publish(rs.range(0, 1), 0)


# ---------------------------------------------------------------- determinism and threads
def _manual_run(seed: int) -> list[tuple[str, list[int]]]:
    manual = ManualExecutor()
    flow = publish(rs.range(0, 40, executor=manual), buffer_size=4, executor=manual, batch_size=3)
    subs = [TestSubscriber[int](1), TestSubscriber[int](2), TestSubscriber[int](3)]
    for ts in subs:
        flow.subscribe(ts)
    manual.run_next()  # the drain task delivers on_subscribe (rule 1.9)
    flow.connect()
    rng = random.Random(seed)
    for _ in range(400):
        if manual.pending and rng.random() < 0.7:
            manual.run(rng.randrange(len(manual.pending)))
        else:
            rng.choice(subs).request(rng.randint(1, 4))
    for ts in subs:
        ts.request(MAX_DEMAND)
    manual.run_all()
    return [(repr(ts.errors), ts.values) for ts in subs]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_manual_executor_runs_are_reproducible(seed: int) -> None:
    first = _manual_run(seed)
    assert first == _manual_run(seed)
    assert all(values == list(range(40)) for _, values in first)


@pytest.mark.parametrize("make", [publish, replay])
def test_real_threads_every_child_gets_the_same_prefix(make: Any) -> None:
    n = 3000
    with ThreadPoolExecutor(3, name="mc-src") as src_pool, ThreadPoolExecutor(3) as pool:
        flow = make(rs.range(0, n, executor=src_pool), executor=pool)
        subs = [TestSubscriber[int]() for _ in range(4)]
        for ts in subs:
            flow.subscribe(ts)
        for ts in subs:
            ts.await_subscribed(10)
        flow.connect()

        def requester(ts: TestSubscriber[int], seed: int) -> None:
            rng = random.Random(seed)
            asked = 0
            while asked < n:
                k = rng.randint(1, 50)
                ts.request(k)
                asked += k
                ts.await_count(min(asked, n) - 40 if asked > 40 else 0, 10)

        threads = [
            threading.Thread(target=requester, args=(ts, i)) for i, ts in enumerate(subs[:3])
        ]
        for t in threads:
            t.start()
        subs[3].request(MAX_DEMAND)
        for t in threads:
            t.join(30)
            assert not t.is_alive()
        for ts in subs:
            ts.await_terminal(30)
            ts.assert_values(*range(n)).assert_complete()


# ---------------------------------------------------------------- Flow integration
def test_connectable_flow_is_a_flow_with_operators() -> None:
    from reactive_streams.flow import Flow

    shared = Flow.range(0, 6).publish(buffer_size=2)
    assert isinstance(shared, Flow)
    evens = shared.filter(lambda x: x % 2 == 0)
    a, b = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int](MAX_DEMAND)
    evens.subscribe(a)
    shared.subscribe(b)
    shared.connect()
    a.assert_values(0, 2, 4).assert_complete()
    b.assert_values(0, 1, 2, 3, 4, 5).assert_complete()
    cached = Flow.just(1, 2, 3).replay(2)
    cached.connect()
    late = TestSubscriber[int](MAX_DEMAND)
    cached.ref_count().subscribe(late)
    late.assert_values(1, 2, 3).assert_complete()  # its demand drove the running source
    counted = Flow.range(0, 3).publish().ref_count()
    assert isinstance(counted, Flow)
    assert counted.to_list(timeout=5) == [0, 1, 2]


# ------------------------------------- cancel from inside a synchronous emission (3.12)
class EndlessSpy:
    """A synchronous endless source (``from_iterable(count())``) that records the cancel
    it receives; ``stop()`` ends it, so a failing run still frees its thread."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.pulling = threading.Event()  # the source emits inside someone's drain
        self.pulled = 0
        self._stop = False
        self._source = rs.Flow.from_iterable(self._elements())

    def _elements(self) -> Any:
        for i in itertools.count(1):
            if self._stop:
                return
            self.pulled = i
            if i == 100:
                self.pulling.set()
            yield i

    def stop(self) -> None:
        self._stop = True

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        spy = self

        class _Spied:
            def on_subscribe(self, subscription: Any) -> None:
                class _Sub:
                    def request(self, n: int) -> None:
                        subscription.request(n)

                    def cancel(self) -> None:
                        spy.cancelled.set()
                        subscription.cancel()

                subscriber.on_subscribe(_Sub())

            def on_next(self, item: int) -> None:
                subscriber.on_next(item)

            def on_error(self, error: BaseException) -> None:
                subscriber.on_error(error)

            def on_complete(self) -> None:
                subscriber.on_complete()

        self._source.subscribe(_Spied())


def _in_background(fn: Any) -> threading.Thread:
    thread = threading.Thread(target=fn, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("bound", [None, 8])
def test_spec312_replay_ref_count_last_cancel_stops_a_synchronous_source(
    bound: int | None,
) -> None:
    """An unbounded request reaches the idle source from the connection's drain, so the
    source emits inside that drain; the last subscriber's cancel (ref_count 1 -> 0),
    from another thread, must cancel it from inside that emission."""
    source = EndlessSpy()
    child = TestSubscriber[int](0)
    shared = replay(source, bound).ref_count()
    shared.subscribe(child)  # connects; nothing requested yet
    thread = _in_background(lambda: child.request(MAX_DEMAND))  # pumps for ever
    try:
        assert source.pulling.wait(10)
        child.cancel()  # ref_count 1 -> 0: disconnect
        assert source.cancelled.wait(10), "rule 3.12: the source was never cancelled"
        thread.join(10)
        assert not thread.is_alive()
    finally:
        source.stop()
        thread.join(10)


@pytest.mark.parametrize("bound", [None, 8])
def test_spec312_replay_disconnect_stops_a_synchronous_source(bound: int | None) -> None:
    source = EndlessSpy()
    shared = replay(source, bound, on_disconnect="complete")
    child = TestSubscriber[int](0)
    shared.subscribe(child)
    conn = shared.connect()
    thread = _in_background(lambda: child.request(MAX_DEMAND))  # pumps for ever
    try:
        assert source.pulling.wait(10)
        conn.disconnect()
        assert source.cancelled.wait(10), "rule 3.12: disconnect() never cancelled the source"
        thread.join(10)
        assert not thread.is_alive()
        child.await_terminal(10)
        child.assert_complete()
    finally:
        source.stop()
        thread.join(10)
