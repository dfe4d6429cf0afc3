"""Peer workloads: reactivex (RxPY 4+) and rxbp, run in ``.bench/peers``.

Libraries are imported inside each setup so that the orchestrator can read the
registry without them. rxbp 3.0.0a9 imports ``collections.MutableMapping``,
removed in Python 3.10: :func:`_rxbp` aliases it before the import.
"""

from __future__ import annotations

import collections
import collections.abc
import importlib
import threading
from types import ModuleType
from typing import Any

from bench.harness import WAIT_S, Run, Sink, half, inc, is_even, twice, workload

M = 1_000_000


def _rx() -> ModuleType:
    return importlib.import_module("reactivex")


def _ops() -> ModuleType:
    return importlib.import_module("reactivex.operators")


def _rxbp() -> ModuleType:
    if not hasattr(collections, "MutableMapping"):
        collections.MutableMapping = collections.abc.MutableMapping  # type: ignore[attr-defined]
    return importlib.import_module("rxbp")


def _sync(source: Any, expect_done: bool = True) -> int:
    sink = Sink()
    done = threading.Event()
    source.subscribe(on_next=sink.on_next, on_completed=done.set)
    if expect_done and not done.wait(WAIT_S):
        raise TimeoutError("no on_completed")
    return sink.count


@workload("rx_range", n=200_000, group="reactivex", title="reactivex `range(n)`", slow=True)
def rx_range(n: int) -> Run:
    rx = _rx()
    return lambda: _sync(rx.range(n))


@workload("rx_from_iterable", n=M, group="reactivex", title="reactivex `from_iterable(range(n))`")
def rx_from_iterable(n: int) -> Run:
    rx = _rx()
    return lambda: _sync(rx.from_iterable(range(n)))


@workload(
    "rx_from_iterable_map",
    n=M,
    group="reactivex",
    title="reactivex `from_iterable(range(n)).pipe(map)`",
)
def rx_from_iterable_map(n: int) -> Run:
    rx, ops = _rx(), _ops()
    return lambda: _sync(rx.from_iterable(range(n)).pipe(ops.map(inc)))


@workload(
    "rx_from_iterable_map_filter",
    n=M,
    group="reactivex",
    title="reactivex `from_iterable(range(n)).pipe(map, filter)`",
    expect=half,
)
def rx_from_iterable_map_filter(n: int) -> Run:
    rx, ops = _rx(), _ops()
    return lambda: _sync(rx.from_iterable(range(n)).pipe(ops.map(inc), ops.filter(is_even)))


@workload(
    "rx_range_map_filter",
    n=200_000,
    group="reactivex",
    title="reactivex `range(n).pipe(map, filter)`",
    expect=half,
    slow=True,
)
def rx_range_map_filter(n: int) -> Run:
    rx, ops = _rx(), _ops()
    return lambda: _sync(rx.range(n).pipe(ops.map(inc), ops.filter(is_even)))


@workload(
    "rx_flat_map_one",
    n=20_000,
    group="reactivex",
    title="reactivex `from_iterable.pipe(flat_map(just))`",
    slow=True,
)
def rx_flat_map_one(n: int) -> Run:
    rx, ops = _rx(), _ops()
    return lambda: _sync(rx.from_iterable(range(n)).pipe(ops.flat_map(rx.just)))


@workload(
    "rx_flat_map_two",
    n=20_000,
    group="reactivex",
    title="reactivex `from_iterable.pipe(flat_map(range(x, x + 2)))`",
    expect=twice,
    slow=True,
)
def rx_flat_map_two(n: int) -> Run:
    rx, ops = _rx(), _ops()
    return lambda: _sync(
        rx.from_iterable(range(n)).pipe(ops.flat_map(lambda x: rx.range(x, x + 2)))
    )


@workload(
    "rx_observe_on_threadpool",
    n=100_000,
    group="reactivex",
    title="reactivex `from_iterable.pipe(observe_on(ThreadPoolScheduler))`",
    slow=True,
)
def rx_observe_on_threadpool(n: int) -> Run:
    rx, ops = _rx(), _ops()
    from reactivex.scheduler import ThreadPoolScheduler

    scheduler = ThreadPoolScheduler(2)

    def run() -> int:
        try:
            return _sync(rx.from_iterable(range(n)).pipe(ops.observe_on(scheduler)))
        finally:
            scheduler.executor.shutdown(wait=True)

    return run


@workload(
    "rx_observe_on_eventloop",
    n=200_000,
    group="reactivex",
    title="reactivex `from_iterable.pipe(observe_on(EventLoopScheduler))`",
    slow=True,
)
def rx_observe_on_eventloop(n: int) -> Run:
    rx, ops = _rx(), _ops()
    from reactivex.scheduler import EventLoopScheduler

    def run() -> int:
        scheduler = EventLoopScheduler()
        try:
            return _sync(rx.from_iterable(range(n)).pipe(ops.observe_on(scheduler)))
        finally:
            scheduler.dispose()

    return run


@workload(
    "rx_just",
    n=30_000,
    group="reactivex",
    title="reactivex `just(i).subscribe(...)`, one subscription each",
    unit="subscriptions",
)
def rx_just(n: int) -> Run:
    rx = _rx()

    def run() -> int:
        sink = Sink()
        on_next = sink.on_next
        just = rx.just
        for i in range(n):
            just(i).subscribe(on_next=on_next)
        return sink.count

    return run


@workload("rxbp_range_1", n=M, group="rxbp", title="rxbp `range(n, batch_size=1)`")
def rxbp_range_1(n: int) -> Run:
    rxbp = _rxbp()
    return lambda: _sync(rxbp.range(n, batch_size=1))


@workload("rxbp_range_256", n=M, group="rxbp", title="rxbp `range(n, batch_size=256)`")
def rxbp_range_256(n: int) -> Run:
    rxbp = _rxbp()
    return lambda: _sync(rxbp.range(n, batch_size=256))


@workload(
    "rxbp_observe_on_256",
    n=M,
    group="rxbp",
    title="rxbp `range(n, batch_size=256).pipe(observe_on(EventLoopScheduler))`",
)
def rxbp_observe_on_256(n: int) -> Run:
    rxbp = _rxbp()
    scheduler_type = importlib.import_module("rxbp.schedulers.eventloopscheduler")

    def run() -> int:
        scheduler = scheduler_type.EventLoopScheduler()
        count = _sync(rxbp.range(n, batch_size=256).pipe(rxbp.op.observe_on(scheduler)))
        scheduler.dispose()
        return count

    return run
