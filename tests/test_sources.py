"""Publisher and Subscription rules on the built-in sources, synchronous and on executors."""

from __future__ import annotations

import gc
import logging
import random
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams import MAX_DEMAND, ManualExecutor, ThreadPoolExecutor, sources
from reactive_streams.flow import set_fusion
from reactive_streams.sources import ScalarPublisher, Sink
from reactive_streams.testing import (
    TestSubscriber,
    spec101_delivered_leq_requested_inv,
    spec103_serial_signals_inv,
)


def run(publisher: rs.Publisher[Any], initial: int = 0, **kw: Any) -> TestSubscriber[Any]:
    ts: TestSubscriber[Any] = TestSubscriber(initial, **kw)
    publisher.subscribe(ts)
    return ts


# ------------------------------------------------------------------- section 1
def test_spec101_never_more_than_requested() -> None:
    ts = run(rs.range(0, 100), 3)
    ts.assert_values(0, 1, 2).assert_no_terminal().assert_no_violations()
    ts.request(2)
    ts.assert_values(0, 1, 2, 3, 4).assert_no_terminal()


def test_spec101_never_more_than_requested_on_an_executor(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 100, executor=manual), 3)
    assert ts.subscription is None  # on_subscribe comes from the executor
    manual.run_all()
    ts.assert_values(0, 1, 2).assert_no_terminal().assert_no_violations()
    ts.request(1)
    ts.assert_value_count(3)  # in flight until the drain task runs
    manual.run_all()
    ts.assert_value_count(4)


def test_spec102_may_signal_less_than_requested_and_complete() -> None:
    run(rs.range(5, 8), 10).assert_values(5, 6, 7).assert_complete()


def test_spec102_known_length_completes_without_extra_demand() -> None:
    run(rs.just("a", "b"), 2).assert_values("a", "b").assert_complete()
    run(rs.from_iterable([1, 2, 3]), 3).assert_values(1, 2, 3).assert_complete()
    run(rs.from_callable(lambda: 42), 1).assert_values(42).assert_complete()


def test_spec102_unknown_length_completes_on_next_demand() -> None:
    ts = run(rs.from_iterable(x for x in (1, 2)), 2)
    ts.assert_values(1, 2).assert_no_terminal()
    ts.request(1)
    ts.assert_values(1, 2).assert_complete()


def test_spec104_error_is_signalled_without_demand() -> None:
    boom = RuntimeError("boom")
    ts = run(rs.error(boom))
    assert ts.errors == [boom]
    ts.assert_error(RuntimeError, match="boom")


def test_spec104_a_failing_iterator_is_signalled_as_on_error() -> None:
    def failing() -> Iterator[int]:
        yield 1
        raise KeyError("source failure")

    ts = run(rs.from_iterable(failing()), 5)
    ts.assert_values(1).assert_error(KeyError, match="source failure")


def test_spec105_empty_completes_without_demand(manual: ManualExecutor) -> None:
    run(rs.empty()).assert_values().assert_complete()
    run(rs.range(7, 7)).assert_complete()
    ts = run(rs.empty(executor=manual))
    ts.assert_no_terminal()
    manual.run_all()
    ts.assert_complete()


def test_spec107_no_signal_after_terminal() -> None:
    ts = run(rs.range(0, 2), 2)
    ts.assert_complete()
    ts.request(5)
    ts.cancel()
    ts.assert_values(0, 1).assert_complete()
    assert [s.kind for s in ts.signals] == ["on_subscribe", "on_next", "on_next", "on_complete"]


def test_spec109_subscribe_none_raises_type_error() -> None:
    with pytest.raises(TypeError, match=r"rule 1\.9"):
        sources.range(0, 1).subscribe(None)  # type: ignore[arg-type]


def test_spec109_on_subscribe_comes_first_and_once() -> None:
    ts = run(rs.range(0, 3), 10)
    assert ts.signals[0].kind == "on_subscribe"
    assert [s.kind for s in ts.signals].count("on_subscribe") == 1


