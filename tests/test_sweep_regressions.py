"""Defects found by the long Hypothesis sweep of the state machines.

1. ``from_async_iterable``: a cancel that lands before the pump's first pull (from
   ``on_subscribe``, or from another thread while ``on_subscribe`` runs) ended the pump
   before it took the iterator, so a one-shot async iterator was never aclosed (rules
   3.12, 3.13; stateful/test_reach_bridges.py found it as a flaky ``cancel_source``).

Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Iterator

import pytest

import reactive_streams as rs
from reactive_streams.bridges import from_async_iterable
from reactive_streams.testing import TestSubscriber

_WAIT = 10.0


class QuietSource:
    """An async iterator that yields nothing and waits for ever; records ``aclose()``."""

    def __init__(self) -> None:
        self.aclosed = threading.Event()

    def __aiter__(self) -> QuietSource:
        return self

    async def __anext__(self) -> int:
        await asyncio.Event().wait()  # a quiet queue or socket
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.aclosed.set()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(_WAIT)
        loop.close()


class CancelFromAnotherThread:
    """Requests one, then has another thread cancel before ``on_subscribe`` returns: the
    sweep's interleaving (the test thread's cancel beat the pump's next step), forced."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    def on_subscribe(self, subscription: rs.Subscription) -> None:
        subscription.request(1)
        canceller = threading.Thread(target=subscription.cancel)
        canceller.start()
        canceller.join(_WAIT)
        assert not canceller.is_alive(), "liveness: cancel() blocked"
        self.cancelled.set()

    def on_next(self, item: int) -> None:
        raise AssertionError(f"rule 3.12: on_next({item}) after the cancel")

    def on_error(self, error: BaseException) -> None:
        raise AssertionError(f"rule 3.12: on_error({error!r}) after the cancel")

    def on_complete(self) -> None:
        raise AssertionError("rule 3.12: on_complete after the cancel")


@pytest.mark.timeout(30)
def test_spec312_a_cancel_in_on_subscribe_acloses_the_async_iterator(
    loop: asyncio.AbstractEventLoop,
) -> None:
    source = QuietSource()
    ts: TestSubscriber[int] = TestSubscriber(1, cancel_on_subscribe=True)
    from_async_iterable(source, loop=loop).subscribe(ts)
    ts.await_subscribed(_WAIT)
    assert source.aclosed.wait(_WAIT), "rule 3.12: the cancelled async iterator was not aclosed"
    ts.assert_values().assert_no_terminal().assert_no_violations()


@pytest.mark.timeout(30)
def test_spec312_a_cancel_racing_on_subscribe_acloses_the_async_iterator(
    loop: asyncio.AbstractEventLoop,
) -> None:
    source = QuietSource()
    subscriber = CancelFromAnotherThread()
    from_async_iterable(source, loop=loop).subscribe(subscriber)
    assert subscriber.cancelled.wait(_WAIT), "no on_subscribe"
    assert source.aclosed.wait(_WAIT), "rule 3.12: the cancelled async iterator was not aclosed"


@pytest.mark.timeout(30)
def test_spec312_a_cancel_in_on_subscribe_closes_an_async_generator(
    loop: asyncio.AbstractEventLoop,
) -> None:
    async def quiet() -> AsyncGenerator[int, None]:
        await asyncio.Event().wait()
        yield 1

    generator = quiet()
    ts: TestSubscriber[int] = TestSubscriber(1, cancel_on_subscribe=True)
    from_async_iterable(generator, loop=loop).subscribe(ts)
    ts.await_subscribed(_WAIT)
    subscription = ts.subscription

    async def closed() -> bool:
        task = getattr(subscription, "_task", None)
        assert task is not None, "the pump task was never created"
        await asyncio.wait([task], timeout=_WAIT)
        frame = getattr(generator, "ag_frame", generator)  # None: aclosed before its first step
        return task.done() and frame is None

    assert asyncio.run_coroutine_threadsafe(closed(), loop).result(2 * _WAIT), (
        "rule 3.12: the cancelled async generator was not aclosed"
    )
