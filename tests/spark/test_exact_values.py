"""Every value lands exactly or is refused naming its record and field path, so
``bad_records=`` can quarantine it (issue 42); ``FileSource("dir")`` reads the
directory; a fenced writer (``LeaseLost``) is not retried."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.lease import LeaseLost
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.records import RecordConverter, SchemaError
from reactive_streams.spark.replay import FileSource
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload

pa = pytest.importorskip("pyarrow")
WAIT = 30.0
NTZ = pa.timestamp("us")  # Spark's timestamp_ntz
TS = pa.timestamp("us", tz="UTC")  # Spark's timestamp
PARIS = timezone(timedelta(hours=1))


def refused(schema: Any, records: list[dict[str, Any]]) -> SchemaError:
    with pytest.raises(SchemaError) as caught:
        RecordConverter(pa.schema(schema)).convert(records, 100)
    return caught.value


def test_an_aware_datetime_into_timestamp_ntz_is_refused_with_its_path() -> None:
    # main stored its UTC wall time (11:00), not the 12:00 it said
    naive = datetime(2024, 5, 1, 12, 0)
    error = refused([("ts", NTZ)], [{"ts": naive}, {"ts": naive.replace(tzinfo=PARIS)}])
    assert (error.field, error.record_index) == ("ts", 101)
    assert "time zone" in str(error)
    assert "record 101" in str(error)
    nested = pa.struct([("at", NTZ)])
    error = refused([("e", nested)], [{"e": {"at": naive.replace(tzinfo=UTC)}}])
    assert (error.field, error.record_index) == ("e.at", 100)
    # exact: a naive one, and an aware one into a timestamp with a zone
    table = RecordConverter(pa.schema([("ts", NTZ), ("z", TS)])).convert(
        [{"ts": naive, "z": naive.replace(tzinfo=PARIS)}]
    )
    assert table.column("ts")[0].as_py() == naive
    assert table.column("z")[0].as_py() == datetime(2024, 5, 1, 11, 0, tzinfo=UTC)


def test_pandas_nanoseconds_are_refused_not_truncated() -> None:
    pd = pytest.importorskip("pandas")
    exact = pd.Timestamp("2024-05-01 12:00:00.000001", tz="UTC")
    nanos = pd.Timestamp("2024-05-01 12:00:00.000001005", tz="UTC")
    error = refused([("ts", TS)], [{"ts": exact}, {"ts": nanos}])
    assert (error.field, error.record_index) == ("ts", 101)
    assert "5 ns" in str(error)
    table = RecordConverter(pa.schema([("ts", TS)])).convert([{"ts": exact}])
    assert table.column("ts")[0].as_py() == exact.to_pydatetime()


def test_a_null_in_a_nested_not_null_field_is_refused_with_its_path() -> None:
    # main let Arrow take it: Spark failed the write 3 times, naming no record
    inner = pa.struct([pa.field("b", pa.int64(), nullable=False)])
    error = refused([("a", inner)], [{"a": {"b": 1}}, {"a": {"b": None}}])
    assert (error.field, error.record_index) == ("a.b", 101)
    assert "not nullable" in str(error)
    assert refused([("a", inner)], [{"a": {}}]).field == "a.b"  # a missing key is a null
    items = pa.list_(pa.field("x", pa.int64(), nullable=False))
    assert refused([("xs", items)], [{"xs": [1, None]}]).field == "xs[1]"


class Converting(MemoryBatchWriter):
    """The memory writer with the real converter and a declared schema."""

    def __init__(self, schema: Any) -> None:
        super().__init__(MemoryStorage(), "v")
        self.converter = RecordConverter(schema)

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        table = self.converter.convert(records, first_offset)
        return Payload(table.to_pylist(), table.num_rows, int(table.nbytes))


def test_a_refused_value_is_quarantined_by_bad_records(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.int64()), ("a", pa.struct([pa.field("b", NTZ, False)]))])
    at = datetime(2024, 5, 1, 12, 0)
    records = [{"id": i, "a": {"b": at}} for i in range(6)]
    records[2] = {"id": 2, "a": {"b": None}}
    records[4] = {"id": 4, "a": {"b": at.replace(tzinfo=PARIS)}}
    writer = Converting(schema)
    sink = SparkSink(
        writer=writer,
        sink_id="v",
        batch_rows=10,
        max_latency=None,
        progress=False,
        bad_records=str(tmp_path / "q"),
    )
    Flow.from_iterable(records).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    assert [r["id"] for r in writer.storage.reader_view("v")] == [0, 1, 3, 5]
    kept = sorted(json.loads(p.read_text())["error"] for p in (tmp_path / "q").iterdir())
    assert len(kept) == 2
    assert "'a.b': record 2" in kept[0]
    assert "not nullable" in kept[0]
    assert "'a.b': record 4" in kept[1]
    assert "time zone" in kept[1]


def test_a_float32_column_takes_the_nearest_float32_as_documented() -> None:
    table = RecordConverter(pa.schema([("f", pa.float32())])).convert([{"f": 0.1}])
    assert table.column("f").type == pa.float32()
    assert table.column("f")[0].as_py() == float(pa.scalar(0.1, pa.float32()).as_py())
    assert refused([("f", pa.float32())], [{"f": 1e300}]).field == "f"  # out of range


def test_file_source_given_one_path_as_a_string_reads_it(tmp_path: Path) -> None:
    # main iterated the string's characters, each one a "path"
    (tmp_path / "a.jsonl").write_text('{"id": 1}\n{"id": 2}\n')
    (tmp_path / "b.jsonl").write_text('{"id": 3}\n')
    got: list[Any] = []
    for given in (str(tmp_path), tmp_path, [str(tmp_path)]):
        source = FileSource(given)
        rows = Flow.from_publisher(source.replay_from(None)).to_list(WAIT)
        got.append([r.value["id"] for r in rows])
    assert got == [[1, 2, 3]] * 3


class Fenced(MemoryBatchWriter):
    """A writer whose lease was taken over: every commit is refused."""

    def commit(self, record: Any) -> None:
        self.calls.append(("commit", record.batch_id))
        raise LeaseLost(f"sink v: batch {record.batch_id}: the lease was taken over")


def test_lease_lost_is_final_not_retried() -> None:
    slept: list[float] = []
    writer = Fenced(MemoryStorage(), "v")
    sink = SparkSink(
        writer=writer,
        sink_id="v",
        batch_rows=2,
        max_latency=None,
        progress=False,
        sleep=slept.append,
    )
    Flow.from_iterable([(0, "a"), (1, "b")]).subscribe(sink)
    with pytest.raises(SparkSinkError, match=r"commit of batch 0 failed after 1 attempt") as e:
        sink.result(WAIT)
    assert [c for c in writer.calls if c[0] == "commit"] == [("commit", 0)]  # once
    assert slept == []  # and no back-off
    assert "LeaseLost" in str(e.value)