def test_spec109_failure_to_start_is_on_error_after_on_subscribe() -> None:
    class Broken:
        def __iter__(self) -> Iterator[int]:
            raise OSError("cannot open")

    ts = run(rs.from_iterable(Broken()))
    assert [s.kind for s in ts.signals] == ["on_subscribe", "on_error"]
    ts.assert_error(OSError, match="cannot open")


def test_spec111_each_subscriber_gets_its_own_subscription() -> None:
    publisher = rs.range(0, 4)
    a = run(publisher, 2)
    b = run(publisher, 4)
    a.assert_values(0, 1).assert_no_terminal()
    b.assert_values(0, 1, 2, 3).assert_complete()
    assert a.subscription is not b.subscription


def test_spec113_on_next_none_is_prevented_with_type_error() -> None:
    ts = run(rs.from_iterable([1, None, 3]), 10)
    ts.assert_values(1).assert_error(TypeError, match=r"rule 2\.13")


def test_spec113_from_callable_returning_none(manual: ManualExecutor) -> None:
    run(rs.from_callable(lambda: None), 1).assert_error(TypeError, match=r"rule 2\.13")
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        rs.just(1, None)


def test_spec201_on_subscribe_delivered_from_executor_thread() -> None:
    with ThreadPoolExecutor(2) as pool:
        ts = run(rs.range(0, 10, executor=pool), MAX_DEMAND)
        ts.await_terminal(10).assert_complete()
    threads = {s.thread for s in ts.signals}
    assert threading.get_ident() not in threads
    ts.assert_values(*range(10))


# ----------------------------------------------------------------- rule 2.13
def test_spec213_raising_on_next_cancels_logs_and_never_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def hook(ts: TestSubscriber[int], item: int) -> None:
        if item == 2:
            raise RuntimeError("subscriber fault")

    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        ts = run(rs.range(0, 10), MAX_DEMAND, on_next_hook=hook)  # does not raise
    ts.assert_values(0, 1, 2).assert_no_terminal()
    assert "subscriber fault" in caplog.text
    assert "rule 2.13" in caplog.text
    [record] = caplog.records  # the exact record (make mutation: its text and fault)
    assert record.getMessage() == (
        f"rule 2.13: on_next raised from {ts.subscription!r}; subscription cancelled"
    )
    assert record.exc_info is not None
    assert str(record.exc_info[1]) == "subscriber fault"


def test_spec104_a_rejected_drain_task_is_on_error_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Rule 1.4 (with 1.9): an executor that refuses the drain task ends the stream with
    its error, signalled on the caller's thread; the refusal is logged once."""

    class Refusing:
        def execute(self, task: Any) -> None:
            raise RuntimeError("executor full")

    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        ts = run(rs.range(0, 3, executor=Refusing()), 2)
    ts.assert_values()
    assert [str(e) for e in ts.errors] == ["executor full"]
    [record] = caplog.records
    assert record.getMessage() == f"{ts.subscription!r}: the executor rejected the drain task"
    assert record.exc_info is not None
    assert record.exc_info[1] is ts.errors[0]


def test_spec213_raising_on_next_bounded_and_async(manual: ManualExecutor) -> None:
    def hook(ts: TestSubscriber[int], item: int) -> None:
        raise RuntimeError("fault")

    ts = run(rs.range(0, 10), 5, on_next_hook=hook)
    ts.assert_values(0).assert_no_terminal()
    ts.request(3)  # rule 3.6: cancelled, so a no-op
    ts.assert_values(0)
    ts2 = run(rs.range(0, 10, executor=manual), 5, on_next_hook=hook)
    manual.run_all()
    ts2.assert_values(0).assert_no_terminal()


