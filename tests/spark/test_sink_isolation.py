"""Issue 26 items 1 and 4 on a real local SparkSession: two sink ids in one table
with overwrite; in-progress batches invisible to plain readers; ``table=`` shows
each batch as it commits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.spark.commit_log import CommitRecord, LeaseHeld
from reactive_streams.spark.sink import SparkSink
from reactive_streams.spark.writer import SparkBatchWriter, read_committed

from .conftest import RecordSource

pytestmark = [pytest.mark.spark, pytest.mark.timeout(360)]

WAIT = 300.0


def ids(df: Any) -> list[int]:
    return sorted(int(r["id"]) for r in df.select("id").collect())


def run(spark: Any, path: Path, sink_id: str, start: int, stop: int, **kw: Any) -> SparkSink:
    sink = SparkSink(
        spark, str(path), sink_id=sink_id, batch_rows=10, max_latency=None, progress=False, **kw
    )
    RecordSource(sink.resume_offset if start < 0 else start, stop).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    return sink


def test_overwrite_of_ev_keeps_ev_eu_which_resumes_exactly(spark: Any, tmp_path: Path) -> None:
    run(spark, tmp_path, "ev", 0, 30)
    run(spark, tmp_path, "ev-eu", 0, 30)
    run(spark, tmp_path, "ev", 0, 20, mode="overwrite")  # a re-run of ev from the start
    resumed = run(spark, tmp_path, "ev-eu", -1, 50)  # ev-eu goes on where it stopped
    assert resumed.resume_offset == 30
    assert ids(read_committed(spark, str(tmp_path), sink_id="ev-eu")) == list(range(50))
    assert ids(read_committed(spark, str(tmp_path), sink_id="ev")) == list(range(20))
    plain = spark.read.parquet(str(tmp_path))
    assert plain.count() == 70  # a plain reader: both sinks, once each


class Watching(SparkBatchWriter):
    """Counts what a plain reader and the catalog table see around each commit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.before_commit: list[int] = []
        self.after_publish: list[int] = []

    def commit(self, record: CommitRecord) -> None:
        try:
            seen = self.spark.read.parquet(self.path).count()
        except Exception:  # nothing visible yet: Spark cannot infer a schema
            seen = 0
        self.before_commit.append(seen)
        super().commit(record)

    def publish(self, record: CommitRecord) -> None:
        super().publish(record)
        if self.table is not None:
            self.after_publish.append(self.spark.table(self.table).count())


def test_plain_readers_and_the_catalog_see_only_committed_batches(
    spark: Any, tmp_path: Path
) -> None:
    writer = Watching(spark, str(tmp_path / "t"), "slow", table="rs_isolated")
    try:
        sink = SparkSink(writer=writer, sink_id="slow", batch_rows=10, max_latency=None)
        RecordSource(0, 40).subscribe(sink)
        assert sink.result(WAIT).status == "completed"
        # the batch being committed is not visible before its commit
        assert writer.before_commit == [0, 10, 20, 30]
        # and the catalog table shows each batch as soon as it commits
        assert writer.after_publish == [10, 20, 30, 40]
        assert sorted(spark.table("rs_isolated").columns) == ["id", "key", "rs_batch", "value"]
    finally:
        spark.sql("DROP TABLE IF EXISTS rs_isolated")


def test_a_second_sink_on_a_live_lease_is_refused_before_it_deletes(
    spark: Any, tmp_path: Path
) -> None:
    # issue 26.2: another host's writer holds sink id "busy" and is writing batch 0
    sink_dir = tmp_path / "_rs_sink" / "busy"
    (sink_dir / "lease").mkdir(parents=True)
    holder = {"epoch": 0, "holder": "node-b:4242:ab12", "host": "node-b", "pid": 4242}
    (sink_dir / "lease" / "000000000000.json").write_text(
        json.dumps({**holder, "taken": time.time()})
    )
    staged = sink_dir / "staging" / "000000000000"
    staged.mkdir(parents=True)
    (staged / "part-0.parquet").write_bytes(b"in flight")
    with pytest.raises(LeaseHeld, match=r"'busy' .* is held by node-b:4242:ab12 \(host node-b"):
        SparkSink(spark, str(tmp_path), sink_id="busy", progress=False)
    assert (staged / "part-0.parquet").read_bytes() == b"in flight"  # nothing deleted


def test_the_catalog_table_with_partition_by_shows_each_committed_batch(
    spark: Any, tmp_path: Path
) -> None:
    # table= with partition_by: <batch dir>/key=<v>/ under each batch, found by the
    # catalog as it commits, the partition column typed and read back by value
    writer = Watching(spark, str(tmp_path / "t"), "parts", table="rs_parted", partition_by=["key"])
    try:
        sink = SparkSink(writer=writer, sink_id="parts", batch_rows=10, max_latency=None)
        RecordSource(0, 30).subscribe(sink)
        assert sink.result(WAIT).status == "completed"
        assert writer.after_publish == [10, 20, 30]
        table = spark.table("rs_parted")
        assert sorted(table.columns) == ["id", "key", "rs_batch", "value"]
        rows = table.select("id", "key").collect()
        assert sorted((r["id"], r["key"]) for r in rows) == [(i, f"k{i % 7}") for i in range(30)]
        assert table.where("key = 'k3'").count() == len([i for i in range(30) if i % 7 == 3])
        again = SparkSink(
            spark,
            str(tmp_path / "t"),
            sink_id="parts",
            table="rs_parted",
            partition_by=["key"],
            batch_rows=10,
            max_latency=None,
            progress=False,
        )
        RecordSource(again.resume_offset, 45).subscribe(again)
        assert again.result(WAIT).status == "completed"
        assert ids(spark.table("rs_parted")) == list(range(45))
        assert ids(read_committed(spark, str(tmp_path / "t"), sink_id="parts")) == list(range(45))
    finally:
        spark.sql("DROP TABLE IF EXISTS rs_parted")
