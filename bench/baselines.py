"""Baselines in plain Python: the limit every ratio is measured against, async
generators (the async-iterable counterpart of each of our workloads) and
thread hand-offs through ``queue.Queue``."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncIterator

from bench.harness import WAIT_S, Run, Sink, half, inc, is_even, twice, workload

M = 1_000_000


@workload(
    "plain_loop", n=M, group="baseline", title="limit: `for` loop calling the bound-method sink"
)
def plain_loop(n: int) -> Run:
    def run() -> int:
        sink = Sink()
        on_next = sink.on_next
        for i in range(n):
            on_next(i)
        return sink.count

    return run


@workload(
    "plain_map_filter",
    n=M,
    group="baseline",
    title="`for` loop with the same map and filter functions",
    expect=half,
)
def plain_map_filter(n: int) -> Run:
    def run() -> int:
        sink = Sink()
        on_next = sink.on_next
        for i in range(n):
            y = inc(i)
            if is_even(y):
                on_next(y)
        return sink.count

    return run


@workload(
    "plain_flatten_one",
    n=M,
    group="baseline",
    title="plain flatten: `for x in range(n): for y in (x,): on_next(y)`",
)
def plain_flatten_one(n: int) -> Run:
    def run() -> int:
        sink = Sink()
        on_next = sink.on_next
        for x in range(n):
            for y in (x,):
                on_next(y)
        return sink.count

    return run


@workload(
    "plain_flatten_two",
    n=M,
    group="baseline",
    title="plain flatten: `for x in range(n): for y in range(x, x + 2): on_next(y)`",
    expect=twice,
)
def plain_flatten_two(n: int) -> Run:
    def run() -> int:
        sink = Sink()
        on_next = sink.on_next
        for x in range(n):
            for y in range(x, x + 2):
                on_next(y)
        return sink.count

    return run


@workload(
    "plain_new_sink",
    n=200_000,
    group="baseline",
    title="per subscription floor: new sink object, one call",
    unit="subscriptions",
)
def plain_new_sink(n: int) -> Run:
    def run() -> int:
        total = 0
        for i in range(n):
            sink = Sink()
            sink.on_next(i)
            total += sink.count
        return total

    return run


# -- async iterables ---------------------------------------------------------------


async def arange(start: int, count: int) -> AsyncIterator[int]:
    for i in range(start, start + count):
        yield i


async def amap_filter(src: AsyncIterator[int]) -> AsyncIterator[int]:
    async for x in src:
        y = inc(x)
        if is_even(y):
            yield y


async def ajust(x: int) -> AsyncIterator[int]:
    yield x


@workload("aiter_range", n=M, group="baseline", title="async generator range, `async for`")
def aiter_range(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        async for x in arange(0, n):
            on_next(x)
        return sink.count

    return lambda: asyncio.run(main())


@workload(
    "aiter_range_1",
    n=100_000,
    group="baseline",
    title="async generator range(1), one `async for` per subscription",
    unit="subscriptions",
)
def aiter_range_1(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        for i in range(n):
            async for x in arange(i, 1):
                on_next(x)
        return sink.count

    return lambda: asyncio.run(main())


@workload(
    "aiter_map_filter",
    n=M,
    group="baseline",
    title="async generators range.map.filter",
    expect=half,
)
def aiter_map_filter(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        async for x in amap_filter(arange(0, n)):
            on_next(x)
        return sink.count

    return lambda: asyncio.run(main())


@workload("aiter_flat_map_one", n=M, group="baseline", title="async generators flat_map to one")
def aiter_flat_map_one(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        async for x in arange(0, n):
            async for y in ajust(x):
                on_next(y)
        return sink.count

    return lambda: asyncio.run(main())


@workload(
    "aiter_flat_map_two",
    n=M,
    group="baseline",
    title="async generators flat_map to range(x, x + 2)",
    expect=twice,
)
def aiter_flat_map_two(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        async for x in arange(0, n):
            async for y in arange(x, 2):
                on_next(y)
        return sink.count

    return lambda: asyncio.run(main())


_DONE = object()


async def _pump(src: AsyncIterator[int], q: asyncio.Queue[object]) -> None:
    async for x in src:
        await q.put(x)
    await q.put(_DONE)


async def _relay(src: asyncio.Queue[object], dst: asyncio.Queue[object]) -> None:
    while (x := await src.get()) is not _DONE:
        await dst.put(x)
    await dst.put(_DONE)


@workload(
    "aiter_async",
    n=M,
    group="baseline",
    title="asyncio per element: task -> asyncio.Queue(128) -> task",
)
def aiter_async(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        q: asyncio.Queue[object] = asyncio.Queue(128)
        producer = asyncio.create_task(_pump(arange(0, n), q))
        while (x := await q.get()) is not _DONE:
            on_next(x)
        await producer
        return sink.count

    return lambda: asyncio.run(asyncio.wait_for(main(), WAIT_S))


@workload(
    "aiter_pipeline",
    n=M,
    group="baseline",
    title="async rangePipeline: task -> Queue(128) -> task -> Queue(128) -> task",
)
def aiter_pipeline(n: int) -> Run:
    async def main() -> int:
        sink = Sink()
        on_next = sink.on_next
        q1: asyncio.Queue[object] = asyncio.Queue(128)
        q2: asyncio.Queue[object] = asyncio.Queue(128)
        producer = asyncio.create_task(_pump(arange(0, n), q1))
        relay = asyncio.create_task(_relay(q1, q2))
        while (x := await q2.get()) is not _DONE:
            on_next(x)
        await producer
        await relay
        return sink.count

    return lambda: asyncio.run(asyncio.wait_for(main(), WAIT_S))


# -- thread hand-off ---------------------------------------------------------------


@workload(
    "queue_thread_1",
    n=300_000,
    group="baseline",
    title="thread hand-off: queue.Queue(256), one element per put",
)
def queue_thread_1(n: int) -> Run:
    def run() -> int:
        q: queue.Queue[object] = queue.Queue(256)

        def produce() -> None:
            put = q.put
            for i in range(n):
                put(i)
            put(_DONE)

        sink = Sink()
        on_next = sink.on_next
        t = threading.Thread(target=produce, daemon=True)
        t.start()
        get = q.get
        while (x := get(timeout=WAIT_S)) is not _DONE:
            on_next(x)
        t.join(WAIT_S)
        return sink.count

    return run


@workload(
    "queue_thread_256",
    n=M,
    group="baseline",
    title="thread hand-off: queue.Queue(256), lists of 256 per put",
)
def queue_thread_256(n: int) -> Run:
    def run() -> int:
        q: queue.Queue[object] = queue.Queue(256)

        def produce() -> None:
            put = q.put
            for lo in range(0, n, 256):
                put(list(range(lo, min(n, lo + 256))))
            put(_DONE)

        sink = Sink()
        on_next = sink.on_next
        t = threading.Thread(target=produce, daemon=True)
        t.start()
        get = q.get
        while (batch := get(timeout=WAIT_S)) is not _DONE:
            for x in batch:  # type: ignore[attr-defined]
                on_next(x)
        t.join(WAIT_S)
        return sink.count

    return run
