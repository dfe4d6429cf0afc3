"""SparkSink on a real local SparkSession: exactly-once, failures, schema, cancel, demand."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.spark.commit_log import CommitLog, CommitRecord
from reactive_streams.spark.hadoop_fs import HadoopFS
from reactive_streams.spark.memory import SimulatedCrash
from reactive_streams.spark.records import SchemaError
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload, SparkBatchWriter, StagedBatch, read_committed

from . import chaos
from .conftest import RecordSource, event

pytestmark = [pytest.mark.spark, pytest.mark.timeout(360)]

WAIT = 300.0


def size_sink(*args: Any, **kwargs: Any) -> SparkSink:
    """A sink that batches by size only: these tests assert batch boundaries."""
    kwargs.setdefault("max_latency", None)
    return SparkSink(*args, **kwargs)


class FaultyWriter(SparkBatchWriter):
    """The Spark writer with hooks that fail or 'crash' at chosen steps."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stage_failures: dict[int, int] = {}  # batch id -> failures left
        self.crash_after: tuple[str, int] | None = None  # (step, batch id)
        self.committed = threading.Event()
        self.crashed = threading.Event()

    def _crash(self, where: str) -> None:
        assert self.log.lease is not None
        self.log.lease.abandon()  # its heartbeat dies with it; the lease stays unreleased
        self.crashed.set()  # the 'process' is dead from here on
        raise SimulatedCrash(where)

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch:
        if self.crashed.is_set():
            self._crash("dead")
        if self.stage_failures.get(batch_id, 0) > 0:
            self.stage_failures[batch_id] -= 1
            raise OSError(f"injected: disk full while writing batch {batch_id}")
        staged = super().stage(batch_id, attempt, payload)
        if self.crash_after == ("stage", batch_id):
            self._crash("after stage")
        return staged

    def commit(self, record: CommitRecord) -> None:
        if self.crashed.is_set():
            self._crash("dead")
        super().commit(record)
        self.committed.set()
        if self.crash_after == ("commit", record.batch_id):
            self._crash("after commit")

    def publish(self, record: CommitRecord) -> None:
        if self.crashed.is_set():
            self._crash("dead")
        super().publish(record)


def ids_in(spark: Any, path: Path, fmt: str = "parquet") -> list[int]:
    reader = spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    return sorted(int(r["id"]) for r in reader.load(str(path)).select("id").collect())


class CrashingExecutor:
    """A thread per task; a task ends quietly at a SimulatedCrash (the writer is dead after it)."""

    def execute(self, task: Callable[[], None]) -> None:
        def guarded() -> None:
            with contextlib.suppress(SimulatedCrash):
                task()

        threading.Thread(target=guarded, daemon=True).start()


