"""``Emitter``: the hot, bounded push source (threads, coroutines, overflow, the rules)."""

from __future__ import annotations

import asyncio
import threading

import pytest

import reactive_streams as rs
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(60)


def test_spec101_delivers_only_what_was_requested_and_keeps_the_rest() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(10)
    ts: TestSubscriber[int] = TestSubscriber(0)
    emitter.flow.subscribe(ts)
    for i in range(5):
        assert emitter.emit(i)
    ts.assert_value_count(0)
    ts.request(2)
    ts.assert_values(0, 1)
    emitter.complete()
    ts.assert_no_terminal()  # completion waits behind the buffered elements
    ts.request(10)
    ts.assert_values(0, 1, 2, 3, 4).assert_complete().assert_no_violations()


def test_elements_emitted_before_the_subscriber_wait_in_the_buffer() -> None:
    emitter: rs.Emitter[str] = rs.Emitter(4)
    emitter.emit("a")
    emitter.emit("b")
    emitter.error(ValueError("late"))
    ts: TestSubscriber[str] = TestSubscriber(10)
    emitter.flow.subscribe(ts)
    ts.assert_values("a", "b").assert_error(ValueError, "late")


def test_many_producer_threads_with_block_lose_nothing_and_never_exceed_demand() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(8, overflow="block")
    ts: TestSubscriber[int] = TestSubscriber(0)
    emitter.flow.subscribe(ts)
    producers = [
        threading.Thread(target=lambda k=k: [emitter.emit(k * 1000 + i) for i in range(500)])
        for k in range(4)
    ]
    for thread in producers:
        thread.start()
    for _ in range(2000 // 50):
        ts.request(50)
    for thread in producers:
        thread.join(30)
        assert not thread.is_alive(), "a producer stayed blocked"
    emitter.complete()
    ts.await_terminal(30).assert_complete().assert_no_violations()
    assert sorted(ts.values) == sorted(k * 1000 + i for k in range(4) for i in range(500))
    for k in range(4):  # each producer's elements stay in its order
        mine = [v for v in ts.values if v // 1000 == k]
        assert mine == sorted(mine)


def test_block_releases_a_blocked_producer_on_cancel() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(1, overflow="block")
    ts: TestSubscriber[int] = TestSubscriber(1)
    emitter.flow.subscribe(ts)
    emitter.emit(0)  # delivered
    emitter.emit(1)  # buffered: the buffer is full
    results: list[bool] = []
    producer = threading.Thread(target=lambda: results.append(emitter.emit(2)))
    producer.start()
    ts.cancel()  # whether the producer is already waiting or not, it gets False
    producer.join(30)
    assert results == [False]


def test_emit_async_with_block_does_not_block_the_loop() -> None:
    async def main() -> list[int]:
        emitter: rs.Emitter[int] = rs.Emitter(2, overflow="block")
        got: list[int] = []

        async def produce() -> None:
            for i in range(10):
                await emitter.emit_async(i)
            emitter.complete()

        async def consume() -> None:
            async for x in emitter.flow:
                got.append(x)
                await asyncio.sleep(0)

        await asyncio.gather(produce(), consume())
        return got

    assert asyncio.run(main()) == list(range(10))


def test_emit_after_complete_is_an_error_and_none_is_refused() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(2)
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        emitter.emit(None)  # type: ignore[arg-type]
    emitter.complete()
    with pytest.raises(RuntimeError, match="after complete"):
        emitter.emit(1)


def test_bad_arguments_are_refused_when_built() -> None:
    with pytest.raises(ValueError, match="bound"):
        rs.Emitter(0)
    with pytest.raises(ValueError, match="overflow"):
        rs.Emitter(2, overflow="latest")


def test_spec309_bad_request_fails_the_stream() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(2)
    ts: TestSubscriber[int] = TestSubscriber(0)
    emitter.flow.subscribe(ts)
    ts.request(0)
    ts.assert_error(ValueError, "rule 3.9")


def test_a_second_subscriber_is_told_it_is_unicast() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(2)
    first: TestSubscriber[int] = TestSubscriber(10)
    second: TestSubscriber[int] = TestSubscriber(10)
    emitter.flow.subscribe(first)
    emitter.flow.subscribe(second)
    second.assert_error(RuntimeError, "one subscriber")
    emitter.emit(1)
    first.assert_values(1)


def test_spec303_request_from_on_next_does_not_recurse() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(100)
    for i in range(50):
        emitter.emit(i)
    depth = 0
    deepest = 0
    got: list[int] = []

    class OneAtATime:
        def on_subscribe(self, subscription: rs.Subscription) -> None:
            self.subscription = subscription
            subscription.request(1)

        def on_next(self, item: int) -> None:
            nonlocal depth, deepest
            depth += 1
            deepest = max(deepest, depth)
            got.append(item)
            self.subscription.request(1)
            depth -= 1

        def on_error(self, error: BaseException) -> None:
            raise AssertionError(error)

        def on_complete(self) -> None:
            pass

    emitter.flow.subscribe(OneAtATime())
    assert got == list(range(50))
    assert deepest == 1
