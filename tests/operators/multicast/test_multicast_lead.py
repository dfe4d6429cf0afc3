"""publish(lead=N) / share(lead=N): each subscriber at its own pace, the fastest at most N
elements ahead of the slowest (spec/MulticastLead.tla; the ring of ``_lead.py``)."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams import MAX_DEMAND, Flow
from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor, ThreadPoolExecutor
from reactive_streams.multicast import (
    ConnectableFlow,
    DisconnectedError,
    LeadConnection,
    publish,
)
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(60)


class Pushed:
    """A source the test pushes: ``push(k)`` sends the next ``k`` elements (1, 2, ...)
    within what was requested (rule 1.1), recording every request and cancel."""

    def __init__(self) -> None:
        self.downstream: Subscriber[int] | None = None
        self.requests: list[int] = []
        self.sent = 0
        self.cancelled = False

    @property
    def requested(self) -> int:
        return min(sum(self.requests), MAX_DEMAND)

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        self.downstream = subscriber
        outer = self

        class _Link:
            def request(self, n: int) -> None:
                outer.requests.append(n)

            def cancel(self) -> None:
                outer.cancelled = True

        subscriber.on_subscribe(_Link())

    def push(self, k: int | None = None) -> None:
        assert self.downstream is not None
        k = self.requested - self.sent if k is None else k
        assert self.sent + k <= self.requested, "test bug: rule 1.1"
        for _ in range(k):
            self.sent += 1
            self.downstream.on_next(self.sent)


def lead_conn(flow: ConnectableFlow[Any]) -> LeadConnection[Any]:
    conn = flow.connection
    assert isinstance(conn, LeadConnection)
    return conn


def test_the_fast_subscriber_runs_ahead_of_the_slow_by_at_most_the_lead() -> None:
    # lockstep publish holds the fast one at the slow one's single element
    lockstep = publish(rs.range(1, 101), buffer_size=4)
    fast, slow = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int](1)
    lockstep.subscribe(fast)
    lockstep.subscribe(slow)
    lockstep.connect()
    assert fast.values == [1]
    # lead=4: the fast one takes 4 ahead; the slow one keeps its own pace, skipping nothing
    flow = publish(rs.range(1, 101), lead=4)
    fast, slow = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int](1)
    flow.subscribe(fast)
    flow.subscribe(slow)
    conn = lead_conn(flow)
    flow.connect()
    assert fast.values == [1, 2, 3, 4]
    assert slow.values == [1]
    assert conn.buffered == 3
    assert conn.taken == 1
    for step in range(2, 101):
        slow.request(1)
        assert slow.values == list(range(1, step + 1))
        assert len(fast.values) - len(slow.values) <= 4  # the lead
        assert conn.buffered <= 4  # the ring
    fast.assert_values(*range(1, 101)).assert_complete().assert_no_violations()
    slow.assert_values(*range(1, 101)).assert_complete().assert_no_violations()


def test_upstream_requested_minus_taken_never_exceeds_the_lead() -> None:
    source = Pushed()
    flow = publish(source, lead=6)
    a, b = TestSubscriber[int](), TestSubscriber[int]()
    flow.subscribe(a)
    flow.subscribe(b)
    conn = lead_conn(flow)
    flow.connect()
    assert source.requests == [6]  # the whole ring, before any demand (prefetch)
    rng = random.Random(7)
    for _ in range(300):
        rng.choice([a, b]).request(rng.randint(1, 3))
        source.push(rng.randint(0, source.requested - source.sent))
        assert source.requested - conn.taken <= 6, (source.requests, conn.taken)
        assert conn.buffered <= 6
        assert all(n >= 3 for n in source.requests)  # topped up once half is free
    for ts in (a, b):
        assert ts.values == list(range(1, len(ts.values) + 1))  # every element, once, in order
        assert len(ts.values) <= ts.requested  # rule 1.1
        ts.assert_no_violations()


def test_the_slowest_with_demand_is_never_starved_and_a_leave_releases_the_ring() -> None:
    source = Pushed()
    flow = publish(source, lead=4)
    fast, stuck = TestSubscriber[int](MAX_DEMAND), TestSubscriber[int]()
    flow.subscribe(fast)
    flow.subscribe(stuck)
    flow.connect()
    source.push()
    assert fast.values == [1, 2, 3, 4]
    assert source.requested == 4
    stuck.request(2)
    assert stuck.values == [1, 2]
    assert source.requested == 6
    source.push()
    assert fast.values == [1, 2, 3, 4, 5, 6]
    stuck.cancel()  # the slowest leaves: its pressure goes with it
    assert source.requested == 10
    source.push()
    assert fast.values == list(range(1, 11))


def test_a_late_subscriber_starts_at_the_oldest_element_nobody_had() -> None:
    source = Pushed()
    flow = publish(source, lead=4)
    a, b = TestSubscriber[int](2), TestSubscriber[int]()
    flow.subscribe(a)
    flow.subscribe(b)
    flow.connect()
    source.push()
    assert a.values == [1, 2]
    assert source.sent == 4
    late = TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(late)
    assert late.values == [3, 4]  # held, nobody had them; never 1, 2
    b.request(MAX_DEMAND)
    a.request(MAX_DEMAND)
    source.push()
    assert late.values == list(range(3, source.sent + 1))
    assert b.values == a.values == list(range(1, source.sent + 1))


def test_without_subscribers_elements_are_dropped_at_the_sources_pace() -> None:
    source = Pushed()
    flow = publish(source, lead=3)
    conn = lead_conn(flow)
    flow.connect()
    for _ in range(5):
        source.push()
    assert source.sent == 15
    assert conn.buffered == 0
    late = TestSubscriber[int](2)
    flow.subscribe(late)
    source.push()
    assert late.values == [16, 17]


def _slow_and_fast_after_four(
    end: BaseException | None,
) -> tuple[ConnectableFlow[int], TestSubscriber[int], TestSubscriber[int]]:
    """A slow subscriber (1 taken) and a fast one (all 4 held), then the source's end."""
    source = Pushed()
    flow = publish(source, lead=4)
    slow, fast = TestSubscriber[int](1), TestSubscriber[int](MAX_DEMAND)
    flow.subscribe(slow)
    flow.subscribe(fast)
    flow.connect()
    source.push()
    assert source.downstream is not None
    if end is None:
        source.downstream.on_complete()
    else:
        source.downstream.on_error(end)
    return flow, slow, fast


