"""A small user program, type-checked by ``mypy --strict`` (tests/test_newcomer_surface.py
runs it on this file alone; ``make typecheck`` checks it with the rest).

The annotated lines must check; each ``type: ignore[code]`` line is a mistake mypy must
catch, and ``warn_unused_ignores`` (part of --strict) fails the run if it does not.
Issue 25 item 4: the parameter types match what the runtime accepts.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

from reactive_streams import ExecutorLike, Flow, schedulers


def pipeline(pool: concurrent.futures.ThreadPoolExecutor, loop: asyncio.AbstractEventLoop) -> None:
    # a concurrent.futures pool and an asyncio loop are executors wherever one is taken
    hops: list[ExecutorLike] = [pool, loop, schedulers.immediate()]
    on_pool: Flow[int] = Flow.range(10).observe_on(pool).subscribe_on(pool)
    on_loop: Flow[int] = Flow.from_iterable([1, 2], executor=loop).observe_on(hops[0])
    timed: Flow[int] = Flow.range(3).delay(0.1, scheduler=pool)
    # zip keeps the element types of 2 to 4 sources
    pairs: Flow[tuple[int, str]] = Flow.zip(on_pool, Flow.just("a"))
    triples: Flow[tuple[int, str, bytes]] = Flow.zip(on_loop, Flow.just("a"), Flow.just(b"b"))
    quads: Flow[tuple[int, int, int, str]] = Flow.zip(timed, timed, timed, Flow.just("d"))
    wrong: Flow[tuple[str, str]] = Flow.zip(on_pool, Flow.just("a"))  # type: ignore[arg-type]
    # from_future, flat_map over a future, pipe and transform keep their types too
    futures: Flow[int] = Flow.range(3).flat_map(lambda x: pool.submit(lambda: x + 1))
    one: Flow[str] = Flow.from_future(pool.submit(str, 1))
    chained: Flow[str] = Flow.range(3).pipe(lambda f: f.map(str), lambda f: f.filter(bool))
    lengths: Flow[int] = chained.transform(lambda f: f.map(len))
    bad: Flow[int] = chained.transform(lambda f: f.map(str.upper))  # type: ignore[arg-type]
    with Flow.range(3).subscribe(print) as subscriber:
        error: BaseException | None = subscriber.error
    Flow.range(3).observe_on("pool")  # type: ignore[arg-type]
    del pairs, triples, quads, wrong, futures, one, lengths, bad, error