@pytest.mark.parametrize("step", ["stage", "commit"])
def test_exactly_once_after_crash_and_restart(spark: Any, tmp_path: Path, step: str) -> None:
    n, batch = 5_000, 1_000
    writer = FaultyWriter(spark, str(tmp_path), "crashy")
    writer.crash_after = (step, 2)
    first = size_sink(
        writer=writer, sink_id="crashy", batch_rows=batch, executor=CrashingExecutor()
    )
    source = RecordSource(0, n)
    source.subscribe(first)
    assert writer.crashed.wait(WAIT), "the injected crash did not happen"
    source.cancel()  # the process is gone: its source goes with it
    log = writer.log
    before = [r.batch_id for r in log.records()]
    assert before == ([0, 1, 2] if step == "commit" else [0, 1])
    staged = tmp_path / "_rs_sink" / "crashy" / "staging" / "000000000002"
    batch2 = tmp_path / "rs_batch=crashy-000000000002"
    # written, hidden until published; committed only if the crash came after the commit
    assert staged.is_dir()
    assert not batch2.exists()

    second = size_sink(spark, str(tmp_path), sink_id="crashy", batch_rows=batch, progress=False)
    assert second.resume_offset == len(before) * batch
    # recovery rolls a committed batch forward and deletes an uncommitted one
    assert batch2.is_dir() == (step == "commit")
    assert not staged.exists()
    removed = "_rs_sink/crashy/staging/000000000002"
    assert second.recovery.removed_staging == (() if step == "commit" else (removed,))
    assert second.recovery.rolled_forward == ((2,) if step == "commit" else ())
    RecordSource(second.resume_offset, n).subscribe(second)
    result = second.result(WAIT)
    assert result.status == "completed"
    assert ids_in(spark, tmp_path) == list(range(n))  # nothing lost, nothing twice
    # the restart took over the crashed writer's lease: one fence record (issue 26.2)
    assert [r.batch_id for r in log.records()] == list(range(n // batch + 1))


@pytest.mark.skipif(
    os.environ.get("RS_SLOW") != "1",
    reason="a killed and resumed job (27 s): make slow-checks",
)
@pytest.mark.timeout(900)
def test_filtering_pipeline_killed_and_resumed_by_position_is_exact(
    spark: Any, tmp_path: Path
) -> None:
    """SIGKILL of the whole job (a filter and keep_if in the pipeline), resume by
    source position: every kept row exactly once (counting the sink's records as the
    resume point instead duplicated 4.9 % of the rows)."""
    # 16 batches of kept rows over 10 files, killed at the same commit (seeded), as with
    # 100_000 rows in batches of 5_000: the claim is about positions, not volume (7 s less)
    report = chaos.run_chaos(tmp_path, rows=20_000, kills=1, master="local[1]", batch=1_000)
    assert len(report.kills) == 1
    assert report.runs == 2
    chaos.read_back(spark, tmp_path / "table", report)
    assert report.expected_count == 16_000
    assert (report.count, report.distinct) == (report.expected_count, report.expected_count)
    assert report.id_sum == report.expected_sum
    records = CommitLog(HadoopFS(spark), str(tmp_path / "table"), "chaos").records()
    done = [f"part-{k:03d}.jsonl" for k in range(9)]
    assert records[-1].position == {"done": done, "file": "part-009.jsonl", "row": 2_000}


def test_write_failure_is_retried_then_cancels_upstream(spark: Any, tmp_path: Path) -> None:
    writer = FaultyWriter(spark, str(tmp_path), "failing")
    writer.stage_failures = {1: 1, 3: 99}  # batch 1 recovers on retry; batch 3 never does
    sink = size_sink(
        writer=writer, sink_id="failing", batch_rows=500, max_attempts=3, retry_backoff_s=0.01
    )
    source = RecordSource(0, 10_000)
    source.subscribe(sink)
    with pytest.raises(SparkSinkError) as info:
        sink.result(WAIT)
    err = info.value
    assert source.cancelled.is_set(), "the upstream is cancelled"
    assert err.last_committed_batch_id == 2
    assert err.committed_offset == 1_500
    assert "stage of batch 3 failed after 3 attempt(s)" in str(err)
    assert "disk full" in str(err.__cause__)
    assert err.uncommitted_records > 0  # reported, not silently dropped
    assert sink.metrics.retries == 1 + 2
    assert ids_in(spark, tmp_path) == list(range(1_500))


def test_schema_error_names_the_field(spark: Any, tmp_path: Path) -> None:
    def make(i: int) -> dict[str, Any]:
        rec = event(i)
        if i == 1_234:
            rec["value"] = "not a number"
        return rec

    sink = size_sink(
        spark,
        str(tmp_path),
        sink_id="schema",
        batch_rows=1_000,
        schema="id long, key string, value double",
    )
    source = RecordSource(0, 5_000, make)
    source.subscribe(sink)
    with pytest.raises(SparkSinkError) as info:
        sink.result(WAIT)
    cause = info.value.__cause__
    assert isinstance(cause, SchemaError)
    assert cause.field == "value"
    assert cause.record_index == 1_234
    assert "field 'value'" in str(info.value)
    assert source.cancelled.is_set()
    assert info.value.last_committed_batch_id == 0
    assert ids_in(spark, tmp_path) == list(range(1_000))


def test_unexpected_field_is_named(spark: Any, tmp_path: Path) -> None:
    def make(i: int) -> dict[str, Any]:
        return {**event(i), "extra": 1} if i == 7 else event(i)

    sink = size_sink(spark, str(tmp_path), sink_id="extra", batch_rows=100)
    RecordSource(0, 50, make).subscribe(sink)
    with pytest.raises(SparkSinkError) as info:
        sink.result(WAIT)
    assert isinstance(info.value.__cause__, SchemaError)
    assert info.value.__cause__.field == "extra"


def test_cancel_mid_stream(spark: Any, tmp_path: Path) -> None:
    writer = FaultyWriter(spark, str(tmp_path), "cancel")
    sink = size_sink(writer=writer, sink_id="cancel", batch_rows=1_000)
    source = RecordSource(0, None)  # endless
    source.subscribe(sink)
    assert writer.committed.wait(WAIT)
    sink.cancel()
    assert source.cancelled.is_set()
    result = sink.result(WAIT)
    assert result.status == "cancelled"
    assert source.finished.wait(WAIT)
    committed = result.metrics.committed_offset
    assert committed >= 1_000
    assert ids_in(spark, tmp_path) == list(range(committed))
    assert writer.log.records()[-1].offset_after == committed


class WatchedSource(RecordSource):
    """Checks, at every request and emission, that demand never exceeds the free buffer."""

    sink: SparkSink

    def request(self, n: int) -> None:
        super().request(n)
        self._check()

    def _check(self) -> None:
        with self.cond:
            demand = self.demand
        assert demand + self.sink.buffered <= self.sink.capacity
        self.worst = max(getattr(self, "worst", 0), demand + self.sink.buffered)


def test_demand_never_exceeds_free_buffer(spark: Any, tmp_path: Path) -> None:
    sink = size_sink(spark, str(tmp_path), sink_id="demand", batch_rows=1_000)
    source = WatchedSource(0, 12_345, on_emit=lambda _i: source._check())
    source.sink = sink
    source.subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    assert source.worst <= sink.capacity == 2_000
    assert max(source.requests) <= sink.capacity
    assert ids_in(spark, tmp_path) == list(range(12_345))
    assert sink.metrics.batches == 13


@dataclasses.dataclass
class Reading:
    id: int
    sensor: str
    celsius: float


@pytest.mark.parametrize("fmt", ["csv", "json", "orc"])
def test_other_formats_and_record_kinds(spark: Any, tmp_path: Path, fmt: str) -> None:
    sink = size_sink(spark, str(tmp_path), sink_id=f"f{fmt}", format=fmt, batch_rows=300)
    RecordSource(0, 1_000, lambda i: Reading(i, f"s{i % 3}", i / 10)).subscribe(sink)
    assert sink.result(WAIT).metrics.records == 1_000
    assert ids_in(spark, tmp_path, fmt) == list(range(1_000))


def test_tuples_with_columns_into_a_catalog_table(spark: Any, tmp_path: Path) -> None:
    sink = size_sink(
        spark, str(tmp_path / "tbl"), sink_id="tbl", table="rs_tuples", columns=["id", "name"]
    )
    RecordSource(0, 2_500, lambda i: (i, f"n{i}")).subscribe(sink)
    sink.result(WAIT)
    rows = spark.sql("SELECT count(*) AS c, sum(id) AS s FROM rs_tuples").collect()[0]
    assert (rows["c"], rows["s"]) == (2_500, 2_500 * 2_499 // 2)
    spark.sql("DROP TABLE rs_tuples")


def test_partition_by_writes_one_directory_per_value_inside_each_batch(
    spark: Any, tmp_path: Path
) -> None:
    path = tmp_path / "parted"
    sink = size_sink(
        spark,
        str(path),
        sink_id="parted",
        batch_rows=400,
        partition_by=["key"],
        table="rs_parted",
        schema="id long, key string, value double",
    )
    RecordSource(0, 1_000).subscribe(sink)
    assert sink.result(WAIT).metrics.batches == 3
    batch0 = path / "rs_batch=parted-000000000000"
    assert sorted(p.name for p in batch0.iterdir() if p.is_dir()) == [f"key=k{k}" for k in range(7)]
    assert all(f.name.startswith("part-") for f in (batch0 / "key=k3").iterdir() if f.is_file()
               and not f.name.startswith((".", "_")))  # fmt: skip
    back = read_committed(spark, str(path), sink_id="parted")
    assert sorted(back.columns) == ["id", "key", "value"]
    rows = back.groupBy("key").count().orderBy("key").collect()
    assert [(r["key"], r["count"]) for r in rows] == [
        (f"k{k}", len(range(k, 1_000, 7))) for k in range(7)
    ]
    assert sorted(r["id"] for r in back.select("id").collect()) == list(range(1_000))
    counted = spark.sql("SELECT count(*) AS c FROM rs_parted WHERE key = 'k3'").collect()[0]
    assert counted["c"] == len(range(3, 1_000, 7))
    spark.sql("DROP TABLE rs_parted")


def test_partition_by_is_checked_against_the_schema(spark: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"partition_by names \['nope'\]"):
        SparkSink(spark, str(tmp_path), schema="id long, key string", partition_by=["nope"])
    with pytest.raises(ValueError, match="leaves no data column"):
        SparkSink(spark, str(tmp_path), schema="id long", partition_by=["id"])
    with pytest.raises(ValueError, match="rs_batch"):
        SparkSink(spark, str(tmp_path), partition_by=["rs_batch"])


def test_torn_commit_record_is_not_a_commit(spark: Any, tmp_path: Path) -> None:
    """A create cut short by a crash leaves a record that does not parse: recovery
    deletes it and the batch directory, and the batch is written again."""
    sink = size_sink(spark, str(tmp_path), sink_id="torn", batch_rows=100, progress=False)
    RecordSource(0, 300).subscribe(sink)
    assert sink.result(WAIT).metrics.batches == 3
    commits = tmp_path / "_rs_sink" / "torn" / "commits"
    last = commits / "000000000002.json"
    last.write_text(last.read_text()[:40])  # the record of batch 2, cut short
    for crc in commits.glob(".*.crc"):
        crc.unlink()
    again = size_sink(spark, str(tmp_path), sink_id="torn", batch_rows=100, progress=False)
    assert [r.batch_id for r in again.recovery.committed] == [0, 1]
    assert again.recovery.removed_staging == ("rs_batch=torn-000000000002",)
    RecordSource(again.resume_offset, 300).subscribe(again)
    assert again.result(WAIT).status == "completed"
    assert ids_in(spark, tmp_path) == list(range(300))


def test_foreign_files_in_the_table_are_refused(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.csv").write_text("a,b\n")
    with pytest.raises(RuntimeError, match=r"holds 1 file\(s\) no sink wrote .*notes\.csv"):
        size_sink(spark, str(tmp_path), sink_id="foreign", progress=False)


@pytest.mark.parametrize("uri", ["hdfs:/x/t", "s3:/bucket/y"])
def test_cluster_uris_go_to_hadoop_not_to_local_folders(
    spark: Any, tmp_path: Path, uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError, match=re.escape(uri)):
        size_sink(spark, uri, sink_id="remote", progress=False)
    assert list(tmp_path.iterdir()) == [], "no local folder named after the scheme"


def test_read_committed_sees_only_committed_batches(spark: Any, tmp_path: Path) -> None:
    writer = FaultyWriter(spark, str(tmp_path), "rc")
    writer.crash_after = ("stage", 1)
    sink = size_sink(writer=writer, sink_id="rc", batch_rows=100, executor=CrashingExecutor())
    source = RecordSource(0, 1_000)
    source.subscribe(sink)
    assert writer.crashed.wait(WAIT)
    source.cancel()
    assert (tmp_path / "_rs_sink/rc/staging/000000000001").is_dir()  # written, not committed
    assert spark.read.parquet(str(tmp_path)).count() == 100  # a plain reader: batch 0 only
    df = read_committed(spark, str(tmp_path), sink_id="rc")
    assert sorted(r["id"] for r in df.select("id").collect()) == list(range(100))


def test_arrow_and_pandas_batches_are_records(spark: Any, tmp_path: Path) -> None:
    import pandas as pd
    import pyarrow as pa

    def make(i: int) -> Any:
        ids = list(range(i * 10, i * 10 + 10))
        if i % 3 == 0:
            return pa.RecordBatch.from_pylist([event(k) for k in ids])
        if i % 3 == 1:
            return pd.DataFrame([event(k) for k in ids])
        return [event(k) for k in ids]

    sink = size_sink(
        spark,
        str(tmp_path),
        sink_id="tab",
        batch_rows=25,
        schema="id long, key string, value double",
        progress=False,
    )
    RecordSource(0, 30, make).subscribe(sink)
    assert sink.result(WAIT).metrics.records == 300
    assert ids_in(spark, tmp_path) == list(range(300))


def test_overwrite_mode_replaces_this_sinks_rows(spark: Any, tmp_path: Path) -> None:
    for run in range(2):  # the same job twice, from the start
        sink = size_sink(
            spark, str(tmp_path), sink_id="rerun", mode="overwrite", batch_rows=40, progress=False
        )
        assert sink.resume_position is None
        RecordSource(0, 100).subscribe(sink)
        assert sink.result(WAIT).metrics.records == 100, run
    assert ids_in(spark, tmp_path) == list(range(100))
