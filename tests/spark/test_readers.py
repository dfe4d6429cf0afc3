"""Readers that never fail and never miss a column (issue 42)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.commit_log import CommitRecord
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import SparkBatchWriter, read_committed

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600)]
WAIT = 180.0


class UnpublishedFrom(SparkBatchWriter):
    """Publishes batches below ``first`` only: later ones stay committed in staging
    (a writer between its commit and its rename, as a reader polling sees it)."""

    first = 1

    def publish(self, record: CommitRecord) -> None:
        if record.batch_id >= self.first:
            raise OSError("publish held back")
        super().publish(record)


def test_a_committed_batch_not_yet_renamed_neither_fails_nor_mixes_a_read(
    spark: Any, tmp_path: Path
) -> None:
    # main read the staged batch beside rs_batch= directories: Spark refused with
    # CONFLICTING_DIRECTORY_STRUCTURES
    path = str(tmp_path / "t")
    writer = UnpublishedFrom(spark, path, "r")
    sink = SparkSink(
        writer=writer, sink_id="r", batch_rows=10, max_latency=None, max_attempts=1,
        progress=False,
    )  # fmt: skip
    Flow.from_iterable([{"id": i, "v": f"x{i}"} for i in range(20)]).subscribe(sink)
    with pytest.raises(SparkSinkError, match="publish held back"):
        sink.result(WAIT)
    assert [r.batch_id for r in writer.log.records() if r.files] == [0, 1]  # both committed
    ids = sorted(r["id"] for r in read_committed(spark, path, sink_id="r").collect())
    assert ids == list(range(10))  # the published prefix, whole batches only
    # a restart rolls batch 1 forward: then it is read
    SparkSink(spark, path, sink_id="r", progress=False).cancel()
    ids = sorted(r["id"] for r in read_committed(spark, path, sink_id="r").collect())
    assert ids == list(range(20))


def test_an_evolved_table_is_read_with_its_merged_schema(spark: Any, tmp_path: Path) -> None:
    # main read the schema from one file: the added column was missing
    path = str(tmp_path / "ev")
    table = "rs_evolved_readers"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    first = SparkSink(spark, path, sink_id="e", table=table, schema="id long", progress=False)
    Flow.from_iterable([{"id": i} for i in range(3)]).subscribe(first)
    assert first.result(WAIT).status == "completed"
    second = SparkSink(
        spark, path, sink_id="e", table=table, schema="id long, w string",
        schema_evolution="add_columns", progress=False,
    )  # fmt: skip
    Flow.from_iterable([{"id": i, "w": f"w{i}"} for i in range(3, 6)]).subscribe(second)
    assert second.result(WAIT).status == "completed"
    want = [(0, None), (1, None), (2, None), (3, "w3"), (4, "w4"), (5, "w5")]
    df = read_committed(spark, path, sink_id="e")
    assert "w" in df.columns
    assert sorted((r["id"], r["w"]) for r in df.collect()) == want
    catalog = spark.table(table)
    assert "w" in catalog.columns
    assert sorted((r["id"], r["w"]) for r in catalog.collect()) == want
    spark.sql(f"DROP TABLE IF EXISTS {table}")
