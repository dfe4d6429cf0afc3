"""observe_on, subscribe_on, limit_rate: bounded prefetch, bulk replenishment after 75 %,
delivery on the executor, serial signals (1.3), cancel (3.12), errors after queued elements."""

from __future__ import annotations

import threading

import pytest

from reactive_streams.executors import ManualExecutor, SingleThreadExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import Probe, PushPublisher, inject_on_leave


def test_observe_on_prefetch_bound_and_replenish_at_75_percent(manual: ManualExecutor) -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(0)
    probe.source(range(100)).observe_on(manual, prefetch=8).subscribe(ts)
    assert probe.requests == []  # everything upstream waits for the drain
    manual.run_all()
    assert probe.requests == [8]  # prefetch, requested from the drain
    ts.request(5)
    manual.run_all()
    ts.assert_values(0, 1, 2, 3, 4)
    assert probe.requests == [8]  # 5 < 6 = 75 % of 8
    ts.request(1)
    manual.run_all()
    assert probe.requests == [8, 6]
    ts.request(1000)
    manual.run_all()
    ts.assert_value_count(100).assert_complete()
    # replenished in bulk when a delivery stops: at least 75 %, never past the window
    assert all(6 <= n <= 8 for n in probe.requests[1:]), probe.requests
    assert sum(probe.requests) - 100 <= 8


def test_observe_on_replenishes_in_bulk_once_its_queue_runs_dry(manual: ManualExecutor) -> None:
    # a producer on another thread is asked once per window, for everything delivered,
    # when the drain's delivery stops, not at 75 % mid-run (bench/README.md, "Thread hops")
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1000)
    Flow(upstream).observe_on(manual, prefetch=8).subscribe(ts)
    manual.run_all()
    assert upstream.requested == [8]
    upstream.push(*range(8))
    manual.run_all()
    ts.assert_value_count(8)
    assert upstream.requested == [8, 8]  # one request for the window (not 6, then 2 more)
    upstream.push(*range(5))  # fewer than 75 %: no request yet
    manual.run_all()
    assert upstream.requested == [8, 8]
    upstream.push(5, 6)
    manual.run_all()
    ts.assert_value_count(15).assert_no_violations()
    assert upstream.requested == [8, 8, 7]  # the window stays 8: 15 delivered, 23 asked


def test_spec101_observe_on_never_exceeds_demand(manual: ManualExecutor, fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(3)
    Flow.range(0, 50).observe_on(manual, prefetch=16).subscribe(ts)
    manual.run_all()
    ts.assert_values(0, 1, 2).assert_no_terminal().assert_no_violations()
    ts.request(47)
    manual.run_all()
    ts.assert_value_count(50).assert_complete()


def test_observe_on_delivers_every_signal_on_the_executor_thread() -> None:
    with SingleThreadExecutor(name="obs") as executor:
        threads: set[str] = set()
        done = threading.Event()
        Flow.range(0, 1000).map(lambda x: x).observe_on(executor).subscribe(
            lambda x: threads.add(threading.current_thread().name),
            on_complete=done.set,
        )
        assert done.wait(10)
        assert threads == {"obs-0"}


def test_observe_on_error_follows_the_queued_elements(manual: ManualExecutor, fusion: bool) -> None:
    def f(x: int) -> int:
        if x == 3:
            raise KeyError(x)
        return x

    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(0, 10).map(f).observe_on(manual, prefetch=8).subscribe(ts)
    manual.run_all()
    ts.assert_values().assert_no_terminal()  # no demand: the error waits behind 0, 1, 2
    ts.request(2)
    manual.run_all()
    ts.assert_values(0, 1).assert_no_terminal()
    ts.request(1)
    manual.run_all()
    ts.assert_values(0, 1, 2).assert_error(KeyError)


def test_spec312_observe_on_cancel_reaches_upstream_through_the_drain(
    manual: ManualExecutor,
) -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2)
    probe.source(range(100)).observe_on(manual, prefetch=4).subscribe(ts)
    manual.run_all()
    ts.cancel()
    manual.run_all()
    assert probe.cancelled == 1
    ts.request(10)
    manual.run_all()
    ts.assert_values(0, 1).assert_no_terminal()


def test_spec309_observe_on_invalid_request(manual: ManualExecutor, fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(0, 10).observe_on(manual).subscribe(ts)
    manual.run_all()
    ts.request(-1)
    manual.run_all()
    ts.assert_error(ValueError, "rule 3.9")


def test_subscribe_on_subscribes_and_emits_on_the_executor(manual: ManualExecutor) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.range(0, 5).map(lambda x: x * 10).subscribe_on(manual).subscribe(ts)
    assert ts.subscription is None  # nothing until the executor runs
    manual.run_all()
    ts.assert_values(0, 10)
    ts.request(10)
    assert ts.values == [0, 10]  # the request is a task too
    manual.run_all()
    ts.assert_values(0, 10, 20, 30, 40).assert_complete()


def test_subscribe_on_then_observe_on_on_threads(fusion: bool) -> None:
    with SingleThreadExecutor(name="a") as a, SingleThreadExecutor(name="b") as b:
        ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
        Flow.range(0, 10_000).subscribe_on(a).observe_on(b, prefetch=32).subscribe(ts)
        ts.await_terminal(10).assert_complete()
        assert ts.values == list(range(10_000))
        assert {s.thread for s in ts.signals} == {b._threads[0].ident}


def test_limit_rate_bounds_upstream_requests() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
    probe.source(range(20)).limit_rate(8).subscribe(ts)
    ts.assert_value_count(20).assert_complete()
    assert probe.requests[0] == 8
    assert set(probe.requests[1:]) == {6}


def test_limit_rate_asks_75_percent_batches_even_with_elements_queued() -> None:
    # limit_rate shapes upstream requests (Reactor's limitRate): unlike observe_on's bulk
    # replenish, it asks for exactly 75 % at once, whatever is still queued
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).limit_rate(8).subscribe(ts)
    assert upstream.requested == [8]
    upstream.push(*range(8))  # queued: no demand yet
    ts.request(100)
    ts.assert_value_count(8)
    assert upstream.requested == [8, 6]  # at the 6th, with 2 still queued


def test_an_element_arriving_while_the_drain_leaves_is_delivered(
    manual: ManualExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """on_next wakes only an idle drain (no lock per element); one that arrives between
    the drain's last round and its exit must still be delivered (no lost wake-up)."""
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(10)
    Flow(upstream).observe_on(manual, 8).subscribe(ts)
    manual.run_all()
    injected = inject_on_leave(monkeypatch, upstream)  # the drain, still held, is not woken
    subscriber = upstream.subscriber
    assert subscriber is not None
    subscriber.on_next(1)
    manual.run_all()
    assert injected == [2]
    ts.assert_values(1, 2).assert_no_violations()