def test_spec213_raising_on_subscribe_cancels(caplog: pytest.LogCaptureFixture) -> None:
    class Bad(TestSubscriber[int]):
        def on_subscribe(self, subscription: rs.Subscription) -> None:
            super().on_subscribe(subscription)
            raise RuntimeError("on_subscribe fault")

    ts = Bad(5)
    rs.range(0, 10).subscribe(ts)
    assert "on_subscribe fault" in caplog.text
    ts.assert_values().assert_no_terminal()


def test_spec213_raising_on_complete_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    class Bad(TestSubscriber[int]):
        def on_complete(self) -> None:
            super().on_complete()
            raise RuntimeError("on_complete fault")

    ts = Bad(5)
    rs.range(0, 1).subscribe(ts)
    ts.assert_complete()
    assert "on_complete fault" in caplog.text


# ------------------------------------------------------------------- section 3
def test_spec303_request_from_on_next_trampolines_over_100k_elements() -> None:
    depth = 0
    max_depth = 0
    frame_depths: set[int] = set()

    def frames() -> int:
        f = sys._getframe()
        n = 0
        while f is not None:
            n += 1
            f = f.f_back  # type: ignore[assignment]
        return n

    def hook(ts: TestSubscriber[int], item: int) -> None:
        nonlocal depth, max_depth
        depth += 1
        max_depth = max(max_depth, depth)
        if item % 1000 == 0:
            frame_depths.add(frames())
        ts.request(1)
        depth -= 1

    ts = run(rs.range(0, 100_000), 1, on_next_hook=hook)
    ts.assert_value_count(100_000).assert_complete()
    assert max_depth == 1  # on_next never re-entered from request (rule 3.3)
    assert len(frame_depths) == 1  # the stack does not grow
    assert min(frame_depths) < 80


def test_spec303_request_from_on_next_on_an_executor_stays_flat(manual: ManualExecutor) -> None:
    depth = 0
    max_depth = 0

    def hook(ts: TestSubscriber[int], item: int) -> None:
        nonlocal depth, max_depth
        depth += 1
        max_depth = max(max_depth, depth)
        ts.request(1)
        depth -= 1

    ts = run(rs.range(0, 5000, executor=manual, batch_size=16), 1, on_next_hook=hook)
    manual.run_all()
    ts.assert_value_count(5000).assert_complete()
    assert max_depth == 1


def test_spec305_spec307_cancel_is_idempotent(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 10), 2)
    for _ in range(3):
        ts.cancel()
    ts.assert_values(0, 1).assert_no_terminal()
    ts2 = run(rs.range(0, 10, executor=manual), 2)
    manual.run_all()
    for _ in range(3):
        ts2.cancel()
    assert len(manual) == 1  # one drain task for the cancel, not three
    manual.run_all()
    ts2.assert_values(0, 1).assert_no_terminal()


def test_spec306_request_after_cancel_is_a_no_op(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 10), 1)
    ts.cancel()
    ts.request(5)
    ts.request(0)  # not even the rule 3.9 error (rule 3.6 first)
    ts.assert_values(0).assert_no_terminal()
    ts2 = run(rs.range(0, 10, executor=manual), 1)
    manual.run_all()
    ts2.cancel()
    ts2.request(5)
    manual.run_all()
    ts2.assert_values(0).assert_no_terminal()


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "3"])
def test_spec309_invalid_request_signals_value_error(bad: Any) -> None:
    ts = run(rs.range(0, 10), 1)
    ts.request(bad)  # never raises
    ts.assert_values(0).assert_error(ValueError, match=r"rule 3\.9: request\(n\)")
    ts.request(1)
    ts.assert_values(0)


def test_spec309_invalid_request_on_an_executor(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 10, executor=manual))
    manual.run_all()
    ts.request(-5)
    ts.assert_no_terminal()  # in flight
    manual.run_all()
    ts.assert_values().assert_error(ValueError, match=r"rule 3\.9: .* got -5")


