"""SparkSink and RecordConverter without a SparkSession (in-memory writer, ManualExecutor)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.sink import SparkSink, SparkSinkError


class FakeSubscription:
    def __init__(self) -> None:
        self.requested = 0
        self.cancelled = False

    def request(self, n: int) -> None:
        assert n > 0
        self.requested += n

    def cancel(self) -> None:
        self.cancelled = True


def memory_sink(storage: MemoryStorage, executor: Any = None, **kw: Any) -> SparkSink:
    kw.setdefault("max_latency", None)
    return SparkSink(
        writer=MemoryBatchWriter(storage, "u"),
        sink_id="u",
        executor=executor,
        progress=False,
        sleep=lambda _s: None,
        **kw,
    )


def test_importing_the_package_does_not_import_pyspark() -> None:
    code = (
        "import sys, reactive_streams, reactive_streams.spark as s; "
        "s.SparkSink; s.MemoryBatchWriter; "
        "assert 'pyspark' not in sys.modules and 'pyarrow' not in sys.modules, 'imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_max_latency_seals_a_partial_batch() -> None:
    storage = MemoryStorage()
    sink = memory_sink(storage, batch_rows=1_000, max_latency=0.05)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    for i in range(3):
        sink.on_next((i, "x"))
    deadline = time.monotonic() + 30
    while storage.committed_offset("u") < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert storage.committed_offset("u") == 3  # without completion, by the timer
    assert sub.requested == 64 + 3  # the first slice of demand, then the freed rows


def test_byte_budget_shrinks_later_batches() -> None:
    storage = MemoryStorage()
    ex = ManualExecutor()
    # the memory writer reports 16 bytes per row: a 64-byte budget means 4 rows
    sink = memory_sink(storage, ex, batch_rows=10, batch_bytes=64)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    for i in range(30):
        assert i < sub.requested
        sink.on_next((i, "x"))
        ex.run_all()
    sink.on_complete()
    ex.run_all()
    sizes = [r.rows for r in storage.committed("u")]
    # the first batch by the first record's estimate (17 bytes), then as measured (16)
    assert sizes == [3, 4, 4, 4, 4, 4, 4, 3]
    assert sink.result(0).status == "completed"


def test_spec101_more_elements_than_requested_fail_the_sink() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=2)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    i = 0
    while i <= sub.requested:  # one more than requested (the sink asks as records come)
        sink.on_next((i, "x"))
        i += 1
    ex.run_all()
    with pytest.raises(SparkSinkError, match=r"rule 1\.1"):
        sink.result(0)
    assert sub.cancelled


def test_spec205_second_subscription_is_cancelled() -> None:
    sink = memory_sink(MemoryStorage(), ManualExecutor())
    first, second = FakeSubscription(), FakeSubscription()
    sink.on_subscribe(first)
    sink.on_subscribe(second)
    assert second.cancelled
    assert not first.cancelled
    assert second.requested == 0


def test_spec213_none_raises() -> None:
    sink = memory_sink(MemoryStorage(), ManualExecutor())
    with pytest.raises(TypeError, match=r"rule 2\.13"):
        sink.on_next(None)


def test_upstream_error_flushes_then_fails_with_the_cause() -> None:
    storage = MemoryStorage()
    ex = ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=100)
    sink.on_subscribe(FakeSubscription())
    for i in range(7):
        sink.on_next((i, "x"))
    boom = RuntimeError("source broke")
    sink.on_error(boom)
    ex.run_all()
    with pytest.raises(SparkSinkError) as info:
        sink.result(0)
    assert info.value.__cause__ is boom
    assert info.value.committed_offset == 7 == storage.committed_offset("u")


def test_cancel_resolves_cancelled_and_cancels_upstream() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=5)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    sink.on_next((0, "x"))
    sink.cancel()
    ex.run_all()
    assert sub.cancelled
    result = sink.result(0)
    assert result.status == "cancelled"
    assert result.metrics.records == 0


# ------------------------------------------------------------- RecordConverter
pa = pytest.importorskip("pyarrow")


def converter(schema: Any = None, columns: Any = None) -> Any:
    from reactive_streams.spark.records import RecordConverter

    return RecordConverter(schema, columns)


def schema_error() -> Any:
    from reactive_streams.spark.records import SchemaError

    return SchemaError


SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def test_converter_fast_path_and_types() -> None:
    table = converter(SCHEMA).convert([{"id": 1, "name": "a"}, {"id": 2, "name": None}])
    assert table.schema == SCHEMA
    assert table.column("id").to_pylist() == [1, 2]


@pytest.mark.parametrize(
    ("records", "field", "index"),
    [
        ([{"id": 1, "name": "a"}, {"id": "x", "name": "b"}], "id", 11),
        ([{"id": 1, "name": "a"}, {"id": 2}], "name", 11),
        ([{"id": 1, "name": "a"}, {"id": 2, "name": "b", "extra": 0}], "extra", 11),
        ([{"id": 1, "name": "a"}, {"id": 2, "nom": "b"}], "name", 11),
        ([{"id": None, "name": "a"}], "id", 10),
    ],
)
def test_converter_names_the_field(records: list[Any], field: str, index: int) -> None:
    with pytest.raises(schema_error()) as info:
        converter(SCHEMA).convert(records, first_index=10)
    assert info.value.field == field
    assert info.value.record_index == index
    assert repr(field) in str(info.value)


def test_inferred_schema_is_fixed_after_the_first_batch() -> None:
    conv = converter(columns=["id", "name"])
    conv.convert([(1, "a"), (2, "b")])
    assert conv.schema.names == ["id", "name"]
    with pytest.raises(schema_error()) as info:
        conv.convert([(3, "c"), (4, 5.5)], first_index=2)
    assert info.value.field == "name"
    with pytest.raises(schema_error(), match="3 fields"):
        conv.convert([(5, "e", "extra")])


def test_publish_failure_after_commit_fails_the_sink_on_real_threads() -> None:
    storage = MemoryStorage()
    writer = MemoryBatchWriter(storage, "u")
    for _ in range(3):
        writer.inject("publish", "fail")
    sink = SparkSink(
        writer=writer,
        sink_id="u",
        batch_rows=5,
        max_attempts=3,
        progress=False,
        sleep=lambda _s: None,
    )
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    for i in range(10):
        sink.on_next((i, "x"))
    with pytest.raises(SparkSinkError, match="publish of batch 0 failed after 3"):
        sink.result(30)
    assert sub.cancelled
    assert storage.committed_offset("u") == 5  # committed: a restart rolls it forward


def test_close_flushes_commits_and_cancels_upstream() -> None:
    storage = MemoryStorage()
    sink = memory_sink(storage, batch_rows=100)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    for i in range(7):
        sink.on_next((i, "x"))
    sink.close()
    assert sub.cancelled
    sink.on_next((7, "late"))  # after close: dropped
    result = sink.result(30)
    assert result.status == "closed"
    assert storage.reader_view("u") == [(i, "x") for i in range(7)]


def test_max_latency_is_on_by_default() -> None:
    sink = SparkSink(writer=MemoryBatchWriter(MemoryStorage(), "d"), sink_id="d")
    assert sink.max_latency is not None
    assert 0 < sink.max_latency <= 5
    with pytest.raises(ValueError, match="max_latency"):
        SparkSink(writer=MemoryBatchWriter(MemoryStorage(), "d"), sink_id="d", max_latency=0)
    sink.cancel()


def test_lossy_values_are_errors_naming_field_record_and_types() -> None:
    conv = converter(pa.schema([("n", pa.int64()), ("x", pa.float64())]))
    with pytest.raises(schema_error()) as info:
        conv.convert([{"n": 1, "x": 1.0}, {"n": 2500.5, "x": 2.0}], first_index=40)
    assert (info.value.field, info.value.record_index) == ("n", 41)
    assert "float 2500.5" in str(info.value)
    assert "int64" in str(info.value)
    with pytest.raises(schema_error()) as info:
        conv.convert([{"n": 1, "x": True}])
    assert info.value.field == "x"
    assert "bool True" in str(info.value)
    assert "double" in str(info.value)
    assert conv.convert([{"n": 3.0, "x": 4}]).to_pylist() == [{"n": 3, "x": 4.0}]  # lossless
