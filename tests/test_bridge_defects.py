"""Issue 21, defects 1 to 4: the asyncio bridges and the ``concurrent.futures`` adapter.

1. ``async for`` after ``aclose()`` (or after a timed-out ``__anext__``) must end with
   ``StopAsyncIteration``, not wait for ever.
2. Cancelling ``from_async_iterable`` while the source awaits its next element cancels
   the pump task: the subscriber is dropped (3.13) and the iterator aclosed (3.12).
3. ``from_async_iterable`` over a closed loop answers ``on_subscribe`` then ``on_error``
   (1.9), never an exception out of ``subscribe()``.
4. A ``concurrent.futures`` pool that drops an accepted drain task (``shutdown`` with
   ``cancel_futures``, a broken pool) fails the stream (1.9, 1.4); a process pool is
   refused at once.

Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams.bridges import from_async_iterable, to_async_iterator
from reactive_streams.executors import as_executor
from reactive_streams.multicast import publish
from reactive_streams.testing import TestSubscriber

_WAIT = 10.0


class Quiet:
    """A publisher that emits ``items`` on demand, then nothing; records the cancel."""

    def __init__(self, items: int) -> None:
        self.items = items
        self.cancelled = threading.Event()
        self.requested = 0

    def subscribe(self, subscriber: rs.Subscriber[int]) -> None:
        quiet = self
        sent = 0

        class Sub:
            def request(self, n: int) -> None:
                nonlocal sent
                quiet.requested += n
                while sent < min(quiet.items, quiet.requested) and not quiet.cancelled.is_set():
                    sent += 1
                    subscriber.on_next(sent - 1)

            def cancel(self) -> None:
                quiet.cancelled.set()

        subscriber.on_subscribe(Sub())


# ------------------------------------------------------- 1: async for after aclose
@pytest.mark.timeout(30)
def test_anext_after_aclose_stops_iteration() -> None:
    source = Quiet(100)

    async def main() -> list[int]:
        items = to_async_iterator(source, prefetch=4)
        got = [await items.__anext__(), await items.__anext__()]
        await items.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(items.__anext__(), _WAIT)
        with pytest.raises(StopAsyncIteration):  # and again (idempotent)
            await asyncio.wait_for(items.__anext__(), _WAIT)
        return got

    assert asyncio.run(asyncio.wait_for(main(), 2 * _WAIT)) == [0, 1]
    assert source.cancelled.is_set()


@pytest.mark.timeout(30)
def test_anext_after_a_timed_out_anext_stops_iteration() -> None:
    source = Quiet(1)

    async def main() -> None:
        items = to_async_iterator(source, prefetch=4)
        assert await items.__anext__() == 0
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(items.__anext__(), 0.05)  # the source went quiet
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(items.__anext__(), _WAIT)

    asyncio.run(asyncio.wait_for(main(), 2 * _WAIT))
    assert source.cancelled.is_set()  # the timed-out __anext__ closed the iterator


@pytest.mark.timeout(30)
def test_close_from_another_thread_wakes_a_waiting_anext() -> None:
    source = Quiet(0)

    async def main() -> None:
        items = to_async_iterator(source, prefetch=4)
        loop = asyncio.get_running_loop()
        waiting = asyncio.ensure_future(items.__anext__())
        await asyncio.sleep(0)  # subscribed, and waiting for an element
        await loop.run_in_executor(None, items.close)
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, _WAIT)

    asyncio.run(asyncio.wait_for(main(), 2 * _WAIT))
    assert source.cancelled.is_set()


# ------------------------------------------------ from_async_iterable: a loop thread
class LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the loop and return its result (bounded)."""

        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(_WAIT)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(_WAIT)
        self.loop.close()


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    lt.close()


class QuietSource:
    """An async iterator that yields ``items`` elements, then waits for ever; records
    ``aclose()``."""

    def __init__(self, items: int) -> None:
        self.items = items
        self.aclosed = threading.Event()
        self.forever: asyncio.Event | None = None

    def __aiter__(self) -> QuietSource:
        return self

    async def __anext__(self) -> int:
        if self.items > 0:
            self.items -= 1
            return self.items
        self.forever = asyncio.Event()
        await self.forever.wait()  # a quiet queue or socket
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.aclosed.set()


# ------------------------------------------- 2: cancel while the source awaits
@pytest.mark.timeout(30)
def test_spec312_cancel_while_the_source_is_quiet_closes_it(loop_thread: LoopThread) -> None:
    source = QuietSource(2)
    ts: TestSubscriber[int] = TestSubscriber(10)
    from_async_iterable(source, loop=loop_thread.loop).subscribe(ts)
    ts.await_count(2, _WAIT)
    subscription = ts.subscription
    assert subscription is not None
    ts.cancel()  # the pump is inside ``await anext(iterator)``
    assert source.aclosed.wait(_WAIT), "rule 3.12: the quiet async iterator was never aclosed"
    held = loop_thread.call(lambda: getattr(subscription, "_downstream", "absent"))
    assert held is None  # rule 3.13: the core's Downstream dropped the subscriber
    ts.assert_values(1, 0).assert_no_terminal()


@pytest.mark.timeout(30)
def test_spec312_cancel_closes_an_async_generator_parked_in_await(
    loop_thread: LoopThread,
) -> None:
    closed = threading.Event()

    async def quiet() -> AsyncIterator[int]:
        try:
            yield 1
            await asyncio.Event().wait()
            yield 2
        finally:
            closed.set()

    ts: TestSubscriber[int] = TestSubscriber(5)
    from_async_iterable(quiet(), loop=loop_thread.loop).subscribe(ts)
    ts.await_count(1, _WAIT)
    ts.cancel()
    assert closed.wait(_WAIT)
    ts.assert_values(1).assert_no_terminal()


