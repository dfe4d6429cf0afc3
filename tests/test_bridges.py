"""Bridges: blocking iteration, async iteration, async iterables as publishers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams.bridges import from_async_iterable, to_async_iterator, to_iterable
from reactive_streams.testing import TestSubscriber


class RecordingPublisher:
    """Wraps a publisher and records the requests and cancels of its subscribers."""

    def __init__(self, inner: rs.Publisher[int]) -> None:
        self.inner = inner
        self.requests: list[int] = []
        self.cancels = 0
        self.delivered = 0

    def subscribe(self, subscriber: rs.Subscriber[int]) -> None:
        outer = self

        class Spy:
            def __init__(self, s: rs.Subscription) -> None:
                self.s = s

            def request(self, n: int) -> None:
                outer.requests.append(n)
                self.s.request(n)

            def cancel(self) -> None:
                outer.cancels += 1
                self.s.cancel()

        class Wrap:
            def on_subscribe(self, s: rs.Subscription) -> None:
                subscriber.on_subscribe(Spy(s))

            def on_next(self, item: int) -> None:
                outer.delivered += 1
                subscriber.on_next(item)

            def on_error(self, error: BaseException) -> None:
                subscriber.on_error(error)

            def on_complete(self) -> None:
                subscriber.on_complete()

        self.inner.subscribe(Wrap())


# ------------------------------------------------------------------ to_iterable
@pytest.mark.timeout(30)
def test_to_iterable_yields_everything_with_bounded_replenished_demand() -> None:
    spy = RecordingPublisher(rs.range(0, 1000))
    assert list(to_iterable(spy, prefetch=16, timeout=10)) == list(range(1000))
    assert spy.requests[0] == 16
    assert set(spy.requests[1:]) == {16}  # in bulk once the buffer ran dry: the window


@pytest.mark.timeout(30)
def test_to_iterable_never_buffers_more_than_prefetch() -> None:
    spy = RecordingPublisher(rs.range(0, 500))
    consumed = 0
    for _ in to_iterable(spy, prefetch=10, timeout=10):
        consumed += 1
        assert spy.delivered - consumed <= 10  # outstanding demand never exceeds prefetch
    assert consumed == 500


@pytest.mark.timeout(30)
def test_to_iterable_break_cancels() -> None:
    closed = threading.Event()

    class Source:
        def __iter__(self) -> Iterator[int]:
            try:
                yield from range(10**9)
            finally:
                closed.set()

    spy = RecordingPublisher(rs.from_iterable(Source()))
    for x in to_iterable(spy, prefetch=8, timeout=10):
        if x == 20:
            break
    assert spy.cancels == 1
    assert spy.delivered <= 21 + 8  # consumed + prefetch
    assert closed.wait(10)  # the cancelled source was dropped and finalised (rule 3.13)


@pytest.mark.timeout(30)
def test_to_iterable_reraises_on_error() -> None:
    def source() -> Iterator[int]:
        yield 1
        raise ConnectionError("upstream broke")

    got: list[int] = []

    def consume() -> None:
        for x in to_iterable(rs.from_iterable(source()), timeout=10):
            got.append(x)

    with pytest.raises(ConnectionError, match="upstream broke"):
        consume()
    assert got == [1]


@pytest.mark.timeout(30)
def test_to_iterable_from_a_thread_pool_publisher() -> None:
    with rs.ThreadPoolExecutor(2) as pool:
        publisher = rs.range(0, 5000, executor=pool, batch_size=32)
        items = list(to_iterable(publisher, prefetch=64, timeout=10))
    assert items == list(range(5000))


@pytest.mark.timeout(30)
def test_to_iterable_times_out_instead_of_hanging() -> None:
    never: rs.Publisher[int] = rs.range(0, 10, executor=rs.ManualExecutor())
    with pytest.raises(TimeoutError):
        next(iter(to_iterable(never, timeout=0.05)))


def test_spec309_to_iterable_rejects_bad_prefetch() -> None:
    with pytest.raises(ValueError, match=r"rule 3\.9"):
        to_iterable(rs.range(0, 1), prefetch=0)


def test_to_iterable_subscribes_lazily() -> None:
    spy = RecordingPublisher(rs.range(0, 3))
    iterator = to_iterable(spy)
    assert spy.requests == []
    assert next(iterator) == 0
    assert spy.requests == [128]


# ----------------------------------------------------------- to_async_iterator
@pytest.mark.timeout(30)
def test_to_async_iterator_sync_and_threaded_publishers() -> None:
    async def main() -> tuple[list[int], list[int]]:
        a = [x async for x in to_async_iterator(rs.range(0, 300), prefetch=8)]
        with rs.ThreadPoolExecutor(2) as pool:
            b = [x async for x in to_async_iterator(rs.range(0, 3000, executor=pool), prefetch=32)]
        return a, b

    a, b = asyncio.run(asyncio.wait_for(main(), 20))
    assert a == list(range(300))
    assert b == list(range(3000))


@pytest.mark.timeout(30)
def test_to_async_iterator_break_cancels_and_error_reraises() -> None:
    spy = RecordingPublisher(rs.range(0, 10**9))

    async def main() -> None:
        async for x in to_async_iterator(spy, prefetch=4):
            if x == 5:
                break
        with pytest.raises(KeyError):
            async for _ in to_async_iterator(rs.error(KeyError("k"))):
                pass

    asyncio.run(asyncio.wait_for(main(), 20))
    assert spy.cancels == 1
    assert spy.delivered <= 6 + 4  # consumed + prefetch
    assert spy.requests[0] == 4
    assert set(spy.requests[1:]) == {4}  # in bulk once the buffer ran dry: the window


@pytest.mark.timeout(30)
def test_to_async_iterator_keeps_its_window_with_bulk_requests() -> None:
    # each request asks for everything taken since the last one, once the buffer ran
    # dry: the window stays the prefetch (a miscounted element would shrink or grow it)
    spy = RecordingPublisher(rs.range(0, 100))
    outstanding: list[int] = []

    async def main() -> list[int]:
        seen = []
        async for x in to_async_iterator(spy, prefetch=4):
            seen.append(x)
            outstanding.append(sum(spy.requests) - len(seen))
        return seen

    # bounded: a window that shrinks by one element per request stalls after a few
    assert asyncio.run(asyncio.wait_for(main(), 10)) == list(range(100))
    assert spy.requests == [4] * 25
    assert max(outstanding) <= 4


# --------------------------------------------------------- from_async_iterable
class LoopThread:
    """An event loop running in its own thread, for publishers used from other threads."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    lt.close()


