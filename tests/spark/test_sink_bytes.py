"""The sink's memory is bounded in bytes, not only in records (issue 42).

A greedy source delivers every record the sink asks for at once; the writer is slow
(its tasks run only when the source has nothing more to send). The bytes held are
the payload bytes of the records delivered and not yet committed, counted by the
test from the records themselves (not by the sink's own estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import SKIP, Positioned
from reactive_streams.spark.sink import DEMAND_SLICE, SparkSink
from reactive_streams.spark.writer import Payload


def row_size(row: dict[str, Any]) -> int:
    """The Arrow bytes of one row: an 8-byte id and a string with its 4-byte offset."""
    return 8 + len(row["payload"]) + 4


class Measured(MemoryBatchWriter):
    """The memory writer reporting each batch's true Arrow bytes."""

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        return Payload(list(records), len(records), sum(map(row_size, records)))


class GreedySource:
    """Delivers ``make(i)`` for i < n as soon as it is requested (a fast producer)."""

    def __init__(self, n: int, make: Callable[[int], dict[str, Any]]) -> None:
        self.n, self.make = n, make
        self.next = self.demand = 0
        self.delivered_bytes = 0
        self.subscriber: Subscriber[Any] | None = None
        self.running = self.cancelled = False

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)

    def request(self, n: int) -> None:
        assert n > 0, f"rule 3.9: request({n})"
        self.demand += n
        if self.running:  # rule 3.3: a request from on_next adds demand, no recursion
            return
        self.running = True
        try:
            while self.demand and self.next < self.n and not self.cancelled:
                self.demand -= 1
                i, self.next = self.next, self.next + 1
                assert self.subscriber is not None
                self.subscriber.on_next(self.entry(i))
        finally:
            self.running = False

    def entry(self, i: int) -> Any:
        """The i-th element sent, its bytes counted."""
        row = self.make(i)
        self.delivered_bytes += row_size(row)
        return row

    def cancel(self) -> None:
        self.cancelled = True


def to_completion(
    sink: SparkSink, source: GreedySource, ex: ManualExecutor, step: Callable[[], None]
) -> None:
    """Subscribe, then run the slow writer one task at a time (after the source sent all
    it could), calling ``step`` before each; complete once the source is exhausted."""
    source.subscribe(sink)
    for _ in range(100_000):
        step()
        if source.next == source.n and not sink.completion.done() and not len(ex):
            sink.on_complete()
        if sink.completion.done():
            break
        ex.run(0)
    assert sink.result(0).status == "completed"


def run(make: Callable[[int], dict[str, Any]], n: int, batch_bytes: int) -> tuple[int, list[int]]:
    """Stream n rows through a sink with a slow writer: (most bytes held, batch bytes)."""
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = SparkSink(
        writer=Measured(storage, "b"),
        sink_id="b",
        batch_rows=100_000,
        batch_bytes=batch_bytes,
        executor=ex,
        max_latency=None,
        progress=False,
    )
    source = GreedySource(n, make)
    most = 0

    def held() -> None:
        nonlocal most
        committed = sum(row_size(r) for r in storage.reader_view("b"))
        now = source.delivered_bytes - committed
        most = max(most, now)
        # the sink's own count agrees with the true bytes (it counts the same rows)
        assert sink.held_bytes == now

    to_completion(sink, source, ex, held)
    assert [r[0] if isinstance(r, tuple) else r["id"] for r in storage.reader_view("b")] == list(
        range(n)
    )
    return most, [r.bytes for r in storage.committed("b")]


def small_then_large(i: int) -> dict[str, Any]:
    """The reviewer's rows scaled down: 20,000 of 100 B, then 1,000 of 8 KiB."""
    return {"id": i, "payload": "s" * 100 if i < 20_000 else "L" * 8192}


def growing(i: int) -> dict[str, Any]:
    """Rows that double in size every 300 rows, from 64 B to 64 KiB."""
    return {"id": i, "payload": "g" * (64 << min(10, i // 300))}


@pytest.mark.timeout(120)
def test_no_batch_overshoots_the_byte_budget_when_rows_grow_at_once() -> None:
    # main sealed by a row count from the first batch's bytes per row: one batch of
    # 2,340 rows of 8 KiB, 73x the 256 KiB budget
    budget = 256 * 1024
    _, sizes = run(small_then_large, 21_000, budget)
    assert max(sizes) <= budget, max(sizes)
    assert sorted(sizes)[len(sizes) // 2] >= budget // 2, sizes  # not needlessly small


@pytest.mark.timeout(120)
def test_the_bytes_held_stay_within_twice_the_byte_budget_as_rows_grow() -> None:
    # main requested 2 * batch_rows = 200,000 records whatever their size: all 3,300
    # rows, 41 MiB, held at once against a 512 KiB budget
    budget = 256 * 1024
    most, sizes = run(growing, 3_300, budget)
    assert most <= 2 * (2 * budget), most  # the byte capacity is 2 * batch_bytes
    assert max(sizes) <= budget, max(sizes)


@pytest.mark.timeout(120)
def test_a_jump_in_row_size_overshoots_by_at_most_a_slice_of_demand() -> None:
    # demand granted for 100 B rows is filled with 8 KiB rows: at most one slice of them
    budget = 256 * 1024
    most, _ = run(small_then_large, 21_000, budget)
    assert most <= 2 * budget + DEMAND_SLICE * row_size(small_then_large(20_000)), most


@pytest.mark.timeout(60)
def test_a_row_larger_than_the_whole_budget_still_flows_one_at_a_time() -> None:
    most, sizes = run(lambda i: {"id": i, "payload": "h" * 5000}, 20, 1000)
    assert sizes == [row_size({"payload": "h" * 5000})] * 20  # one row a batch
    assert most <= 2 * 5012 + DEMAND_SLICE * 5012


class CountingSource(GreedySource):
    """A greedy source of ``Positioned`` entries that counts its ``request`` calls:
    ``skips`` entries with no row (``SKIP``, as a filter upstream gives), then rows."""

    def __init__(self, n: int, skips: int) -> None:
        super().__init__(n, lambda i: {"id": i, "payload": ""})
        self.skips, self.requests = skips, 0

    def request(self, n: int) -> None:
        self.requests += 1
        super().request(n)

    def entry(self, i: int) -> Any:
        return Positioned(i + 1, SKIP if i < self.skips else (i, "p" * 100))


@pytest.mark.timeout(60)
def test_records_with_no_row_do_not_wear_the_estimate_down_to_one_request_each() -> None:
    # a run of SKIP entries (0 bytes each) wore the per-record estimate to 0, the
    # "nothing measured yet" state, which asks for one record per request
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "s"),
        sink_id="s",
        batch_rows=1_000,
        executor=ex,
        max_latency=None,
        progress=False,
    )
    source = CountingSource(4_000, skips=3_000)
    to_completion(sink, source, ex, lambda: None)
    assert len(storage.reader_view("s")) == 1_000
    assert source.requests <= 4 * source.n // DEMAND_SLICE, source.requests
