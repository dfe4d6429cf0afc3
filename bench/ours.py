"""Our workloads: the seed benchmarks (range, flat_map, rangeAsync, rangePipeline)
on :mod:`reactive_streams`. The package is imported inside each setup, so the
orchestrator can list these workloads before it is importable."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from bench.harness import WAIT_S, Run, Sink, half, inc, is_even, twice, workload

M = 1_000_000
UNBOUNDED = 2**63 - 1
MAP = "reactive_streams.flow:Flow.map"  # operators: skipped (not failed) until they exist
OBSERVE_ON = "reactive_streams.flow:Flow.observe_on"
SUBSCRIBE_ON = "reactive_streams.flow:Flow.subscribe_on"
FLAT_MAP = "reactive_streams.flow:Flow.flat_map"
MAP_NOT_NONE = "reactive_streams.flow:Flow.map_not_none"
FLAT_N = 200_000  # flat_map subscribes once per element: a smaller N keeps a run short


class CountingSubscriber:
    """The sink as a Subscriber: ``on_next`` costs what ``harness.Sink.on_next`` costs."""

    __slots__ = ("count", "done", "error", "finished", "subscription")

    def __init__(self) -> None:
        self.count = 0
        self.error: BaseException | None = None
        self.finished = False
        self.done: threading.Event | None = None
        self.subscription: Any = None

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription
        subscription.request(UNBOUNDED)

    def on_next(self, item: object) -> None:
        self.count += 1

    def on_error(self, error: BaseException) -> None:
        self.error = error
        self.finished = True
        if self.done is not None:
            self.done.set()

    def on_complete(self) -> None:
        self.finished = True
        if self.done is not None:
            self.done.set()

    def result(self) -> int:
        """The count after a synchronous run; fails unless the stream completed."""
        if self.error is not None:
            raise self.error
        if not self.finished:
            raise AssertionError("the stream did not terminate")
        return self.count

    def wait(self) -> int:
        """The count after an asynchronous run, waiting (bounded) for the terminal signal."""
        assert self.done is not None
        if not self.done.wait(WAIT_S):
            raise TimeoutError(f"no terminal signal within {WAIT_S} s ({self.count} elements)")
        return self.result()

    @classmethod
    def asynchronous(cls) -> CountingSubscriber:
        s = cls()
        s.done = threading.Event()
        return s


class BoundedSubscriber(CountingSubscriber):
    """Requests ``batch`` up front and again each time ``batch`` more have arrived."""

    __slots__ = ("batch", "next_at")

    def __init__(self, batch: int = 128) -> None:
        super().__init__()
        self.batch = batch
        self.next_at = batch

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription
        subscription.request(self.batch)

    def on_next(self, item: object) -> None:
        self.count += 1
        if self.count == self.next_at:
            self.next_at += self.batch
            self.subscription.request(self.batch)


def _sources() -> Any:
    from reactive_streams import sources

    return sources


@workload(
    "rs_range_1",
    n=100_000,
    group="ours",
    title="`range(i, i + 1)`, unbounded demand, one subscription each (subscribe overhead)",
    unit="subscriptions",
)
def rs_range_1(n: int) -> Run:
    src = _sources()

    def run() -> int:
        total = 0
        range_ = src.range
        for i in range(n):
            s = CountingSubscriber()
            range_(i, i + 1).subscribe(s)
            total += s.result()
        return total

    return run


@workload(
    "rs_range_1k",
    n=M,
    group="ours",
    title="`range(0, 1000)`, unbounded demand, n / 1000 subscriptions",
)
def rs_range_1k(n: int) -> Run:
    src = _sources()
    if n % 1000:
        raise ValueError("rs_range_1k needs n divisible by 1000")

    def run() -> int:
        pub = src.range(0, 1000)
        total = 0
        for _ in range(n // 1000):
            s = CountingSubscriber()
            pub.subscribe(s)
            total += s.result()
        return total

    return run


@workload("rs_range_1m", n=M, group="ours", title="`range(0, n)`, unbounded demand")
def rs_range_1m(n: int) -> Run:
    src = _sources()

    def run() -> int:
        s = CountingSubscriber()
        src.range(0, n).subscribe(s)
        return s.result()

    return run


@workload(
    "rs_range_1m_req128",
    n=M,
    group="ours",
    title="`range(0, n)`, `request(128)` replenished every 128",
)
def rs_range_1m_req128(n: int) -> Run:
    src = _sources()

    def run() -> int:
        s = BoundedSubscriber(128)
        src.range(0, n).subscribe(s)
        return s.result()

    return run


def _executors() -> Any:
    from reactive_streams import executors

    return executors


def _bridges() -> Any:
    from reactive_streams import bridges

    return bridges


@workload(
    "rs_range_on_executor",
    n=M,
    group="ours",
    title="`range(0, n, executor=SingleThreadExecutor())`: emitted on another thread",
)
def rs_range_on_executor(n: int) -> Run:
    src, ex = _sources(), _executors()
    executor = ex.SingleThreadExecutor(name="bench-source")

    def run() -> int:
        try:
            s = CountingSubscriber.asynchronous()
            src.range(0, n, executor=executor).subscribe(s)
            return s.wait()
        finally:
            executor.close()

    return run


@workload(
    "rs_to_iterable_async",
    n=M,
    group="ours",
    title="`for x in to_iterable(range(.., executor=SingleThreadExecutor()), prefetch=128)`",
)
def rs_to_iterable_async(n: int) -> Run:
    src, ex, br = _sources(), _executors(), _bridges()
    executor = ex.SingleThreadExecutor(name="bench-source")

    def run() -> int:
        try:
            sink = Sink()
            on_next = sink.on_next
            pub = src.range(0, n, executor=executor)
            for x in br.to_iterable(pub, prefetch=128, timeout=WAIT_S):
                on_next(x)
            return sink.count
        finally:
            executor.close()

    return run


@workload(
    "rs_aiter_range",
    n=M,
    group="ours",
    title="`async for x in to_async_iterator(range(0, n), prefetch=128)`",
)
def rs_aiter_range(n: int) -> Run:
    src, br = _sources(), _bridges()

    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        async for x in br.to_async_iterator(src.range(0, n), prefetch=128):
            on_next(x)
        return sink.count

    return lambda: asyncio.run(asyncio.wait_for(main(), WAIT_S))


@workload(
    "rs_aiter_async",
    n=M,
    group="ours",
    title="`async for` over `to_async_iterator(range(.., executor=SingleThreadExecutor()))`",
)
def rs_aiter_async(n: int) -> Run:
    src, ex, br = _sources(), _executors(), _bridges()
    executor = ex.SingleThreadExecutor(name="bench-source")

    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        pub = src.range(0, n, executor=executor)
        async for x in br.to_async_iterator(pub, prefetch=128):
            on_next(x)
        return sink.count

    def run() -> int:
        try:
            return asyncio.run(asyncio.wait_for(main(), WAIT_S))
        finally:
            executor.close()

    return run


@workload(
    "rs_async_subscriber",
    n=M,
    group="ours",
    title="`range(0, n)` into an `AsyncSubscriber` on another thread, request(128), +96 at 75 %",
)
def rs_async_subscriber(n: int) -> Run:
    src, ex = _sources(), _executors()
    from reactive_streams.subscribers import AsyncSubscriber

    executor = ex.SingleThreadExecutor(name="bench-consumer")

    class Counting(AsyncSubscriber[int]):
        def __init__(self) -> None:
            super().__init__(executor)
            self.count = 0
            self.done = threading.Event()

        def when_subscribe(self) -> None:
            self.request(128)

        def when_next(self, item: int) -> bool:
            self.count += 1
            if self.count % 96 == 0:
                self.request(96)
            return True

        def when_complete(self) -> None:
            self.done.set()

        def when_error(self, error: BaseException) -> None:
            self.done.set()

    def run() -> int:
        try:
            s = Counting()
            src.range(0, n).subscribe(s)
            if not s.done.wait(WAIT_S):
                raise TimeoutError(f"no terminal signal within {WAIT_S} s")
            return s.count
        finally:
            executor.close()

    return run


def _flow(fused: bool = True) -> Any:
    from reactive_streams.flow import Flow, set_fusion

    set_fusion(fused)  # this worker process only; applies to pipelines built from now on
    return Flow


def _map_filter(fused: bool, one_stage: bool = False) -> Callable[[int], Run]:
    """``map(inc).filter(is_even)``, or (``one_stage``) ``map_not_none`` of both."""

    def setup(n: int) -> Run:
        flow = _flow(fused)

        def run() -> int:
            s = CountingSubscriber()
            source = flow.range(0, n)
            stage = source.map_not_none(_inc_if_even) if one_stage else source.map(inc)
            (stage if one_stage else stage.filter(is_even)).subscribe(s)
            return s.result()

        return run

    return setup


workload(
    "rs_map_filter",
    n=M,
    group="ours",
    requires=MAP,
    title="`Flow.range(0, n).map(inc).filter(is_even)`, unbounded demand (fused)",
    expect=half,
)(_map_filter(True))
workload(
    "rs_map_filter_unfused",
    n=M,
    group="ours",
    requires=MAP,
    title="the same with fusion off (`set_fusion(False)`)",
    expect=half,
)(_map_filter(False))


def _inc_if_even(x: int) -> int | None:
    """``map(inc).filter(is_even)`` as one function: None drops the element."""
    y = x + 1
    return y if y % 2 == 0 else None


workload(
    "rs_map_not_none",
    n=M,
    group="ours",
    requires=MAP_NOT_NONE,
    title="`Flow.range(0, n).map_not_none(inc if even else None)`: `rs_map_filter` in one stage",
    expect=half,
)(_map_filter(True, one_stage=True))
workload(
    "rs_map_not_none_unfused",
    n=M,
    group="ours",
    requires=MAP_NOT_NONE,
    title="the same with fusion off (`set_fusion(False)`)",
    expect=half,
)(_map_filter(False, one_stage=True))


def _flat_map(inner: str, fused: bool) -> Callable[[int], Run]:
    def setup(n: int) -> Run:
        flow = _flow(fused)
        just, range_ = flow.just, flow.range
        mapper = just if inner == "one" else (lambda x: range_(x, x + 2))

        def run() -> int:
            s = CountingSubscriber()
            flow.range(0, n).flat_map(mapper).subscribe(s)
            return s.result()

        return run

    return setup


workload(
    "rs_flat_map_one",
    n=FLAT_N,
    group="ours",
    requires=FLAT_MAP,
    title="`Flow.range(0, n).flat_map(Flow.just)`",
)(_flat_map("one", True))
workload(
    "rs_flat_map_two",
    n=FLAT_N,
    group="ours",
    requires=FLAT_MAP,
    title="`Flow.range(0, n).flat_map(lambda x: Flow.range(x, x + 2))`",
    expect=twice,
)(_flat_map("two", True))
workload(
    "rs_flat_map_one_unfused",
    n=FLAT_N,
    group="ours",
    requires=FLAT_MAP,
    title="flat_map to one, fusion off",
)(_flat_map("one", False))
workload(
    "rs_flat_map_two_unfused",
    n=FLAT_N,
    group="ours",
    requires=FLAT_MAP,
    title="flat_map to two, fusion off",
    expect=twice,
)(_flat_map("two", False))


def _range_async(fused: bool) -> Callable[[int], Run]:
    def setup(n: int) -> Run:
        flow, ex = _flow(fused), _executors()
        executor = ex.SingleThreadExecutor(name="bench-observe")

        def run() -> int:
            try:
                s = CountingSubscriber.asynchronous()
                flow.range(0, n).observe_on(executor, prefetch=128).subscribe(s)
                return s.wait()
            finally:
                executor.close()

        return run

    return setup


workload(
    "rs_range_async",
    n=M,
    group="ours",
    requires=OBSERVE_ON,
    title="observe_on over an unfused source: `Flow.range(0, n).observe_on(thread, prefetch=128)`,"
    " fusion off",
)(_range_async(False))
workload(
    "rs_range_async_fused",
    n=M,
    group="ours",
    requires=OBSERVE_ON,
    title="fused: rangeAsync with fusion on (the drain pulls the range's iterator itself)",
)(_range_async(True))


def _pipeline(fused: bool) -> Callable[[int], Run]:
    def setup(n: int) -> Run:
        flow, ex = _flow(fused), _executors()
        first = ex.SingleThreadExecutor(name="bench-subscribe")
        second = ex.SingleThreadExecutor(name="bench-observe")

        def run() -> int:
            try:
                s = CountingSubscriber.asynchronous()
                pipeline = flow.range(0, n).subscribe_on(first).observe_on(second, prefetch=128)
                pipeline.subscribe(s)
                return s.wait()
            finally:
                first.close()
                second.close()

        return run

    return setup


workload(
    "rs_pipeline",
    n=M,
    group="ours",
    requires=SUBSCRIBE_ON,
    title="real hop: `.subscribe_on(thread A).observe_on(thread B, prefetch=128)`, fusion off:"
    " the source emits on A, the sink runs on B",
)(_pipeline(False))
workload(
    "rs_pipeline_fused",
    n=M,
    group="ours",
    requires=SUBSCRIBE_ON,
    title="fused: rangePipeline with fusion on (observe_on pulls the source on thread B)",
)(_pipeline(True))


__all__ = ["BoundedSubscriber", "CountingSubscriber", "half", "twice"]
