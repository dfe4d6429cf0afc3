"""SparkSink's contract as its caller sees it, without Spark (in-memory writer,
ManualExecutor): where the first batch is cut by the byte estimate of its first record
(the estimate stops descending below nine levels of nesting), and what a
SparkSinkError reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import MemoryStorage
from reactive_streams.spark.sink import SparkSinkError

from .test_sink_unit import FakeSubscription, memory_sink
from .test_sink_units import AnyWriter, any_sink

TEXT = "x" * 1000  # a leaf that estimates 1004 bytes


@dataclass
class Box:
    inner: Any


def in_dicts(levels: int) -> Any:
    value: Any = TEXT
    for _ in range(levels):
        value = {"v": value}
    return value


def in_boxes(levels: int) -> Any:
    value: Any = TEXT
    for _ in range(levels):
        value = Box(value)
    return value


def first_batches(record: Any) -> list[tuple[str, int]]:
    """The converts a sink asks for after five copies of ``record``: a first record of
    1004 estimated bytes cuts batches of two (batch_bytes 2008); one of 8 does not."""
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=100, batch_bytes=2008)
    sink.on_subscribe(FakeSubscription())
    for _ in range(5):
        sink.on_next(record)
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 5
    writer = sink.writer
    assert isinstance(writer, AnyWriter)
    return [c for c in writer.calls if c[0] == "convert"]


@pytest.mark.parametrize("wrap", [in_dicts, in_boxes], ids=["dicts", "dataclasses"])
def test_the_first_record_estimate_descends_nine_levels(wrap: Any) -> None:
    # nine levels: the text at the bottom counts, the first batch holds two records
    assert first_batches(wrap(9)) == [("convert", 0), ("convert", 2), ("convert", 4)]
    assert first_batches(wrap(5)) == [("convert", 0), ("convert", 2), ("convert", 4)]
    # ten: the tenth level counts 8 bytes, the five records fit one batch
    assert first_batches(wrap(10)) == [("convert", 0)]


def test_a_sink_error_says_where_a_restart_resumes_and_what_was_dropped() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run_all()  # batch 0 committed
    sink.on_next((2, "c"))
    sink.on_next("bad")  # batch 1's convert refuses it
    ex.run_all()
    with pytest.raises(SparkSinkError) as caught:
        sink.result(0)
    error = caught.value
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 2
    assert str(error) == (
        "sink failed: field 'id': record 3 is 'bad'; last committed batch id 0, "
        "committed offset 2, 2 records dropped uncommitted"
    )


def test_an_upstream_error_reports_no_dropped_records() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run_all()
    sink.on_error(ValueError("boom"))
    ex.run_all()
    with pytest.raises(SparkSinkError) as caught:
        sink.result(0)
    error = caught.value
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 0
    assert str(error) == ("upstream failed: boom; last committed batch id 0, committed offset 2")