def test_spec309_invalid_request_from_on_next_is_signalled_after_it_returns() -> None:
    ts = run(rs.range(0, 10), 3, on_next_hook=lambda ts, item: ts.request(0))
    ts.assert_values(0).assert_error(ValueError, match=r"rule 3\.9")


def test_spec312_cancel_in_flight_stops_emission(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 10, executor=manual))
    manual.run_all()
    ts.request(5)
    ts.cancel()
    manual.run_all()
    ts.assert_values().assert_no_terminal()


def test_spec312_cancel_from_on_next_stops_the_fast_path() -> None:
    def hook(ts: TestSubscriber[int], item: int) -> None:
        if item == 3:
            ts.cancel()

    run(rs.range(0, 1000), MAX_DEMAND, on_next_hook=hook).assert_values(0, 1, 2, 3)
    run(rs.range(0, 1000), 50, on_next_hook=hook).assert_values(0, 1, 2, 3)


class _Probe:
    """A subscriber that only holds its subscription."""

    def __init__(self, request: int) -> None:
        self.request = request
        self.subscription: rs.Subscription | None = None

    def on_subscribe(self, subscription: rs.Subscription) -> None:
        self.subscription = subscription
        if self.request:
            subscription.request(self.request)

    def on_next(self, item: object) -> None:
        pass

    def on_error(self, error: BaseException) -> None:
        pass

    def on_complete(self) -> None:
        pass


@pytest.mark.parametrize("use_executor", [False, True])
def test_spec313_cancel_drops_references_to_subscriber_and_source(use_executor: bool) -> None:
    manual = ManualExecutor()

    class Source:
        def __iter__(self) -> Iterator[int]:
            return iter(range(100))

    source = Source()
    probe = _Probe(2)
    rs.from_iterable(source, executor=manual if use_executor else None).subscribe(probe)
    manual.run_all()
    subscription = probe.subscription
    assert subscription is not None
    probe_ref = weakref.ref(probe)
    source_ref = weakref.ref(source)
    del probe, source
    gc.collect()
    assert probe_ref() is not None  # the live subscription holds them
    subscription.cancel()
    manual.run_all()
    gc.collect()
    assert probe_ref() is None
    assert source_ref() is None


def test_spec313_terminal_drops_references() -> None:
    probe = _Probe(10)
    rs.range(0, 3).subscribe(probe)
    subscription = probe.subscription
    probe_ref = weakref.ref(probe)
    del probe
    gc.collect()
    assert probe_ref() is None
    assert subscription is not None


def test_spec317_demand_accumulates_up_to_unbounded() -> None:
    ts = run(rs.range(0, 50), MAX_DEMAND - 1)
    ts.request(MAX_DEMAND)  # would overflow a Java long
    ts.request(MAX_DEMAND)
    ts.assert_value_count(50).assert_complete()


def test_spec317_unbounded_on_an_executor_batches(manual: ManualExecutor) -> None:
    ts = run(rs.range(0, 1000, executor=manual, batch_size=100), MAX_DEMAND)
    manual.run_next()
    ts.assert_value_count(100)  # one task emits one batch, then re-schedules
    assert len(manual) == 1
    manual.run_all()
    ts.assert_value_count(1000).assert_complete()


def test_spec317_many_small_requests_sum_up() -> None:
    ts = run(rs.range(0, 100), 0)
    for _ in range(100):
        ts.request(1)
    ts.assert_value_count(100).assert_complete()


# -------------------------------------------------------------- other sources
def test_generate_honours_demand_and_state() -> None:
    calls = 0

    def fib(state: tuple[int, int], sink: Sink[int]) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        a, b = state
        if a > 50:
            sink.complete()
        else:
            sink.next(a)
        return b, a + b

    ts = run(rs.generate((0, 1), fib), 3)
    ts.assert_values(0, 1, 1).assert_no_terminal()
    assert calls == 3  # the generator runs only on demand
    ts.request(100)
    ts.assert_values(0, 1, 1, 2, 3, 5, 8, 13, 21, 34).assert_complete()


