"""The hops outside the operator catalogue, traced: ``Emitter``, the async-iterable
bridge (``from_async_iterable``) and ``SparkSource``'s row subscription are
:class:`~reactive_streams._core.downstream.Downstream` subscriptions, so every run
records a trace with their hop name. Each scenario (a bounded, unbounded, cancelling,
raising and invalid-request subscriber) is replayed against the spec's Python twins,
and written to ``$RS_TRACE_DIR`` for ``make traces`` (TLC, ``validate --hops``)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams.bridges import from_async_iterable
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.format import Header, write_trace
from reactive_streams.trace.validate import validate_files
from reactive_streams.tracing import Tracer, tracing

WAIT = 10.0
_files = itertools.count(1)


def _raise(ts: TestSubscriber[Any], x: object) -> None:
    raise RuntimeError("subscriber fails")


SUBSCRIBERS: dict[str, Callable[[], TestSubscriber[Any]]] = {
    "bounded": lambda: TestSubscriber(2, on_next_hook=lambda ts, x: ts.request(1)),
    "unbounded": lambda: TestSubscriber(2**63 - 1),
    "cancel": lambda: TestSubscriber(3, on_next_hook=lambda ts, x: ts.cancel()),
    "raise": lambda: TestSubscriber(3, on_next_hook=_raise),
    "invalid": lambda: TestSubscriber(1, on_next_hook=lambda ts, x: ts.request(0)),
}


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    logging.disable(logging.ERROR)  # raising subscribers are logged (rule 2.13)
    yield
    logging.disable(logging.NOTSET)


def _outcome(ts: TestSubscriber[Any], kind: str, items: list[Any]) -> None:
    """What each kind of subscriber must have seen once the run settled."""
    if kind in ("bounded", "unbounded"):
        ts.assert_values(*items).assert_complete()
    elif kind == "invalid":
        ts.assert_error(ValueError)  # rule 3.9
    else:
        ts.assert_no_terminal()  # cancelled from on_next, or by the raise (2.13)
        assert ts.values == items[:1], ts.values


def _check(tmp_path: Path, tracer: Tracer, hop: str, name: str) -> None:
    """The trace names ``hop`` and is accepted; written for ``make traces``."""
    hops = {e.get("hop") for e in tracer.events if e["sig"] == "subscribe"}
    assert hop in hops, hops
    header = Header(mode="async", quiescent=True)
    path = tmp_path / f"{name}.jsonl"
    write_trace(path, tracer.events, header)
    [verdict], _ = validate_files([path], use_tlc=False)
    assert verdict.ok, verdict.line()
    directory = os.environ.get("RS_TRACE_DIR")
    if directory:
        write_trace(
            Path(directory) / f"{name}-{os.getpid()}-{next(_files)}.jsonl", tracer.events, header
        )


@pytest.mark.parametrize("kind", sorted(SUBSCRIBERS))
def test_emitter_hop_is_traced(tmp_path: Path, kind: str) -> None:
    with tracing() as tracer:
        emitter: rs.Emitter[int] = rs.Emitter(16)
        for k in range(4):
            emitter.emit(k)  # before the subscriber: buffered
        subscriber = SUBSCRIBERS[kind]()
        emitter.flow.subscribe(subscriber)
        producer = threading.Thread(target=lambda: [emitter.emit(k) for k in range(4, 8)])
        producer.start()
        producer.join(WAIT)
        assert not producer.is_alive()
        emitter.complete()  # the drain runs on the emitting threads: all is delivered
    _outcome(subscriber, kind, list(range(8)))
    _check(tmp_path, tracer, "emitter", f"ReachEmitter-{kind}")


async def _numbers(count: int) -> AsyncIterator[int]:
    for k in range(count):
        await asyncio.sleep(0)
        yield k


@pytest.mark.parametrize("kind", sorted(SUBSCRIBERS))
def test_async_iterable_hop_is_traced(tmp_path: Path, kind: str) -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        with tracing() as tracer:
            subscriber = SUBSCRIBERS[kind]()
            from_async_iterable(_numbers(6), loop=loop).subscribe(subscriber)
            settled = asyncio.run_coroutine_threadsafe(_settle(subscriber), loop)
            settled.result(WAIT)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT)
        loop.close()
    _outcome(subscriber, kind, list(range(6)))
    _check(tmp_path, tracer, "from_async_iterable", f"ReachAsyncIterable-{kind}")


async def _settle(ts: TestSubscriber[Any]) -> None:
    """On the loop: until the pump task ended (its subscriber is released, rule 3.13)."""
    pumps = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    await asyncio.wait_for(asyncio.gather(*pumps, return_exceptions=True), WAIT)


class _Row:
    def __init__(self, k: int) -> None:
        self.k = k

    def asDict(self, recursive: bool = False) -> dict[str, int]:
        return {"k": self.k}


class _Context:
    def setJobGroup(self, group: str, description: str, interruptOnCancel: bool) -> None:
        pass

    def cancelJobGroup(self, group: str) -> None:
        pass


class _Session:
    """Enough of a classic SparkSession for SparkSource (no JVM: ``_jsc`` is a stand-in)."""

    _jsc = object()
    sparkContext = _Context()


class _Rdd:
    def getNumPartitions(self) -> int:
        return 1


class _Frame:
    """Enough of a DataFrame: ``count`` rows, read through ``toLocalIterator``."""

    sparkSession = _Session()
    rdd = _Rdd()

    def __init__(self, count: int) -> None:
        self.count = count

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[_Row]:
        return (_Row(k) for k in range(self.count))


@pytest.mark.parametrize("kind", sorted(SUBSCRIBERS))
def test_spark_source_hop_is_traced(tmp_path: Path, kind: str) -> None:
    from reactive_streams.spark.source import SparkSource

    with tracing() as tracer:
        subscriber = SUBSCRIBERS[kind]()
        SparkSource(_Frame(6), partition_bytes=None, chunk_rows=4).subscribe(subscriber)
        reader: threading.Thread = subscriber.subscription.thread  # type: ignore[union-attr]
        reader.join(WAIT)  # the reader ends after a cancel too (rules 3.12, 3.13)
        assert not reader.is_alive()
    _outcome(subscriber, kind, [{"k": k} for k in range(6)])
    _check(tmp_path, tracer, "spark_source", f"ReachSparkSource-{kind}")
