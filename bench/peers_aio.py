"""Peer workloads: aioreactive, run in ``.bench/aio`` (it pins ``reactivex < 5``)."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any

from bench.harness import WAIT_S, Run, Sink, inc, workload

M = 1_000_000


def _aio() -> ModuleType:
    return importlib.import_module("aioreactive")


async def _consume(rx: ModuleType, source: Any, sink: Sink) -> None:
    done = asyncio.Event()
    on_next = sink.on_next

    async def asend(x: object) -> None:
        on_next(x)

    async def athrow(e: BaseException) -> None:
        raise e

    async def aclose() -> None:
        done.set()

    subscription = await source.subscribe_async(rx.AsyncAnonymousObserver(asend, athrow, aclose))
    await asyncio.wait_for(done.wait(), WAIT_S)
    await subscription.dispose_async()


@workload(
    "aio_from_iterable",
    n=M,
    group="aioreactive",
    title="aioreactive `from_iterable(range(n))` -> async observer",
    slow=True,
)
def aio_from_iterable(n: int) -> Run:
    rx = _aio()

    async def main() -> int:
        sink = Sink()
        await _consume(rx, rx.from_iterable(range(n)), sink)
        return sink.count

    return lambda: asyncio.run(main())


@workload(
    "aio_map",
    n=200_000,
    group="aioreactive",
    title="aioreactive `pipe(from_iterable(range(n)), map)` -> async observer",
    slow=True,
)
def aio_map(n: int) -> Run:
    rx = _aio()

    async def main() -> int:
        sink = Sink()
        await _consume(rx, rx.pipe(rx.from_iterable(range(n)), rx.map(inc)), sink)
        return sink.count

    return lambda: asyncio.run(main())


@workload(
    "aio_single",
    n=10_000,
    group="aioreactive",
    title="aioreactive `single(i)`, one subscription each, awaited",
    unit="subscriptions",
)
def aio_single(n: int) -> Run:
    rx = _aio()

    async def main() -> int:
        sink = Sink()
        for i in range(n):
            await _consume(rx, rx.single(i), sink)
        return sink.count

    return lambda: asyncio.run(main())