def test_generate_error_and_double_next() -> None:
    def failing(state: int, sink: Sink[int]) -> int:
        if state == 2:
            sink.error(LookupError("generated failure"))
        else:
            sink.next(state)
        return state + 1

    run(rs.generate(0, failing), 10).assert_values(0, 1).assert_error(LookupError)

    def twice(state: int, sink: Sink[int]) -> int:
        sink.next(1)
        sink.next(2)
        return state

    run(rs.generate(0, twice), 10).assert_error(RuntimeError, match="twice")


def _next_then_error(state: int, sink: Sink[int]) -> int:
    sink.next(state)
    sink.error(LookupError("recorded with the last element"))
    return state + 1


def _next_then_complete(state: int, sink: Sink[int]) -> int:
    sink.next(state)
    sink.complete()
    return state + 1


_EAGER_PIPELINES: dict[str, Any] = {
    "generate": lambda gen: rs.generate(0, gen),
    "generate-executor": lambda gen: rs.generate(0, gen, executor=rs.ImmediateExecutor()),
    "fused-map": lambda gen: rs.Flow.from_publisher(rs.generate(0, gen)).map(lambda x: x),
    "observe_on": lambda gen: rs.Flow.from_publisher(rs.generate(0, gen)).observe_on(
        rs.ImmediateExecutor(), 1
    ),
    "flat_map-inner": lambda gen: rs.Flow.range(0, 1).flat_map(
        lambda _: rs.Flow.from_publisher(rs.generate(0, gen)), 1, 1
    ),
    "flat_map-upstream": lambda gen: rs.Flow.from_publisher(rs.generate(0, gen)).flat_map(
        rs.Flow.just, 1
    ),
}