@pytest.mark.timeout(30)
def test_cancel_from_on_next_does_not_cut_the_iterators_aclose(loop_thread: LoopThread) -> None:
    """The pump is cancelled only while it awaits an element, never inside ``aclose()``."""
    cleaned = threading.Event()

    async def source() -> AsyncIterator[int]:
        try:
            yield 1
            yield 2
        finally:
            await asyncio.sleep(0)  # cleanup that awaits
            await asyncio.sleep(0)
            cleaned.set()

    ts: TestSubscriber[int] = TestSubscriber(5, on_next_hook=lambda s, _: s.cancel())
    from_async_iterable(source(), loop=loop_thread.loop).subscribe(ts)
    assert cleaned.wait(_WAIT)
    ts.assert_values(1).assert_no_terminal()


# --------------------------------------------------------- 3: a closed loop
def test_spec109_from_async_iterable_over_a_closed_loop_signals_on_error() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    ts: TestSubscriber[int] = TestSubscriber(1)
    from_async_iterable(QuietSource(3), loop=loop).subscribe(ts)  # must not raise
    assert ts.subscription is not None  # on_subscribe first (rule 1.9) ...
    ts.await_terminal(_WAIT).assert_error(RuntimeError, match=r"rule 1\.9.*closed")
    assert [s.kind for s in ts.signals] == ["on_subscribe", "on_error"]
    ts.assert_no_violations()


def test_spec109_closed_loop_and_a_cancel_in_on_subscribe() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    ts: TestSubscriber[int] = TestSubscriber(1, cancel_on_subscribe=True)
    from_async_iterable(QuietSource(3), loop=loop).subscribe(ts)
    assert [s.kind for s in ts.signals] == ["on_subscribe"]  # cancelled: nothing follows


# ------------------------------------ 4: a concurrent.futures pool drops the drain
def _range(pool: rs.Executor) -> rs.Publisher[int]:
    return rs.range(0, 5, executor=pool)


def _observe_on(pool: rs.Executor) -> rs.Publisher[int]:
    return rs.Flow.range(0, 5).observe_on(pool)


def _subscribe_on(pool: rs.Executor) -> rs.Publisher[int]:
    return rs.Flow.range(0, 5).subscribe_on(pool)


def _publish(pool: rs.Executor) -> rs.Publisher[int]:
    return publish(rs.range(0, 5), executor=pool).ref_count()


def _two_hops(pool: rs.Executor) -> rs.Publisher[int]:
    # the source's lost drain signals observe_on, which submits to the same pool
    return rs.Flow.range(0, 5, executor=pool).observe_on(pool)


PIPELINES = {
    "range": _range,
    "observe_on": _observe_on,
    "subscribe_on": _subscribe_on,
    "publish": _publish,
    "two-hops-one-pool": _two_hops,
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("make", PIPELINES.values(), ids=PIPELINES.keys())
def test_spec104_a_cancelled_drain_task_fails_the_stream(
    make: Callable[[rs.Executor], rs.Publisher[int]],
) -> None:
    pool = concurrent.futures.ThreadPoolExecutor(1)
    gate = threading.Event()
    busy = pool.submit(gate.wait, _WAIT)  # the only worker is busy: the drain queues
    try:
        ts: TestSubscriber[int] = TestSubscriber(10)
        make(as_executor(pool)).subscribe(ts)
        # the queued drain is dropped; the Future's callbacks run under the pool's lock
        shutdown = threading.Thread(
            target=pool.shutdown, kwargs={"wait": False, "cancel_futures": True}, daemon=True
        )
        shutdown.start()
        shutdown.join(_WAIT)
        assert not shutdown.is_alive(), "shutdown deadlocked in a lost task's callback"
        # the lost drain's error, or (two hops) the next hop's refused submission
        ts.await_terminal(_WAIT).assert_error(RuntimeError, match=r"rule 1\.4: .*cancel|shutdown")
        assert ts.signals[0].kind == "on_subscribe"  # rule 1.9
        ts.assert_no_violations()
    finally:
        gate.set()
        busy.result(_WAIT)


@pytest.mark.timeout(30)
def test_spec104_a_broken_pool_fails_the_stream() -> None:
    def broken() -> None:
        raise OSError("initializer failed")

    pool = concurrent.futures.ThreadPoolExecutor(1, initializer=broken)
    ts: TestSubscriber[int] = TestSubscriber(10)
    rs.range(0, 5, executor=as_executor(pool)).subscribe(ts)
    ts.await_terminal(_WAIT).assert_error(concurrent.futures.BrokenExecutor)
    ts.assert_no_violations()
    pool.shutdown(wait=True)


@pytest.mark.timeout(30)
def test_a_task_that_ran_is_not_reported_lost() -> None:
    from reactive_streams.executors import WatchedExecutor, execute_watched

    lost: list[Exception] = []
    ran = threading.Event()

    def task() -> None:
        ran.set()
        raise ValueError("the task's own failure is logged, not a rejection")

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        adapted = as_executor(pool)
        assert isinstance(adapted, WatchedExecutor)
        execute_watched(adapted, task, lost.append)
        assert ran.wait(_WAIT)
    assert lost == []


def test_a_process_pool_is_refused() -> None:
    pool = concurrent.futures.ProcessPoolExecutor(1)
    try:
        with pytest.raises(TypeError, match="executor: a ProcessPoolExecutor"):
            as_executor(pool)
        with pytest.raises(TypeError, match="ProcessPoolExecutor"):
            rs.range(0, 3, executor=pool)
    finally:
        pool.shutdown(wait=True)
