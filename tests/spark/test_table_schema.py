"""The table's schema is stored beside the commit log; a run with another schema is
refused with a diff unless schema_evolution allows added nullable columns (issue 26)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.quarantine import LocalFS
from reactive_streams.spark.records import RecordConverter, SchemaError
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload

pa = pytest.importorskip("pyarrow")
WAIT = 30.0


class TableWriter(MemoryBatchWriter):
    """The memory writer with a table path, a filesystem and the real converter."""

    def __init__(self, storage: MemoryStorage, path: Path, schema: Any) -> None:
        super().__init__(storage, "s")
        self.fs = LocalFS()
        self.path = f"file://{path}"
        self.converter = RecordConverter(schema)

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        table = self.converter.convert(records, first_offset)
        return Payload(table, table.num_rows, int(table.nbytes))


def sink(storage: MemoryStorage, path: Path, schema: Any = None, **kw: Any) -> SparkSink:
    return SparkSink(
        writer=TableWriter(storage, path, schema),
        sink_id="s",
        batch_rows=10,
        max_latency=None,
        progress=False,
        **kw,
    )


def write(s: SparkSink, records: list[dict[str, Any]]) -> None:
    Flow.from_iterable(records).subscribe(s)
    assert s.result(WAIT).status == "completed"


V1 = pa.schema([("id", pa.int64()), ("v", pa.float64())])


def test_another_schema_is_refused_with_a_diff(tmp_path: Path) -> None:
    storage = MemoryStorage()
    write(sink(storage, tmp_path, V1), [{"id": 1, "v": 0.5}])
    changed = pa.schema([("id", pa.int64()), ("v", pa.string())])
    with pytest.raises(SchemaError, match=r"~ v: double -> string"):
        sink(storage, tmp_path, changed)
    with pytest.raises(SchemaError, match=r"- v: double"):
        sink(storage, tmp_path, pa.schema([("id", pa.int64())]))
    added = V1.append(pa.field("note", pa.string()))
    with pytest.raises(SchemaError, match=r"\+ note: string.*schema_evolution='add_columns'"):
        sink(storage, tmp_path, added)
    required = V1.append(pa.field("n", pa.int64(), nullable=False))
    with pytest.raises(SchemaError, match=r"\+ n: int64 not null"):
        sink(storage, tmp_path, required, schema_evolution="add_columns")
    write(
        sink(storage, tmp_path, added, schema_evolution="add_columns"),
        [{"id": 2, "v": 1.0, "note": "x"}],
    )
    assert sorted(p.name for p in (tmp_path / "_rs_sink" / "_schema").iterdir()) == [
        "000000000000.json",
        "000000000001.json",
    ]
    with pytest.raises(SchemaError, match=r"- note: string"):  # version 1 is current now
        sink(storage, tmp_path, V1)


def test_an_inferred_schema_is_checked_at_the_first_batch(tmp_path: Path) -> None:
    storage = MemoryStorage()
    write(sink(storage, tmp_path), [{"id": 1, "v": 0.5}])
    stored = (tmp_path / "_rs_sink" / "_schema" / "000000000000.json").read_text()
    assert '"name": "v"' in stored
    assert '"type": "double"' in stored
    # a later inferring run takes the table's schema: an all-null column keeps its type
    write(sink(storage, tmp_path), [{"id": 2, "v": None}])
    late = sink(storage, tmp_path)
    Flow.from_iterable([{"id": 3, "v": "text"}]).subscribe(late)
    with pytest.raises(SparkSinkError, match="field 'v'"):
        late.result(WAIT)
    other = tmp_path / "other"  # evolution on: an inferred run is checked at its first batch
    write(sink(storage, other, schema_evolution="add_columns"), [{"id": 1, "v": 0.5}])
    wrong = sink(storage, other, schema_evolution="add_columns")
    Flow.from_iterable([{"id": 2, "v": "s"}]).subscribe(wrong)
    with pytest.raises(SparkSinkError, match=r"~ v: double -> string"):
        wrong.result(WAIT)


@pytest.mark.spark
def test_spark_table_refuses_a_changed_schema(spark: Any, tmp_path: Path) -> None:
    table = str(tmp_path / "t")
    first = SparkSink(spark, table, sink_id="a", schema="id long, v double", progress=False)
    Flow.from_iterable([{"id": 1, "v": 0.5}]).subscribe(first)
    assert first.result(120).status == "completed"
    with pytest.raises(SchemaError, match=r"~ v: double -> string"):
        SparkSink(spark, table, sink_id="b", schema="id long, v string", progress=False)
    assert (tmp_path / "t" / "_rs_sink" / "_schema" / "000000000000.json").exists()
