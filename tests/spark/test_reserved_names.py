"""A column a reader would lose is refused, naming it (issue 42): one named like the
sink's batch partition column ``rs_batch``, or two names equal but for case."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.records import RecordConverter, SchemaError
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload

pa = pytest.importorskip("pyarrow")


@pytest.mark.parametrize(
    ("names", "culprit"),
    [
        (["id", "rs_batch"], "rs_batch"),
        (["RS_Batch", "id"], "RS_Batch"),
        (["id", "v", "ID"], "ID"),
    ],
)
def test_a_declared_schema_with_a_reserved_or_case_twin_name_is_refused(
    names: list[str], culprit: str
) -> None:
    schema = pa.schema([(n, pa.int64()) for n in names])
    with pytest.raises(SchemaError, match=repr(culprit)) as caught:
        RecordConverter(schema)  # what the sink's writer builds at construction
    assert caught.value.field == culprit
    with pytest.raises(SchemaError, match=repr(culprit)):
        RecordConverter(columns=names)  # tuples named by columns=


def test_the_messages_say_why() -> None:
    with pytest.raises(SchemaError, match=r"rs_batch is the sink's batch partition column"):
        RecordConverter(columns=["rs_batch"])
    with pytest.raises(SchemaError, match=r"columns 'id' and 'ID' differ only by case"):
        RecordConverter(columns=["id", "ID"])


class Converting(MemoryBatchWriter):
    """The memory writer with the real converter (an inferred schema)."""

    def __init__(self) -> None:
        super().__init__(MemoryStorage(), "r")
        self.converter = RecordConverter()

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        table = self.converter.convert(records, first_offset)
        return Payload(table, table.num_rows, int(table.nbytes))


@pytest.mark.parametrize(
    ("record", "culprit"),
    [({"id": 1, "rs_batch": "mine"}, "rs_batch"), ({"id": 1, "ID": 2}, "ID")],
)
def test_an_inferred_schema_is_refused_at_the_first_batch(
    record: dict[str, Any], culprit: str
) -> None:
    writer = Converting()
    sink = SparkSink(writer=writer, sink_id="r", max_latency=None, progress=False)
    Flow.from_iterable([record]).subscribe(sink)
    with pytest.raises(SparkSinkError, match=repr(culprit)):
        sink.result(30)
    assert writer.storage.committed("r") == []  # nothing written


@pytest.mark.spark
@pytest.mark.timeout(300)
def test_a_sink_with_a_reserved_column_is_refused_at_construction_and_deletes_nothing(
    spark: Any, tmp_path: Path
) -> None:
    from reactive_streams.spark.writer import read_committed

    path = str(tmp_path / "t")
    first = SparkSink(spark, path, sink_id="n", max_latency=None, progress=False)
    Flow.from_iterable([{"id": 1, "v": 2}]).subscribe(first)
    assert first.result(120).status == "completed"
    with pytest.raises(SchemaError, match="'rs_batch'"):
        SparkSink(spark, path, sink_id="n", schema="id long, rs_batch string", mode="overwrite")
    with pytest.raises(SchemaError, match="'ID'"):
        SparkSink(spark, path, sink_id="n", schema="id long, ID long", mode="overwrite")
    # refused before the overwrite, and its lease released: the table is whole
    assert [r["id"] for r in read_committed(spark, path, sink_id="n").collect()] == [1]
    again = SparkSink(spark, path, sink_id="n", max_latency=None, progress=False)
    again.cancel()
