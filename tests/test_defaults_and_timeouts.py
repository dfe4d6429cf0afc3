"""Small defaults users meet first: ``Emitter.emit_async(x, timeout=)`` bounds its wait
for room as ``emit`` does, and the test subscribers' documented initial demand
(``TestSubscriber()``: none, the probe that steps demand; ``TimedSubscriber``:
everything, a timeline of the source)."""

from __future__ import annotations

import asyncio

import pytest

from reactive_streams import Emitter, Flow
from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber, TimedSubscriber

BOUND = 10.0


def test_emit_async_timeout_raises_when_no_room_comes() -> None:
    async def main() -> None:
        emitter: Emitter[int] = Emitter(1, overflow="block")
        assert await emitter.emit_async(1, timeout=0.05)
        with pytest.raises(TimeoutError, match=r"emit_async: no room within timeout=0.05s"):
            await emitter.emit_async(2, timeout=0.05)
        ts: TestSubscriber[int] = TestSubscriber(5)
        emitter.flow.subscribe(ts)
        assert await emitter.emit_async(3, timeout=BOUND)  # room again: the wait ends
        ts.assert_values(1, 3)  # 2 timed out: it was never emitted

    asyncio.run(asyncio.wait_for(main(), BOUND))


def test_emit_async_waits_within_its_timeout_for_room() -> None:
    async def main() -> list[int]:
        emitter: Emitter[int] = Emitter(1, overflow="block")
        ts: TestSubscriber[int] = TestSubscriber(0)
        emitter.flow.subscribe(ts)
        await emitter.emit_async(1)
        asyncio.get_running_loop().call_later(0.02, ts.request, 2)
        assert await emitter.emit_async(2, timeout=BOUND)
        return ts.values

    assert asyncio.run(asyncio.wait_for(main(), BOUND)) == [1, 2]


@pytest.mark.parametrize("timeout", [-1, float("nan"), "1"])
def test_emit_async_refuses_a_bad_timeout(timeout: object) -> None:
    async def main() -> None:
        await Emitter(1).emit_async(1, timeout=timeout)  # type: ignore[arg-type]

    with pytest.raises((ValueError, TypeError), match=r"Emitter\.emit_async: timeout"):
        asyncio.run(main())


def test_test_subscriber_requests_nothing_by_default() -> None:
    ts: TestSubscriber[int] = TestSubscriber()
    Flow.range(0, 3).subscribe(ts)
    ts.assert_values().assert_no_terminal()
    ts.request(3)
    ts.assert_values(0, 1, 2).assert_complete()


def test_timed_subscriber_requests_everything_by_default() -> None:
    clock = ManualExecutor()
    ts: TimedSubscriber[int] = TimedSubscriber(clock)
    Flow.interval(1, scheduler=clock).take(3).subscribe(ts)
    clock.advance_by(3)
    ts.assert_values(0, 1, 2).assert_complete()
    assert [t for t, kind, _ in ts.timeline if kind == "on_next"] == [1, 2, 3]