def test_completion_reaches_each_subscriber_after_its_last_element() -> None:
    flow, slow, fast = _slow_and_fast_after_four(None)
    fast.assert_values(1, 2, 3, 4).assert_complete()
    slow.assert_values(1).assert_no_terminal()  # completion waits for its last element
    slow.request(3)
    slow.assert_values(1, 2, 3, 4).assert_complete()
    late = TestSubscriber[int]()
    flow.subscribe(late)
    late.assert_values().assert_complete()  # after the end: the terminal signal at once


def test_source_error_overtakes_the_held_elements() -> None:
    flow, slow, _ = _slow_and_fast_after_four(RuntimeError("boom"))
    slow.assert_values(1).assert_error(RuntimeError)  # the error overtakes 2, 3, 4
    late = TestSubscriber[int]()
    flow.subscribe(late)
    late.assert_error(RuntimeError)


@pytest.mark.parametrize("strategy", ["error", "complete", "none"])
def test_disconnect_strategies_with_a_lead(strategy: Any) -> None:
    source = Pushed()
    flow = publish(source, on_disconnect=strategy, lead=4)
    a, b = TestSubscriber[int](1), TestSubscriber[int](3)
    flow.subscribe(a)
    flow.subscribe(b)
    conn = flow.connect()
    source.push()
    conn.disconnect()
    assert source.cancelled
    a.request(10)
    b.request(10)
    if strategy == "error":
        a.assert_values(1).assert_error(DisconnectedError)
        b.assert_values(1, 2, 3).assert_error(DisconnectedError)
    elif strategy == "complete":
        a.assert_values(1, 2, 3, 4).assert_complete()
        b.assert_values(1, 2, 3, 4).assert_complete()
    else:
        a.assert_values(1).assert_no_terminal()
        b.assert_values(1, 2, 3).assert_no_terminal()


