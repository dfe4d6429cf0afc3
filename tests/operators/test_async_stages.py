"""An async stage works whatever thread its element arrives on.

A mapper that returns an awaitable (``concat_map``, ``flat_map``, ``switch_map``; an
``async def`` in ``map``, ``filter``, ``do_on_next``) has its
awaitable run on the event loop that was running where the pipeline was subscribed, and a
timed operator subscribed from a coroutine without ``scheduler=`` runs on that loop's
clock. Each case below has a timer that fires while the flow runs, followed by an async
stage, consumed by ``async for`` and by ``await flow.aio.to_list()`` inside
``asyncio.run``; each is bounded by ``asyncio.timeout``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from reactive_streams import Flow
from reactive_streams.operators import Backoff

BOUND = 10.0  # seconds: a hang fails the test instead of stalling the suite
DT = 0.02  # every timer below fires well within the flow's life
PAUSE = 5 * DT  # a source's quiet spell: on one loop clock, a DT timer fires first


async def doubled(item: Any) -> Any:
    """The async stage: it must run on the loop of the coroutine that subscribed."""
    await asyncio.sleep(0)
    return item * 2  # a list (buffer_timeout) twice over


async def paced(*steps: object) -> AsyncIterator[Any]:
    """Yields each step; a float step is a pause (on the loop), so timers fire between."""
    for step in steps:
        if isinstance(step, float):
            await asyncio.sleep(step)
        else:
            yield step


def failing_once() -> Flow[int]:
    """Fails at its first subscription, then emits 1, 2 (retry resubscribes)."""
    calls = [0]

    def make() -> Flow[int]:
        calls[0] += 1
        return Flow.error(ValueError("first")) if calls[0] == 1 else Flow.just(1, 2)

    return Flow.defer(make)


# name -> (flow built inside the coroutine, the elements the async stage yields)
CASES: dict[str, tuple[Callable[[], Flow[Any]], list[Any]]] = {
    "buffer_timeout": (
        lambda: Flow.from_async_iterable(paced(1, 2, PAUSE, 3)).buffer_timeout(10, DT),
        [[1, 2, 1, 2], [3, 3]],
    ),
    "debounce": (
        lambda: Flow.from_async_iterable(paced(1, PAUSE, 2)).debounce(DT),
        [2, 4],
    ),
    "timeout": (
        lambda: Flow.from_async_iterable(paced(1, PAUSE, 2)).timeout(DT, Flow.just(5)),
        [2, 10],
    ),
    "sample": (
        lambda: Flow.from_async_iterable(paced(1, PAUSE, 2)).sample(DT),
        [2, 4],
    ),
    "throttle_first": (
        lambda: Flow.from_async_iterable(paced(1, 9, PAUSE, 2)).throttle_first(DT),
        [2, 4],
    ),
    "delay": (lambda: Flow.just(1, 2).delay(DT), [2, 4]),
    "delay_subscription": (lambda: Flow.just(1, 2).delay_subscription(DT), [2, 4]),
    "retry_backoff": (
        lambda: failing_once().retry(1, backoff=Backoff(DT, 2.0, 1.0)),
        [2, 4],
    ),
    # the async stage asks for one tick at a time: a tick due meanwhile waits in a buffer
    "interval": (lambda: Flow.interval(DT).take(3).on_backpressure_buffer(3), [0, 2, 4]),
    "timer": (lambda: Flow.timer(DT), [0]),
}

STAGES: dict[str, Callable[[Flow[Any]], Flow[Any]]] = {
    "concat_map": lambda flow: flow.concat_map(doubled),
    "flat_map": lambda flow: flow.flat_map(doubled, max_concurrency=1),
    "map": lambda flow: flow.map(doubled),  # an async def mapper is awaited, in order
}


def run(main: Callable[[], Coroutine[Any, Any, list[Any]]]) -> list[Any]:
    async def bounded() -> list[Any]:
        async with asyncio.timeout(BOUND):
            return await main()

    return asyncio.run(bounded())


def check(name: str, got: list[Any]) -> None:
    assert got == CASES[name][1]


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_timed_then_async_stage_by_async_for(name: str, stage: str) -> None:
    async def main() -> list[Any]:
        return [x async for x in STAGES[stage](CASES[name][0]())]

    check(name, run(main))


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_timed_then_async_stage_by_await(name: str, stage: str) -> None:
    async def main() -> list[Any]:
        return await STAGES[stage](CASES[name][0]()).aio.to_list()

    check(name, run(main))


def flaky_stage() -> Callable[[Flow[int]], Flow[int]]:
    """An async stage whose first call fails (so a retry around it resubscribes it)."""
    calls = [0]

    async def fetch(item: int) -> int:
        calls[0] += 1
        await asyncio.sleep(0)
        if calls[0] == 1:
            raise ConnectionError("first call")
        return item * 2

    return lambda flow: flow.concat_map(fetch)


# the async stage upstream of a timed operator that subscribes it again, or later
AROUND: dict[str, Callable[[], Flow[Any]]] = {
    "retry_backoff": lambda: flaky_stage()(Flow.just(1, 2)).retry(1, backoff=Backoff(DT, 2.0, 1.0)),
    "delay_subscription": lambda: Flow.just(1, 2).concat_map(doubled).delay_subscription(DT),
}


@pytest.mark.parametrize("name", sorted(AROUND))
def test_timed_operator_around_an_async_stage(name: str) -> None:
    async def by_async_for() -> list[Any]:
        return [x async for x in AROUND[name]()]

    async def by_await() -> list[Any]:
        return await AROUND[name]().aio.to_list()

    assert run(by_async_for) == [2, 4]
    assert run(by_await) == [2, 4]


def test_switch_map_after_a_timer() -> None:
    async def main() -> list[Any]:
        return await Flow.just(1, 2).delay(DT).switch_map(doubled).aio.to_list()

    assert run(main) in ([2, 4], [4])  # a new element may cancel the previous inner


def test_element_from_a_pool_thread_runs_on_the_subscribing_loop() -> None:
    """No timer: the element reaches the async mapper on a pool thread (observe_on), and
    its coroutine runs on the loop that subscribed."""
    threads: list[int] = []

    async def where(item: int) -> int:
        threads.append(threading.get_ident())
        return item

    async def main() -> list[Any]:
        with ThreadPoolExecutor(1) as pool:
            flow = Flow.range(0, 3).observe_on(pool).concat_map(where)
            return await flow.aio.to_list()

    assert run(main) == [0, 1, 2]
    assert threads == [threading.get_ident()] * 3  # asyncio.run's loop runs on this thread


def test_timed_operator_inside_a_coroutine_runs_on_the_loop() -> None:
    seen: list[int] = []

    async def main() -> list[Any]:
        return (
            await Flow.just(1)
            .delay(DT)
            .do_on_next(lambda _: seen.append(threading.get_ident()))
            .aio.to_list()
        )

    assert run(main) == [1]
    assert seen == [threading.get_ident()]


def test_an_explicit_scheduler_is_kept() -> None:
    seen: list[int] = []

    async def main() -> list[Any]:
        with ThreadPoolExecutor(1) as pool:
            flow = Flow.just(1).delay(DT, scheduler=pool)
            return await flow.do_on_next(lambda _: seen.append(threading.get_ident())).aio.to_list()

    assert run(main) == [1]
    assert len(seen) == 1
    assert seen != [threading.get_ident()]


def test_outside_a_loop_the_shared_pool_still_times() -> None:
    assert Flow.just(1, 2).delay(DT).to_list(timeout=BOUND) == [1, 2]


def test_awaitable_outside_any_loop_is_still_refused() -> None:
    with pytest.raises(TypeError, match="outside a running event loop"):
        Flow.just(1).concat_map(doubled).to_list(timeout=BOUND)


async def is_even(x: int) -> bool:
    await asyncio.sleep(0)
    return x % 2 == 0


def test_async_filter_and_do_on_next_after_a_timer() -> None:
    seen: list[tuple[int, int]] = []

    async def log(x: int) -> None:
        await asyncio.sleep(0)
        seen.append((x, threading.get_ident()))

    async def main() -> list[Any]:
        flow = Flow.range(0, 6).delay(DT).filter(is_even).do_on_next(log)
        return [x async for x in flow]

    assert run(main) == [0, 2, 4]
    assert seen == [(x, threading.get_ident()) for x in (0, 2, 4)]


def test_async_map_outside_a_loop_and_a_none_result_are_named() -> None:
    with pytest.raises(TypeError, match=r"map\(doubled\): returned an awaitable outside"):
        Flow.just(1).map(doubled).to_list(timeout=BOUND)

    async def nothing(x: int) -> None:
        await asyncio.sleep(0)

    async def main() -> list[Any]:
        return await Flow.just(1).map(nothing).aio.to_list()

    with pytest.raises(TypeError, match=r"rule 2.13: map\(.*nothing\): its awaitable's result"):
        run(main)


def test_a_plain_mapper_returning_a_coroutine_object_is_not_awaited_by_map() -> None:
    """Only ``async def`` is recognised (at assembly); a lambda returning a coroutine is
    a plain mapper, whose coroutine object is the element (closed here, never run)."""

    async def main() -> list[Any]:
        return await Flow.just(1).map(lambda x: doubled(x)).aio.to_list()

    (element,) = run(main)
    assert asyncio.iscoroutine(element)
    element.close()


def test_an_async_retry_predicate_is_refused_at_assembly() -> None:
    async def transient(error: BaseException, attempt: int) -> bool:
        return attempt < 3

    with pytest.raises(TypeError, match=r"retry_when\(.*transient\): the predicate is an async"):
        Flow.error(ValueError("x")).retry_when(transient)