class Counting:
    def __init__(self, n: int) -> None:
        self.n = n
        self.pulled = 0
        self.closed = False

    def __aiter__(self) -> AsyncIterator[int]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[int]:
        try:
            for i in range(self.n):
                self.pulled += 1
                yield i
        finally:
            self.closed = True


@pytest.mark.timeout(30)
def test_spec101_from_async_iterable_pulls_only_on_demand(loop_thread: LoopThread) -> None:
    source = Counting(100)
    ts: TestSubscriber[int] = TestSubscriber(3)
    from_async_iterable(source, loop=loop_thread.loop).subscribe(ts)
    ts.await_count(3, 10)
    ts.request(2)
    ts.await_count(5, 10)
    # run one more loop iteration so any excess pull would have happened
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop_thread.loop).result(10)
    assert source.pulled == 5
    ts.assert_values(0, 1, 2, 3, 4).assert_no_terminal()
    ts.request(1000)
    ts.await_terminal(10).assert_complete()
    assert ts.values == list(range(100))
    assert {s.thread for s in ts.signals} == {loop_thread.thread.ident}


@pytest.mark.timeout(30)
def test_spec312_from_async_iterable_cancel_closes_source(loop_thread: LoopThread) -> None:
    source = Counting(10**6)
    ts: TestSubscriber[int] = TestSubscriber(2)
    from_async_iterable(source, loop=loop_thread.loop).subscribe(ts)
    ts.await_count(2, 10)
    ts.cancel()
    ts.cancel()
    for _ in range(3):
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop_thread.loop).result(10)
    assert source.closed
    ts.assert_values(0, 1).assert_no_terminal()


@pytest.mark.timeout(30)
def test_spec309_and_errors_from_async_iterable(loop_thread: LoopThread) -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    from_async_iterable(Counting(10), loop=loop_thread.loop).subscribe(ts)
    ts.await_count(1, 10)
    ts.request(0)
    ts.await_terminal(10).assert_error(ValueError, match=r"rule 3\.9")

    async def failing() -> AsyncIterator[Any]:
        yield 1
        raise OSError("async source failure")

    ts2: TestSubscriber[Any] = TestSubscriber(10)
    from_async_iterable(failing(), loop=loop_thread.loop).subscribe(ts2)
    ts2.await_terminal(10).assert_values(1).assert_error(OSError)


def test_from_async_iterable_in_async_for_round_trip() -> None:
    async def main() -> list[int]:
        publisher = from_async_iterable(Counting(50))
        return [x async for x in to_async_iterator(publisher, prefetch=5)]

    assert asyncio.run(asyncio.wait_for(main(), 20)) == list(range(50))