@pytest.mark.parametrize("fusion", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("pipeline", sorted(_EAGER_PIPELINES))
def test_generate_error_is_as_eager_as_complete(pipeline: str, fusion: bool) -> None:
    """Rule 1.4: ``sink.next(v); sink.error(e)`` signals ``on_error`` right after ``v``,
    without waiting for more demand, exactly as ``sink.complete()`` completes."""
    previous = set_fusion(fusion)
    try:
        # synchronous (an ImmediateExecutor at most): the terminal is there on return
        run(_EAGER_PIPELINES[pipeline](_next_then_complete), 1).assert_values(0).assert_complete()
        failed = run(_EAGER_PIPELINES[pipeline](_next_then_error), 1)
        failed.assert_error(LookupError)
        # a fused flat_map inner's known error cancels it at once, as any inner error does
        assert failed.values == [0] or (pipeline == "flat_map-inner" and fusion), failed
    finally:
        set_fusion(previous)


def test_from_callable_is_lazy_and_per_subscription() -> None:
    calls: list[int] = []

    def produce() -> int:
        calls.append(1)
        return len(calls)

    publisher = rs.from_callable(produce)
    ts = run(publisher, 0)
    assert calls == []
    ts.request(1)
    ts.assert_values(1).assert_complete()
    run(publisher, 1).assert_values(2).assert_complete()


def test_from_callable_failure_is_on_error() -> None:
    def fail() -> int:
        raise ZeroDivisionError("division")

    run(rs.from_callable(fail), 1).assert_error(ZeroDivisionError)


def test_range_rejects_a_zero_step() -> None:
    with pytest.raises(ValueError, match="step"):
        rs.range(0, 5, 0)


@pytest.mark.parametrize("executor_kind", ["sync", "manual"])
def test_large_range_values_in_order(executor_kind: str) -> None:
    manual = ManualExecutor()
    ts = run(rs.range(2**62, 2**62 + 3, executor=manual if executor_kind == "manual" else None), 5)
    manual.run_all()
    ts.assert_values(2**62, 2**62 + 1, 2**62 + 2).assert_complete()


# ----------------------------------------------------- concurrency + tracing
@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", ["pool", "sync"])
def test_spec103_spec101_eight_threads_request_and_cancel_concurrently(
    mode: str, tracer: rs.Tracer
) -> None:
    iterations = 60 if mode == "pool" else 80
    rng = random.Random(1234)
    with ThreadPoolExecutor(3) as pool:
        for _ in range(iterations):
            ts: TestSubscriber[int] = TestSubscriber(1)
            executor = pool if mode == "pool" else None
            rs.range(0, 400, executor=executor, batch_size=rng.choice([1, 7, 64])).subscribe(ts)
            ts.await_subscribed(10)
            barrier = threading.Barrier(8)
            plan = [(rng.randint(1, 40), rng.random() < 0.15) for _ in range(8)]

            def worker(
                n: int,
                cancels: bool,
                ts: TestSubscriber[int] = ts,
                barrier: threading.Barrier = barrier,
            ) -> None:
                barrier.wait(10)
                for _ in range(5):
                    ts.request(n)
                if cancels:
                    ts.cancel()

            threads = [threading.Thread(target=worker, args=p) for p in plan]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(20)
                assert not thread.is_alive()
            if not any(c for _, c in plan):
                ts.await_count(min(400, ts.requested), 20)
            ts.assert_no_violations()
            assert len(ts.values) <= ts.requested
            assert ts.values == list(range(len(ts.values)))
    events = list(tracer.events)
    assert len(tracer.subscriptions()) == iterations
    assert spec101_delivered_leq_requested_inv(events) == []
    assert spec103_serial_signals_inv(events) == []
    assert sum(e["sig"] == "cancel" for e in events) > 0
    assert sum(e["sig"] == "send_on_next" for e in events) > iterations * 10


# ------------------------------------------------------------------ tracing
def _sigs(events: list[dict[str, Any]]) -> list[str]:
    return [e["sig"] for e in events]


def test_tracing_is_off_by_default() -> None:
    from reactive_streams import tracing

    assert tracing.current_tracer() is None
    ts = run(rs.range(0, 3), 3)
    assert ts.subscription is not None
    assert ts.subscription.subscription_id == 0  # type: ignore[attr-defined]


def test_trace_of_a_synchronous_subscription(tracer: rs.Tracer) -> None:
    ts = run(rs.range(0, 2), 0)
    ts.request(5)
    ts.request(0)  # after completion: request only, no recv (rule 3.6)
    ts.cancel()
    assert _sigs(tracer.events) == [
        "subscribe",
        "send_on_subscribe",
        "begin_on_subscribe",
        "end_on_subscribe",
        "request",
        "recv_request",
        "send_on_next",
        "begin_on_next",
        "end_on_next",
        "send_on_next",
        "begin_on_next",
        "end_on_next",
        "send_on_complete",
        "begin_on_complete",
        "end_on_complete",
        "end_request",  # request(5) returns once its drain delivered (format version 2)
        "request",
        "end_request",
        "cancel",
        "end_cancel",
    ]
    assert [e["clock"] for e in tracer.events] == list(range(1, 21))
    assert {e["sub"] for e in tracer.events} == {1}
    assert tracer.events[4]["n"] == 5
    assert tracer.events[16]["n"] == 0
    seqs = [e.get("seq") for e in tracer.events if e["sig"].endswith("on_next")]
    assert seqs == [1] * 3 + [2] * 3
    assert all(e["raised"] is False for e in tracer.events if e["sig"].startswith("end_on_"))
    assert all(isinstance(e["thread"], int) for e in tracer.events)


def test_trace_of_an_asynchronous_subscription_shows_messages_in_flight(
    tracer: rs.Tracer, manual: ManualExecutor
) -> None:
    ts = run(rs.range(0, 5, executor=manual), 0)
    assert _sigs(tracer.events) == ["subscribe"]
    manual.run_all()
    ts.request(2)
    ts.request(True)
    assert _sigs(tracer.events)[-4:] == ["request", "end_request", "request", "end_request"]
    assert tracer.events[-2]["n"] is None
    manual.run_all()
    sigs = _sigs(tracer.events)
    assert sigs[4:] == [
        "request",
        "end_request",  # queued for the drain task: the call returns at once
        "request",
        "end_request",
        "recv_request",
        "recv_request",
        "send_on_error",
        "begin_on_error",
        "end_on_error",
    ]
    assert tracer.events[-3]["error"].startswith("ValueError: rule 3.9")
    ts.assert_error(ValueError)


def test_trace_records_raising_subscriber_and_its_cancel(tracer: rs.Tracer) -> None:
    def hook(ts: TestSubscriber[int], item: int) -> None:
        raise RuntimeError("fault")

    run(rs.range(0, 5), 2, on_next_hook=hook)
    sigs = _sigs(tracer.events)
    assert sigs[-6:] == [
        "send_on_next",
        "begin_on_next",
        "end_on_next",
        "cancel",
        "recv_cancel",
        "end_cancel",
    ]
    assert tracer.events[-4]["raised"] is True


def test_trace_to_jsonl(tracer: rs.Tracer, tmp_path: Any) -> None:
    import json

    run(rs.just(1), 1)
    path = tmp_path / "trace.jsonl"
    tracer.to_jsonl(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == tracer.events
    from reactive_streams.tracing import SIGNALS

    assert {e["sig"] for e in lines} <= SIGNALS
    assert len(lines) == 13


def test_just_of_one_is_a_full_scalar_publisher() -> None:
    scalar = sources.just("x")
    assert isinstance(scalar, ScalarPublisher)
    assert isinstance(scalar, sources.IterablePublisher)
    assert scalar.value == "x"
    ts: TestSubscriber[str] = TestSubscriber(0)
    scalar.subscribe(ts)
    ts.assert_value_count(0).assert_no_terminal()
    ts.request(1)
    ts.assert_values("x").assert_complete().assert_no_violations()
    again: TestSubscriber[str] = TestSubscriber(5)
    scalar.subscribe(again)  # cold: every subscriber gets the value (rule 1.11)
    again.assert_values("x").assert_complete()
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        rs.just(None)
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        ScalarPublisher(None)


# ------------------------------- the sources' names and messages (make mutation)


def test_spec213_sources_refuse_none_with_the_rule_in_the_message() -> None:
    for make in (lambda: ScalarPublisher(None), lambda: rs.just(None), lambda: rs.just(1, None)):
        with pytest.raises(TypeError) as raised:
            make()
        assert str(raised.value) == "rule 2.13: just() items must not be None"
    with pytest.raises(TypeError) as raised:
        sources.error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: error() requires an exception, got None"
    sink: Sink[int] = Sink()
    sink.error(ValueError("first"))
    with pytest.raises(RuntimeError) as finished:
        sink.error(ValueError("second"))
    assert str(finished.value) == "generate: the sink was already completed or failed"
    with pytest.raises(RuntimeError) as finished:
        sink.complete()
    assert str(finished.value) == "generate: the sink was already completed or failed"
    with pytest.raises(RuntimeError) as finished:
        sink.next(1)
    assert str(finished.value) == "generate: sink.next called after complete/error"
    twice: Sink[int] = Sink()
    twice.next(1)
    with pytest.raises(RuntimeError) as finished:
        twice.next(2)
    assert str(finished.value) == "generate: sink.next called twice in one generator call"


def test_a_scalar_publisher_built_directly_emits_its_value() -> None:
    ts = run(ScalarPublisher(7), 1)
    ts.assert_values(7).assert_complete()


def test_error_and_from_callable_run_on_their_executor(manual: ManualExecutor) -> None:
    assert repr(sources.empty()) == "<empty publisher>"
    failing = sources.error(OSError("boom"), executor=manual)
    assert repr(failing) == "<error publisher>"
    ts = run(failing)
    assert ts.errors == []  # nothing on the caller's thread: the executor signals
    manual.run_all()
    assert [str(e) for e in ts.errors] == ["boom"]
    for publisher in (
        sources.from_callable(lambda: 5, executor=manual),
        rs.just(5, 6, executor=manual),
    ):
        ts = run(publisher, 2)
        ts.assert_values()  # nothing on the caller's thread
        manual.run_all()
        assert ts.values[0] == 5
        ts.assert_complete()


def test_spec213_the_none_error_names_its_source_or_none() -> None:
    import functools

    from reactive_streams._core.downstream import null_element_error, null_from, where

    assert str(null_element_error()) == "rule 2.13: a publisher must not signal on_next(None)"
    assert where("map", functools.partial(int)) == "map(partial)"  # no __name__: the type
    assert where("map", len) == "map(len)"

    class Odd:
        _where = 5  # not a name: ignored

    assert str(null_from(Odd())) == str(null_element_error())


def test_range_and_from_iterable_pass_their_batch_size_and_name(manual: ManualExecutor) -> None:
    makers: list[Callable[[], rs.Publisher[int]]] = [
        lambda: sources.range(0, 10, executor=manual, batch_size=3),
        lambda: sources.from_iterable(list(range(10)), executor=manual, batch_size=3),
        lambda: sources.from_iterable(iter(range(10)), executor=manual, batch_size=3),
    ]
    for make in makers:
        ts = run(make(), 10)
        manual.run_next()
        manual.run_next()
        ts.assert_values(0, 1, 2, 3, 4, 5)  # 3 per task (fairness), nothing before
        manual.run_all()
        ts.assert_values(*range(10)).assert_complete()
    assert repr(sources.range(0, 10)) == "<range publisher>"

    def count(state: int, sink: Sink[int]) -> int:
        sink.next(state)
        if state == 9:
            sink.complete()
        return state + 1

    ts = run(sources.generate(0, count, executor=manual, batch_size=3), 10)
    ts.assert_values()  # on its executor: nothing before a task runs
    manual.run_next()
    manual.run_next()
    ts.assert_values(0, 1, 2, 3, 4, 5)  # 3 per task
    manual.run_all()
    ts.assert_values(*range(10)).assert_complete()
    assert repr(sources.generate(0, count)) == "<generate publisher>"
    assert repr(sources.from_iterable([1])) == "<from_iterable publisher>"
    assert repr(sources.from_iterable(iter([1]))) == "<from_iterable publisher>"  # one-shot
    assert repr(sources.IterablePublisher(lambda: iter([1]))) == "<iterable publisher>"
    with pytest.raises(TypeError) as scalar_none:
        sources.just(1).subscribe(None)  # type: ignore[arg-type]
    assert str(scalar_none.value) == (
        "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    )
    with pytest.raises(ValueError, match=r"^range: step must not be zero$"):
        sources.range(0, 5, 0)


def test_range_takes_the_builtins_arguments_and_names_its_hop() -> None:
    """``range(stop)``, ``range(start, stop, step)``: the builtin's elements, on every
    construction path (the inline one, the scalar one, the executor's); each names itself
    ``range`` in its repr and in the trace's ``subscribe`` event."""
    from reactive_streams.tracing import tracing

    manual = ManualExecutor()
    assert run(sources.range(3), MAX_DEMAND).values == [0, 1, 2]
    assert run(sources.range(1, 8, 3), MAX_DEMAND).values == [1, 4, 7]
    on_executor = run(sources.range(4, executor=manual), MAX_DEMAND)
    manual.run_all()
    assert on_executor.values == [0, 1, 2, 3]
    assert repr(sources.range(0, 5, executor=manual)) == "<range publisher>"
    assert repr(sources.range(0, 5)) == "<range publisher>"
    with tracing() as tracer:
        run(sources.range(0, 5), MAX_DEMAND)
    assert [e.get("hop") for e in tracer.events if e["sig"] == "subscribe"] == ["range"]
