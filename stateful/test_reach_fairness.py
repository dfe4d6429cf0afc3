"""Reach: pool fairness and the cancel made from inside a synchronous emission.

Two Hypothesis-driven runs on real threads, every wait bounded:

* ``test_streams_share_one_pool_thread`` draws streams that used to keep a pool thread
  (subscribers that request from ``on_next`` on executor sources, directly or through
  publish/replay; observe_on over a fused or unfused source, with unbounded or
  one-by-one demand), endless or finite, all on ONE 1-thread pool. The endless ones
  are subscribed first. Every finite stream must complete within a bounded wait while
  the endless ones still run, and no task may deliver more than the stream's batch
  (the pool is wrapped: elements are counted between task boundaries).
* ``test_last_cancel_or_disconnect_cancels_a_synchronous_source`` draws replay (bounded
  or not) with ref_count or ``disconnect()`` over an endless synchronous source pumped
  by an unbounded request from the connection's drain. After the last cancel (or the
  disconnect) the source must receive its cancel and its iterator be closed (so its
  counter can never grow again), each checked with a bounded wait.

Shrinking is off: a failure here is a bounded wait running out, and every shrink step
would wait again.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from reactive_streams import MAX_DEMAND, Flow
from reactive_streams.api import Subscriber, Subscription
from reactive_streams.executors import ThreadPoolExecutor
from reactive_streams.flow import set_fusion
from reactive_streams.multicast import replay
from reactive_streams.sources import DEFAULT_BATCH_SIZE

WAIT = 10.0  # seconds; a fair run needs milliseconds


class CountingPool:
    """A 1-thread pool whose tasks count, per stream, the elements they deliver."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1, name="reach-fair")
        self._local = threading.local()
        self._lock = threading.Lock()
        self.most: dict[str, int] = {}

    def execute(self, task: Callable[[], None]) -> None:
        self.pool.execute(functools.partial(self._run, task))

    def _run(self, task: Callable[[], None]) -> None:
        counts: dict[str, int] = {}
        self._local.counts = counts
        try:
            task()
        finally:
            self._local.counts = None
            with self._lock:
                for stream, n in counts.items():
                    self.most[stream] = max(self.most.get(stream, 0), n)

    def count(self, stream: str) -> None:
        counts = getattr(self._local, "counts", None)
        if counts is not None:
            counts[stream] = counts.get(stream, 0) + 1

    def quiesce(self) -> bool:
        ran = threading.Event()
        self.pool.execute(ran.set)
        return ran.wait(WAIT)


class Consumer(Subscriber[Any]):
    """Requests ``step`` at the start and again after every ``step`` elements (from
    ``on_next``), or unbounded for ``step`` 0."""

    def __init__(self, name: str, pool: CountingPool, step: int) -> None:
        self.name = name
        self.pool = pool
        self.step = step
        self.received = 0
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(self.step or MAX_DEMAND)

    def on_next(self, item: Any) -> None:
        self.pool.count(self.name)
        self.received += 1
        if self.step and self.received % self.step == 0:
            assert self.subscription is not None
            self.subscription.request(self.step)  # rule 3.3: nested, trampolined

    def on_error(self, error: BaseException) -> None:
        self.error = error
        self.done.set()

    def on_complete(self) -> None:
        self.done.set()

    def cancel(self) -> None:
        if self.subscription is not None:
            self.subscription.cancel()


@dataclass(frozen=True)
class Stream:
    kind: str  # source | publish | replay | observe_on
    length: int | None  # None: endless
    batch: int  # the source's batch_size
    step: int  # the consumer's request size, 0: unbounded
    extra: int  # publish: buffer_size; replay: bound (0: unbounded replay)
    fused: bool  # observe_on only

    def elements(self) -> Iterator[int]:
        return itertools.count() if self.length is None else iter(range(self.length))

    def build(self, pool: CountingPool) -> Flow[int]:
        if self.kind == "observe_on":
            fused = set_fusion(self.fused)
            try:
                stop = 2**62 if self.length is None else self.length
                return Flow.range(0, stop).map(lambda x: x + 1).observe_on(pool, prefetch=8)
            finally:
                set_fusion(fused)
        source = Flow.from_iterable(self.elements(), executor=pool, batch_size=self.batch)
        if self.kind == "publish":
            return source.publish(buffer_size=self.extra).ref_count()
        if self.kind == "replay":
            return source.replay(self.extra or None).ref_count()
        return source

    def per_task(self) -> int:
        """The most elements one task may deliver to this stream's consumer."""
        if self.kind == "observe_on":
            return DEFAULT_BATCH_SIZE
        if self.kind == "publish":
            return self.batch + self.extra  # the batch, plus what the buffer held
        return self.batch


streams = st.builds(
    Stream,
    kind=st.sampled_from(["source", "publish", "replay", "observe_on"]),
    length=st.none() | st.integers(0, 300),
    batch=st.sampled_from([1, 2, 16]),
    step=st.sampled_from([0, 1, 3]),
    extra=st.sampled_from([1, 2, 8]),
    fused=st.booleans(),
)


def _consumers_may_run(drawn: list[Stream]) -> bool:
    # at least one finite stream: it must complete while the endless ones run
    return any(s.length is not None for s in drawn)


