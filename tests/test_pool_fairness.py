"""Pool fairness: no stream holds a pool thread for more than ``batch_size`` elements.

Every test runs its streams on ONE 1-thread pool. A stream that kept the thread (a drain
that runs round after round in one task) starves every task queued behind it, so the
short stream never completes: that fails through a bounded wait, and the cleanup cancels
everything so the thread is freed. ``CountingPool`` counts the elements each task
delivers, per stream, so the per-task bound itself is asserted too.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import MAX_DEMAND, Flow
from reactive_streams.api import Subscriber, Subscription
from reactive_streams.executors import ThreadPoolExecutor
from reactive_streams.flow import set_fusion
from reactive_streams.sources import DEFAULT_BATCH_SIZE

pytestmark = pytest.mark.timeout(60)

WAIT = 10.0  # seconds: generous; a fair pool finishes these streams in milliseconds
BATCH = 16  # the sources' batch_size in these tests


class CountingPool:
    """A pool whose tasks are wrapped: elements delivered by each task, per stream."""

    def __init__(self, workers: int = 1) -> None:
        self.pool = ThreadPoolExecutor(workers, name="fair")
        self._local = threading.local()
        self._lock = threading.Lock()
        self.most: dict[str, int] = {}  # stream -> most elements delivered by one task
        self.tasks = 0

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
                self.tasks += 1
                for stream, n in counts.items():
                    self.most[stream] = max(self.most.get(stream, 0), n)

    def count(self, stream: str) -> None:
        """Called from ``on_next``: one element delivered by the running task."""
        counts = getattr(self._local, "counts", None)
        if counts is not None:
            counts[stream] = counts.get(stream, 0) + 1

    def quiesce(self) -> bool:
        """True once a task queued now has run: the thread is free."""
        ran = threading.Event()
        self.pool.execute(ran.set)
        return ran.wait(WAIT)

    def close(self) -> None:
        self.pool.close(timeout=WAIT)


class Probe(Subscriber[Any]):
    """Requests ``request`` in on_subscribe and, with ``one_by_one``, 1 from each on_next;
    after ``stop_after`` elements it cancels and counts as done; ``then`` runs at the end."""

    def __init__(
        self,
        name: str,
        pool: CountingPool,
        one_by_one: bool = False,
        stop_after: int = 0,
        then: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.pool = pool
        self.one_by_one = one_by_one
        self.stop_after = stop_after
        self.then = then
        self.received = 0
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.subscription: Subscription | None = None
        self.started = threading.Event()

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        subscription.request(1 if self.one_by_one else MAX_DEMAND)

    def on_next(self, item: Any) -> None:
        self.pool.count(self.name)
        self.received += 1
        self.started.set()
        if self.stop_after and self.received >= self.stop_after:
            self.cancel()
            self._end()
        elif self.one_by_one:
            assert self.subscription is not None
            self.subscription.request(1)  # rule 3.3: nested, trampolined

    def on_error(self, error: BaseException) -> None:
        self.errors.append(error)
        self._end()

    def on_complete(self) -> None:
        self._end()

    def cancel(self) -> None:
        if self.subscription is not None:
            self.subscription.cancel()

    def _end(self) -> None:
        if not self.done.is_set():
            self.done.set()
            if self.then is not None:
                self.then()


def endless() -> Iterator[int]:
    return itertools.count(1)


# The streams that used to keep the pool thread: each never ends on its own.
def _request_one_source(pool: CountingPool) -> Flow[int]:
    return Flow.from_iterable(endless(), executor=pool, batch_size=BATCH)


def _publish_top_ups(pool: CountingPool) -> Flow[int]:
    # lockstep with a buffer smaller than the source's batch: every top-up request
    # arrives after the source's round spent its demand
    source = Flow.from_iterable(endless(), executor=pool, batch_size=BATCH)
    return source.publish(buffer_size=2).ref_count()


def _replay_top_ups(pool: CountingPool) -> Flow[int]:
    source = Flow.from_iterable(endless(), executor=pool, batch_size=BATCH)
    return source.replay(bound=4).ref_count()


def _observe_on_fused(pool: CountingPool) -> Flow[int]:
    return Flow.range(0, 2**62).observe_on(pool)  # fused: the drain polls the source


HOGS: dict[str, tuple[Callable[[CountingPool], Flow[int]], bool, int]] = {
    # name: (flow, one_by_one, most elements per task)
    "request-1-from-on_next": (_request_one_source, True, BATCH),
    "publish-top-ups": (_publish_top_ups, True, BATCH),
    "replay-top-ups": (_replay_top_ups, True, BATCH),
    "observe_on-unbounded-fused": (_observe_on_fused, False, DEFAULT_BATCH_SIZE),
}


@pytest.mark.parametrize("hog", sorted(HOGS))
def test_a_stream_queued_behind_an_endless_one_completes(hog: str) -> None:
    make, one_by_one, per_task = HOGS[hog]
    pool = CountingPool(1)
    hogging = Probe(hog, pool, one_by_one=one_by_one)
    short = Probe("short", pool, one_by_one=True, then=hogging.cancel)
    try:
        make(pool).subscribe(hogging)  # its first task is queued first
        Flow.range(0, 5, executor=pool, batch_size=BATCH).subscribe(short)
        assert short.done.wait(WAIT), f"{hog} kept the only pool thread: 5 elements never came"
        assert short.received == 5
        assert not short.errors
        assert pool.quiesce(), f"{hog} still runs after its cancel"
        assert hogging.received > 0
        assert pool.most[hog] <= per_task, f"one task delivered {pool.most[hog]} of {hog}"
    finally:
        hogging.cancel()
        short.cancel()
        pool.close()


def test_one_thread_pool_serves_every_stream() -> None:
    """The design doc's claim: a request(1)-from-on_next subscriber of an executor source
    and an observe_on with unbounded demand over an endless fused source share one
    thread; the first finishing cancels the second, so the run ends only if both got
    the thread in turns, at most ``batch_size`` elements per task."""
    pool = CountingPool(1)
    poller = Probe("observe_on", pool)
    requester = Probe("request-1", pool, one_by_one=True, then=poller.cancel)
    try:
        Flow.range(0, 2**62).map(lambda x: x + 1).observe_on(pool).subscribe(poller)
        Flow.range(0, 40 * BATCH, executor=pool, batch_size=BATCH).subscribe(requester)
        assert requester.done.wait(WAIT), "the requester never got the pool thread"
        assert requester.received == 40 * BATCH
        assert not requester.errors
        assert pool.quiesce(), "the cancelled observe_on still holds the thread"
        assert poller.received > DEFAULT_BATCH_SIZE  # it ran, in turns with the requester
        assert pool.most["request-1"] <= BATCH
        assert pool.most["observe_on"] <= DEFAULT_BATCH_SIZE
        assert pool.tasks > 40  # the requester alone needs 40 tasks
    finally:
        poller.cancel()
        requester.cancel()
        pool.close()


def test_observe_on_over_a_busy_upstream_yields_per_batch() -> None:
    """Unfused observe_on whose upstream keeps the queue full: a synchronous source
    refilled by the replenishing requests the drain itself makes."""
    pool = CountingPool(1)
    hogging = Probe("observe_on-unfused", pool)
    short = Probe("short", pool, one_by_one=True, then=hogging.cancel)
    fused = set_fusion(False)
    try:
        unfused = Flow.from_iterable(endless()).observe_on(pool, prefetch=8)
        set_fusion(fused)
        unfused.subscribe(hogging)
        Flow.range(0, 5, executor=pool, batch_size=BATCH).subscribe(short)
        assert short.done.wait(WAIT), "observe_on kept the only pool thread"
        assert pool.quiesce()
        assert pool.most["observe_on-unfused"] <= DEFAULT_BATCH_SIZE
    finally:
        set_fusion(fused)
        hogging.cancel()
        short.cancel()
        pool.close()
