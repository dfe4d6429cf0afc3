"""Factories for the kit's own tests and for the CLI tests (``factories:range_publisher``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reactive_streams import sources
from reactive_streams.api import Publisher
from reactive_streams.executors import Executor
from reactive_streams.flow import Flow
from reactive_streams.tck.gallery.rules_1_publisher import SendsOneMore


def range_publisher(n: int) -> Publisher[int]:
    return sources.range(0, n)


def range_on(n: int, executor: Executor) -> Publisher[int]:
    return sources.range(0, n, executor=executor)


def iterable_on(n: int, executor: Executor) -> Publisher[int]:
    return sources.from_iterable(range(n), executor=executor, batch_size=7)


def generate_publisher(n: int) -> Publisher[int]:
    def step(state: int, sink: sources.Sink[int]) -> int:
        if state == n:
            sink.complete()
        else:
            sink.next(state)
        return state + 1

    return sources.generate(0, step)


def flow_map_filter(n: int) -> Publisher[int]:
    return Flow.range(0, n).map(lambda x: x + 1).filter(lambda x: x > 0)


def flow_observe_on(n: int, executor: Executor) -> Publisher[int]:
    return Flow.range(0, n).observe_on(executor).map(lambda x: x * 2)


def failed_publisher() -> Publisher[Any]:
    return sources.error(RuntimeError("failed on purpose"))


def failed_on(executor: Executor) -> Publisher[Any]:
    return sources.error(RuntimeError("failed on purpose"), executor=executor)


class _FailsAfter:
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Iterator[int]:
        yield from range(self.n)
        raise RuntimeError(f"the source fails after {self.n} elements")


def failing_publisher(n: int) -> Publisher[int]:
    return sources.from_iterable(_FailsAfter(n))


def broken_publisher(n: int) -> Publisher[int]:
    """Sends n+1 elements per request(n) (bug class P02)."""
    return SendsOneMore(n)