@settings(max_examples=60, phases=[Phase.explicit, Phase.generate], derandomize=True)
@given(st.lists(streams, min_size=1, max_size=4).filter(_consumers_may_run))
def test_streams_share_one_pool_thread(drawn: list[Stream]) -> None:
    pool = CountingPool()
    consumers = [Consumer(f"{i}:{s.kind}", pool, s.step) for i, s in enumerate(drawn)]
    order = sorted(range(len(drawn)), key=lambda i: drawn[i].length is not None)
    try:
        for i in order:  # the endless streams first: their tasks are queued first
            drawn[i].build(pool).subscribe(consumers[i])
        for stream, consumer in zip(drawn, consumers, strict=True):
            if stream.length is None:
                continue
            assert consumer.done.wait(WAIT), (
                f"liveness: {stream} never completed on a pool shared with "
                f"{[s for s in drawn if s.length is None]}: a stream kept the thread"
            )
            assert consumer.error is None, consumer.error
            assert consumer.received == stream.length
        for consumer in consumers:
            consumer.cancel()
        assert pool.quiesce(), "a cancelled stream still holds the pool thread"
        for stream, consumer in zip(drawn, consumers, strict=True):
            most = pool.most.get(consumer.name, 0)
            assert most <= stream.per_task(), (
                f"fairness: one task delivered {most} elements of {stream}, "
                f"more than its batch {stream.per_task()}"
            )
    finally:
        for consumer in consumers:
            consumer.cancel()
        pool.pool.close(timeout=WAIT)


class EndlessSource:
    """An endless synchronous source; records its cancel and the closing of its
    iterator (after which nothing more can be pulled). ``stop`` ends a failing run."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.closed = threading.Event()
        self.pulling = threading.Event()
        self.stopped = False
        self._flow = Flow.from_iterable(self)  # a fresh iterator per subscription

    def __iter__(self) -> Iterator[int]:
        return self._elements()

    def _elements(self) -> Iterator[int]:
        try:
            for i in itertools.count(1):
                if self.stopped:
                    return
                if i == 50:
                    self.pulling.set()
                yield i
        finally:
            self.closed.set()

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        self._flow.subscribe(_CancelSpy(subscriber, self.cancelled))


class _CancelSpy(Subscriber[int]):
    def __init__(self, subscriber: Subscriber[int], cancelled: threading.Event) -> None:
        self._subscriber = subscriber
        self._cancelled = cancelled

    def on_subscribe(self, subscription: Subscription) -> None:
        cancelled = self._cancelled

        class _Spied:
            def request(self, n: int) -> None:
                subscription.request(n)

            def cancel(self) -> None:
                cancelled.set()
                subscription.cancel()

        self._subscriber.on_subscribe(_Spied())

    def on_next(self, item: int) -> None:
        self._subscriber.on_next(item)

    def on_error(self, error: BaseException) -> None:
        self._subscriber.on_error(error)

    def on_complete(self) -> None:
        self._subscriber.on_complete()


class Child(Subscriber[int]):
    """A replay subscriber that requests nothing until told to (from another thread)."""

    def __init__(self) -> None:
        self.subscription: Subscription | None = None
        self.subscribed = threading.Event()

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        self.subscribed.set()

    def on_next(self, item: int) -> None:
        pass

    def on_error(self, error: BaseException) -> None:
        pass

    def on_complete(self) -> None:
        pass


@settings(max_examples=30, phases=[Phase.explicit, Phase.generate], derandomize=True)
@given(
    bound=st.sampled_from([None, 0, 1, 8]),
    ref_count=st.booleans(),
    children=st.integers(1, 3),
    pumper=st.integers(0, 2),
    strategy=st.sampled_from(["error", "complete", "none"]),
)
def test_last_cancel_or_disconnect_cancels_a_synchronous_source(
    bound: int | None, ref_count: bool, children: int, pumper: int, strategy: Any
) -> None:
    source = EndlessSource()
    shared = replay(source, bound, on_disconnect=strategy)
    subscribers = [Child() for _ in range(children)]
    target = shared.ref_count() if ref_count else shared
    for child in subscribers:
        target.subscribe(child)  # ref_count connects on the first; nothing requested
    conn = shared.connection if ref_count else shared.connect()
    pump = subscribers[pumper % children]
    assert pump.subscribed.wait(WAIT)
    assert pump.subscription is not None
    subscription = pump.subscription
    # the unbounded request reaches the idle source from the connection's drain: the
    # source emits inside that drain, on this thread, for ever
    thread = threading.Thread(target=lambda: subscription.request(MAX_DEMAND), daemon=True)
    thread.start()
    try:
        assert source.pulling.wait(WAIT)
        if ref_count:
            for child in subscribers:  # the last one's cancel disconnects (1 -> 0)
                assert child.subscription is not None
                child.subscription.cancel()
        else:
            conn.disconnect()
        assert source.cancelled.wait(WAIT), (
            "rule 3.12: after the last cancel / disconnect the synchronous source was "
            "never cancelled"
        )
        assert source.closed.wait(WAIT), "the source's iterator is still referenced"
        thread.join(WAIT)
        assert not thread.is_alive(), "the pumping request never returned"
    finally:
        source.stopped = True
        thread.join(WAIT)
