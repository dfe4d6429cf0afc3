"""State machine for the asyncio bridges and foreign ``concurrent.futures`` pools.

Issue 21 found defects where the other machines do not reach: ``async for`` consumers
that ``aclose()`` or time out, ``from_async_iterable`` sources that go quiet and are
then cancelled, a closed loop, and a ``concurrent.futures`` pool that refuses (shut
down), drops (``cancel_futures``) or breaks under a drain task. This machine draws
them, interleaved on one event loop running in its own thread:

* consumers (``to_async_iterator``) over a quiet publisher (its elements, then silence)
  or a busy one (a pool thread emits for ever), taken, aclosed or timed out
  (``asyncio.wait_for`` around ``__anext__``); once closed, ``__anext__`` must raise
  ``StopAsyncIteration`` and the publisher must have been cancelled;
* async sources (``from_async_iterable``) that yield a few elements and then await
  for ever, cancelled from the test thread or from ``on_next``; the async iterator
  must be aclosed, the pump task done and the subscriber dropped (3.12, 3.13);
* ``from_async_iterable`` over a closed loop: ``on_subscribe`` then ``on_error`` (1.9);
* a pipeline (a source, observe_on, subscribe_on, publish) on a foreign pool that runs,
  refuses, drops or breaks: every subscriber ends (an error unless the pool ran).

Every wait is bounded (``WAIT``): a hang fails the example with what was waited for.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import AsyncGenerator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

import reactive_streams as rs
from reactive_streams.bridges import AsyncFlowIterator, from_async_iterable, to_async_iterator
from reactive_streams.executors import as_executor
from reactive_streams.multicast import publish
from reactive_streams.testing import TestSubscriber

R = TypeVar("R")

WAIT = 5.0  # seconds for anything that must happen; only a failing example waits this long
BUSY = rs.ThreadPoolExecutor(2, name="reach-bridges")  # emits the busy publishers' elements


class Spied:
    """A publisher: ``items`` elements on demand then silence (quiet), or an endless
    stream emitted by a pool thread (busy); records subscribe and cancel."""

    def __init__(self, items: int, busy: bool) -> None:
        self.items = items
        self.busy = busy
        self.subscribed = threading.Event()
        self.cancelled = threading.Event()

    def subscribe(self, subscriber: rs.Subscriber[int]) -> None:
        self.subscribed.set()
        if self.busy:
            rs.range(0, 10**9, executor=BUSY).subscribe(_Tap(subscriber, self.cancelled))
            return
        spied = self
        lock = threading.Lock()
        state = {"sent": 0, "wanted": 0}

        class Quiet:
            def request(self, n: int) -> None:
                with lock:  # the consumer's replenishing requests never overlap here
                    state["wanted"] += n
                    due = min(spied.items, state["wanted"]) - state["sent"]
                    start = state["sent"]
                    state["sent"] += max(0, due)
                for i in range(start, start + max(0, due)):
                    if spied.cancelled.is_set():
                        return
                    subscriber.on_next(i)

            def cancel(self) -> None:
                spied.cancelled.set()

        subscriber.on_subscribe(Quiet())


class _Tap:
    """Passes signals through; a cancel from downstream sets ``cancelled``."""

    def __init__(self, downstream: rs.Subscriber[int], cancelled: threading.Event) -> None:
        self._downstream = downstream
        self._cancelled = cancelled

    def on_subscribe(self, subscription: rs.Subscription) -> None:
        cancelled = self._cancelled

        class Cancel:
            def request(self, n: int) -> None:
                subscription.request(n)

            def cancel(self) -> None:
                cancelled.set()
                subscription.cancel()

        self._downstream.on_subscribe(Cancel())

    def on_next(self, item: int) -> None:
        self._downstream.on_next(item)

    def on_error(self, error: BaseException) -> None:
        self._downstream.on_error(error)

    def on_complete(self) -> None:
        self._downstream.on_complete()


@dataclass
class Consumer:
    source: Spied
    items: AsyncFlowIterator[int]
    taken: int = 0
    closed: bool = False


class QuietSource:
    """An async iterator: ``items`` elements, then it awaits for ever; records aclose."""

    def __init__(self, items: int) -> None:
        self.items = items
        self.sent = 0
        self.aclosed = threading.Event()

    def __aiter__(self) -> QuietSource:
        return self

    async def __anext__(self) -> int:
        if self.sent < self.items:
            self.sent += 1
            return self.sent - 1
        await asyncio.Event().wait()  # a quiet queue or socket
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.aclosed.set()


async def quiet_generator(items: int) -> AsyncGenerator[int, None]:
    for i in range(items):
        yield i
    await asyncio.Event().wait()


@dataclass
class Source:
    ts: TestSubscriber[int]
    items: int
    iterator: QuietSource | AsyncGenerator[int, None]
    requested: int
    cancel_at: int | None  # on_next cancels at this count (0: on_subscribe cancels)
    cancelled: bool = False
    values: list[int] = field(default_factory=list)


PIPELINES: dict[str, Callable[[rs.Executor], rs.Publisher[int]]] = {
    "range": lambda pool: rs.range(0, 5, executor=pool),
    "observe_on": lambda pool: rs.Flow.range(0, 5).observe_on(pool),
    "subscribe_on": lambda pool: rs.Flow.range(0, 5).subscribe_on(pool),
    "publish": lambda pool: publish(rs.range(0, 5), executor=pool).ref_count(),
    "range+observe_on": lambda pool: rs.Flow.range(0, 5, executor=pool).observe_on(pool),
}


def _broken() -> None:
    raise OSError("the pool's initializer failed")


class BridgesMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.consumers: list[Consumer] = []
        self.sources: list[Source] = []

    def on_loop(self, coro: Coroutine[Any, Any, R], what: str) -> R:
        """Run ``coro`` on the loop; a hang fails with ``what``."""

        async def bounded() -> R:
            try:
                return await asyncio.wait_for(coro, WAIT)
            except TimeoutError:
                raise AssertionError(f"liveness: {what} within {WAIT}s") from None

        return asyncio.run_coroutine_threadsafe(bounded(), self.loop).result(2 * WAIT)

    # ------------------------------------------------------ asyncio consumers
    @rule(items=st.integers(0, 4), prefetch=st.sampled_from([1, 2, 8]), busy=st.booleans())
    def open_consumer(self, items: int, prefetch: int, busy: bool) -> None:
        source = Spied(items, busy)
        self.consumers.append(Consumer(source, to_async_iterator(source, prefetch)))

    def _open(self) -> list[Consumer]:
        return [c for c in self.consumers if not c.closed]

    @precondition(lambda self: any(c.source.busy or c.taken < c.source.items for c in self._open()))
    @rule(data=st.data())
    def take(self, data: st.DataObject) -> None:
        ready = [c for c in self._open() if c.source.busy or c.taken < c.source.items]
        consumer = data.draw(st.sampled_from(ready))
        item = self.on_loop(consumer.items.__anext__(), "an element the publisher has sent")
        assert item == consumer.taken, f"value: got {item}, expected {consumer.taken}"
        consumer.taken += 1

    @precondition(lambda self: bool(self._open()))
    @rule(data=st.data())
    def aclose(self, data: st.DataObject) -> None:
        consumer = data.draw(st.sampled_from(self._open()))
        self.on_loop(consumer.items.aclose(), "aclose()")
        self._closed(consumer)

    def _idle(self) -> list[Consumer]:
        return [c for c in self._open() if c.source.busy or c.taken == c.source.items]

    @precondition(lambda self: bool(self._idle()))
    @rule(data=st.data())
    def time_out(self, data: st.DataObject) -> None:
        """``asyncio.wait_for`` around ``__anext__``: a quiet publisher times out, and the
        cancelled ``__anext__`` closes the iterator. A busy one may deliver first; it is
        then aclosed, so what is drawn next never depends on the race."""
        consumer = data.draw(st.sampled_from(self._idle()))

        async def next_or_timeout() -> int | None:
            try:
                return await asyncio.wait_for(consumer.items.__anext__(), 0.001)
            except TimeoutError:
                return None

        item = self.on_loop(next_or_timeout(), "__anext__ with a timeout")
        if item is not None:
            assert consumer.source.busy, f"a quiet publisher sent {item} beyond its elements"
            assert item == consumer.taken, f"value: got {item}, expected {consumer.taken}"
            consumer.taken += 1
            self.on_loop(consumer.items.aclose(), "aclose()")
        self._closed(consumer)

    def _closed(self, consumer: Consumer) -> None:
        """A closed iterator: ``__anext__`` raises StopAsyncIteration; upstream cancelled."""
        consumer.closed = True

        async def stops() -> bool:
            for _ in range(2):
                try:
                    await consumer.items.__anext__()
                except StopAsyncIteration:
                    continue
                return False
            return True

        assert self.on_loop(stops(), "StopAsyncIteration from __anext__ after close"), (
            "__anext__ after close returned an element"
        )
        if consumer.source.subscribed.is_set():
            assert consumer.source.cancelled.wait(WAIT), "rule 3.12: close did not cancel"

    # ------------------------------------------------- from_async_iterable
    @rule(
        items=st.integers(0, 3),
        request=st.integers(1, 5),
        generator=st.booleans(),
        cancel_at=st.none() | st.integers(0, 3),  # 0: from on_subscribe, before any pull
    )
    def open_source(self, items: int, request: int, generator: bool, cancel_at: int | None) -> None:
        iterable = quiet_generator(items) if generator else QuietSource(items)

        def hook(ts: TestSubscriber[int], _: int) -> None:
            if cancel_at is not None and len(ts.values) == cancel_at:
                ts.cancel()

        ts: TestSubscriber[int] = TestSubscriber(
            request, on_next_hook=hook, cancel_on_subscribe=cancel_at == 0
        )
        source = Source(ts, items, iterable, request, cancel_at)
        from_async_iterable(iterable, loop=self.loop).subscribe(ts)
        self.sources.append(source)
        ts.await_subscribed(WAIT)
        self._settle(source)

    def _settle(self, source: Source) -> None:
        """Wait for the elements due; a cancel from on_next is checked like any other."""
        due = min(source.items, source.requested)
        if source.cancel_at is not None and source.cancel_at <= due:
            due = source.cancel_at
            source.ts.await_count(due, WAIT)
            self._released(source)
        else:
            source.ts.await_count(due, WAIT)
        source.ts.assert_values(*range(due)).assert_no_terminal()

    @precondition(lambda self: any(not s.cancelled for s in self.sources))
    @rule(data=st.data(), n=st.integers(1, 3))
    def request_more(self, data: st.DataObject, n: int) -> None:
        source = data.draw(st.sampled_from([s for s in self.sources if not s.cancelled]))
        source.requested += n
        source.ts.request(n)
        self._settle(source)

    @precondition(lambda self: any(not s.cancelled for s in self.sources))
    @rule(data=st.data())
    def cancel_source(self, data: st.DataObject) -> None:
        source = data.draw(st.sampled_from([s for s in self.sources if not s.cancelled]))
        source.ts.cancel()  # the pump awaits an element that may never come
        self._released(source)

    def _released(self, source: Source) -> None:
        """After the cancel: the pump task ends, drops the subscriber, acloses the source."""
        source.cancelled = True
        subscription = source.ts.subscription
        iterator = source.iterator

        async def ended() -> str:
            task = getattr(subscription, "_task", None)
            if task is not None:
                await asyncio.wait([task], timeout=WAIT / 2)
                if not task.done():
                    return "rule 3.12: the pump task still awaits the source after the cancel"
            # the core's Downstream holds the subscriber in _downstream (None: dropped)
            if getattr(subscription, "_downstream", "absent") is not None:
                return "rule 3.13: the subscription still holds the subscriber"
            if isinstance(iterator, QuietSource):
                closed = iterator.aclosed.is_set()
            else:
                frame = getattr(iterator, "ag_frame", iterator)
                closed = frame is None  # finished, or aclosed before it started
            return "" if closed else "rule 3.12: the cancelled async iterator was not aclosed"

        failure = self.on_loop(ended(), "the pump task's end")
        assert not failure, failure

    @rule()
    def closed_loop(self) -> None:
        loop = asyncio.new_event_loop()
        loop.close()
        ts: TestSubscriber[int] = TestSubscriber(1)
        try:
            from_async_iterable(QuietSource(2), loop=loop).subscribe(ts)
        except Exception as exc:
            raise AssertionError(f"rule 1.9: subscribe() raised {exc!r} (a closed loop)") from exc
        ts.await_terminal(WAIT).assert_error(RuntimeError, match=r"rule 1\.9")
        assert [s.kind for s in ts.signals] == ["on_subscribe", "on_error"], ts.signals
        ts.assert_no_violations()

    # -------------------------------------------------- foreign futures pools
    @rule(
        pipeline=st.sampled_from(sorted(PIPELINES)),
        mode=st.sampled_from(["runs", "refuses", "drops", "breaks"]),
    )
    def foreign_pool(self, pipeline: str, mode: str) -> None:
        pool = concurrent.futures.ThreadPoolExecutor(
            1, initializer=_broken if mode == "breaks" else None
        )
        gate = threading.Event()
        busy = pool.submit(gate.wait, WAIT) if mode == "drops" else None
        if mode == "refuses":
            pool.shutdown(wait=True)
        ts: TestSubscriber[int] = TestSubscriber(10)
        try:
            PIPELINES[pipeline](as_executor(pool)).subscribe(ts)
            if mode == "drops":  # the queued drain is cancelled (under the pool's lock)
                stop = threading.Thread(
                    target=pool.shutdown, kwargs={"wait": False, "cancel_futures": True}
                )
                stop.start()
                stop.join(WAIT)
                assert not stop.is_alive(), "liveness: shutdown hangs in a dropped drain"
            ts.await_terminal(WAIT)
        finally:
            gate.set()
            if busy is not None:
                busy.result(WAIT)
            pool.shutdown(wait=True)
        ts.assert_no_violations()
        assert ts.signals[0].kind == "on_subscribe", "rule 1.9"
        if mode == "runs":
            ts.assert_complete().assert_values(0, 1, 2, 3, 4)
        else:
            assert ts.errors, f"rule 1.4: the pool {mode} the drain, yet {ts!r}"

    # ---------------------------------------------------------------- the end
    def teardown(self) -> None:
        try:
            for consumer in self._open():
                self.on_loop(consumer.items.aclose(), "aclose() at the end")
                self._closed(consumer)
            for source in self.sources:
                if not source.cancelled:
                    source.ts.cancel()
                    self._released(source)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(WAIT)
            self.loop.close()


BridgesMachine.TestCase.settings = settings(
    stateful_step_count=10,
    # a failing example waits out WAIT at every step it repeats: report it unshrunk
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
TestBridgesMachine = BridgesMachine.TestCase