def test_rule_3_9_and_3_17_per_subscriber() -> None:
    flow = publish(rs.range(0, 50), lead=8)
    bad, good = TestSubscriber[int](), TestSubscriber[int]()
    flow.subscribe(bad)
    flow.subscribe(good)
    flow.connect()
    bad.request(0)  # rule 3.9: that subscriber alone gets the error
    bad.assert_error(ValueError)
    good.request(MAX_DEMAND)
    good.request(MAX_DEMAND)  # rule 3.17: saturates, everything flows
    good.assert_values(*range(50)).assert_complete().assert_no_violations()


def test_share_lead_ref_counts_as_share_does() -> None:
    source = Pushed()
    shared = Flow(source).share(lead=4)
    a = TestSubscriber[int](MAX_DEMAND)
    shared.subscribe(a)
    assert source.requests == [4]
    assert shared.subscriber_count == 1
    source.push()
    a.cancel()  # the last one: the source is cancelled (refcount unchanged)
    assert source.cancelled
    assert shared.subscriber_count == 0
    b = TestSubscriber[int](2)
    shared.subscribe(b)  # a fresh connection, a fresh subscription to the source
    source.push(2)
    b.assert_values(5, 6)


def test_lead_validation_names_the_argument() -> None:
    with pytest.raises(ValueError, match="lead must be an int >= 1"):
        publish(rs.range(0, 3), lead=0)
    with pytest.raises(ValueError, match="lead must be an int >= 1"):
        Flow.range(0, 3).share(lead=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="buffer_size or lead, not both"):
        publish(rs.range(0, 3), buffer_size=8, lead=4)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_manual_interleavings_keep_order_and_the_bound(seed: int) -> None:
    rng = random.Random(seed)
    manual = ManualExecutor()
    flow = publish(rs.range(0, 60), executor=manual, batch_size=3, lead=5)
    subs = [TestSubscriber[int]() for _ in range(3)]
    for ts in subs:
        flow.subscribe(ts)
    conn = lead_conn(flow)
    manual.run_all()  # on_subscribe to each
    flow.connect()
    for _ in range(400):
        if len(manual) and rng.random() < 0.6:
            manual.run(rng.randrange(len(manual)))
        else:
            rng.choice(subs).request(rng.randint(1, 4))
        cursors = conn.cursors()
        assert conn.buffered <= 5
        assert not cursors or max(cursors) - min(cursors) <= 5
    for ts in subs:
        ts.request(MAX_DEMAND)
    manual.run_all()
    for ts in subs:
        ts.assert_values(*range(60)).assert_complete().assert_no_violations()


def test_real_threads_a_slow_and_a_fast_subscriber() -> None:
    n = 2000
    with ThreadPoolExecutor(2, name="lead-src") as src_pool, ThreadPoolExecutor(3) as pool:
        flow = publish(rs.range(0, n, executor=src_pool), executor=pool, lead=32)
        fast, slow = TestSubscriber[int](), TestSubscriber[int]()
        flow.subscribe(fast)
        flow.subscribe(slow)
        fast.await_subscribed(10)
        slow.await_subscribed(10)
        flow.connect()
        fast.request(MAX_DEMAND)

        def crawl() -> None:
            for asked in range(7, n + 7, 7):
                slow.request(7)
                slow.await_count(min(asked, n), 10)

        thread = threading.Thread(target=crawl)
        thread.start()
        thread.join(30)
        assert not thread.is_alive()
        for ts in (fast, slow):
            ts.await_terminal(30)
            ts.assert_values(*range(n)).assert_complete().assert_no_violations()  # 1.3
