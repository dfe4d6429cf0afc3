"""In-process timing harness (standard library only: it also runs in the peer venvs).

A workload is a function ``setup(n) -> run`` registered with :func:`workload`;
``run()`` performs one complete pass over ``n`` elements (or ``n`` subscriptions),
blocks until the consumer has seen the end, and returns the number of elements
the sink received, which :func:`measure` checks against ``expect(n)``.
"""

from __future__ import annotations

import gc
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Run = Callable[[], int]
Setup = Callable[[int], Run]

# Every wait on another thread or task is bounded so a deadlock fails the workload.
WAIT_S = 300.0


def inc(x: int) -> int:
    """The ``map`` function of every map/filter workload."""
    return x + 1


def is_even(x: int) -> bool:
    """The ``filter`` predicate of every map/filter workload (keeps half)."""
    return x % 2 == 0


def half(n: int) -> int:
    """Elements left after ``map(inc).filter(is_even)`` over ``range(n)``."""
    return n // 2


def twice(n: int) -> int:
    return 2 * n


class Sink:
    """The consumer used everywhere: one bound-method call per element."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def on_next(self, item: object) -> None:
        self.count += 1


@dataclass(frozen=True)
class Workload:
    name: str
    setup: Setup
    n: int  # full-size element (or subscription) count
    smoke_n: int  # tiny count for --smoke
    group: str  # "baseline", "ours", "reactivex", "rxbp", "aioreactive"
    title: str  # one line for the table
    unit: str = "elements"  # or "subscriptions"
    expect: Callable[[int], int] = field(default=lambda n: n)
    slow: bool = False  # warm up on n/10 instead of n
    requires: str | None = None  # a module that may not exist yet: skip, not fail


REGISTRY: dict[str, Workload] = {}


def workload(
    name: str,
    *,
    n: int,
    group: str,
    title: str,
    smoke_n: int = 1000,
    unit: str = "elements",
    expect: Callable[[int], int] | None = None,
    slow: bool = False,
    requires: str | None = None,
) -> Callable[[Setup], Setup]:
    def register(setup: Setup) -> Setup:
        if name in REGISTRY:
            raise ValueError(f"duplicate workload {name}")
        REGISTRY[name] = Workload(
            name, setup, n, smoke_n, group, title, unit, expect or (lambda k: k), slow, requires
        )
        return setup

    return register


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def plain_loop_times(n: int = 300_000, runs: int = 3) -> list[float]:
    """Times of the limit loop inside this process (the machine's speed drifts)."""
    sink = Sink()
    on_next = sink.on_next
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for i in range(n):
            on_next(i)
        times.append(time.perf_counter() - t0)
    return times


def measure(
    w: Workload, n: int, runs: int, warmup: bool = True, limit_n: int = 300_000
) -> dict[str, Any]:
    """Warm up once, then time ``runs`` passes; return a JSON-ready row."""
    rss_start = peak_rss_mib()
    limit_times = plain_loop_times(limit_n)
    if warmup:
        warm_n = max(1, n // 10) if w.slow else n
        got = w.setup(warm_n)()
        if got != w.expect(warm_n):
            raise AssertionError(f"{w.name}: warm-up delivered {got}, expected {w.expect(warm_n)}")
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        run = w.setup(n)
        gc.collect()
        c0 = cpu_s()
        t0 = time.perf_counter()
        got = run()
        t1 = time.perf_counter()
        cpu.append(cpu_s() - c0)
        if got != w.expect(n):
            raise AssertionError(f"{w.name}: delivered {got}, expected {w.expect(n)}")
        times.append(t1 - t0)
        del run
    limit_times += plain_loop_times(limit_n)
    med = statistics.median(times)
    return {
        "name": w.name,
        "group": w.group,
        "title": w.title,
        "unit": w.unit,
        "n": n,
        "runs": runs,
        "times_s": times,
        "median_s": med,
        "min_s": min(times),
        "rate_median": n / med,
        "rate_best": n / min(times),
        "cpu_s_median": statistics.median(cpu),
        "peak_rss_mib": peak_rss_mib(),
        "rss_before_mib": rss_start,
        "limit_in_process": limit_n / statistics.median(limit_times),
        "python": sys.version.split()[0],
    }
