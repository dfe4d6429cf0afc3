"""SparkSource: rows on demand, rule 3.9 errors, cancel; and a source-to-sink copy."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.api import Subscription
from reactive_streams.spark.sink import SparkSink
from reactive_streams.spark.source import SparkSource, SparkSourceError

pytestmark = pytest.mark.spark

WAIT = 60.0


class Recorder:
    """A subscriber that records signals and lets the test request explicitly."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.errors: list[BaseException] = []
        self.completed = threading.Event()
        self.got = threading.Condition()
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription

    def on_next(self, item: Any) -> None:
        with self.got:
            self.items.append(item)
            self.got.notify_all()

    def on_error(self, error: BaseException) -> None:
        self.errors.append(error)
        self.completed.set()

    def on_complete(self) -> None:
        self.completed.set()

    def wait_for(self, n: int) -> None:
        with self.got:
            assert self.got.wait_for(lambda: len(self.items) >= n, timeout=WAIT)


def test_spec301_rows_only_as_requested(spark: Any) -> None:
    source = SparkSource(spark.range(0, 1_000, numPartitions=4))
    rec = Recorder()
    source.subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(3)
    rec.wait_for(3)
    rec.subscription.request(2)
    rec.wait_for(5)
    rec.subscription.request(1)
    rec.wait_for(6)
    rec.subscription.cancel()
    thread = getattr(rec.subscription, "thread")  # noqa: B009 - implementation detail
    thread.join(WAIT)
    assert not thread.is_alive()
    # the emitting thread has ended: exactly the 6 requested rows arrived, in order
    assert [r["id"] for r in rec.items] == list(range(6))
    assert not rec.completed.is_set()


def test_spec309_non_positive_request_signals_error(spark: Any) -> None:
    rec = Recorder()
    SparkSource(spark.range(10)).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(0)
    assert rec.completed.wait(WAIT)
    assert len(rec.errors) == 1
    assert "rule 3.9" in str(rec.errors[0])


def test_complete_after_all_rows_and_cancel_is_idempotent(spark: Any) -> None:
    rec = Recorder()
    SparkSource(spark.range(25)).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(2**63 - 1)
    assert rec.completed.wait(WAIT)
    assert not rec.errors
    assert [r["id"] for r in rec.items] == list(range(25))
    rec.subscription.cancel()
    rec.subscription.cancel()


def test_source_to_sink_copies_a_table(spark: Any, tmp_path: Path) -> None:
    df = spark.range(0, 30_000, numPartitions=3).selectExpr("id", "id % 5 AS bucket")
    sink = SparkSink(spark, str(tmp_path), sink_id="copy", batch_rows=8_000)
    SparkSource(df).subscribe(sink)
    assert sink.result(WAIT).metrics.records == 30_000
    back = spark.read.parquet(str(tmp_path))
    assert back.count() == 30_000
    assert back.groupBy("bucket").count().orderBy("bucket").collect()[2]["count"] == 6_000


def test_a_failing_job_becomes_on_error(spark: Any) -> None:
    df = spark.range(0, 100, numPartitions=2).selectExpr(
        "CASE WHEN id = 60 THEN raise_error('boom at 60') ELSE id END AS id"
    )
    rec = Recorder()
    SparkSource(df).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(1_000)
    assert rec.completed.wait(WAIT), "the subscriber got no terminal signal"
    assert len(rec.errors) == 1
    assert isinstance(rec.errors[0], SparkSourceError)
    assert "boom at 60" in str(rec.errors[0])
    assert [r["id"] for r in rec.items] == list(range(50))  # the first partition arrived


def test_a_big_partition_is_split_by_bytes_and_only_requested_rows_arrive(
    spark: Any, tmp_path: Path
) -> None:
    # one file, one row group: Spark reads it as a single partition
    path = str(tmp_path / "one.parquet")
    spark.range(60_000).selectExpr("id", "concat('p', id) AS payload").coalesce(1).write.parquet(
        path
    )
    df = spark.read.parquet(path)
    assert df.rdd.getNumPartitions() == 1
    source = SparkSource(df, partition_bytes=64 * 1024, chunk_rows=1_000)
    rec = Recorder()
    source.subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(10)
    rec.wait_for(10)
    rec.subscription.cancel()
    thread = getattr(rec.subscription, "thread")  # noqa: B009 - implementation detail
    thread.join(WAIT)
    assert not thread.is_alive()
    assert [r["id"] for r in rec.items] == list(range(10))
    parts = getattr(rec.subscription, "partitions")  # noqa: B009
    assert parts is not None
    assert parts > 1
    # the split keeps the file's order across partitions
    rec2 = Recorder()
    SparkSource(df, partition_bytes=64 * 1024).subscribe(rec2)
    assert rec2.subscription is not None
    rec2.subscription.request(2**63 - 1)
    assert rec2.completed.wait(WAIT)
    assert not rec2.errors
    assert [r["id"] for r in rec2.items] == list(range(60_000))


def test_arguments_are_checked_at_construction(spark: Any) -> None:
    with pytest.raises(ValueError, match="partition_bytes"):
        SparkSource(spark.range(3), partition_bytes=0)
    with pytest.raises(ValueError, match="chunk_rows"):
        SparkSource(spark.range(3), chunk_rows=0)
    with pytest.raises(TypeError, match="needs a Spark DataFrame"):
        SparkSource([1, 2, 3])
