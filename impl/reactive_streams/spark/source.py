"""SparkSource: a Publisher over a DataFrame that pulls rows only as demand allows.

Each subscription reads the DataFrame on its own thread, a chunk of at most
``min(demand, chunk_rows)`` rows at a time, so the Python side never holds more
than one chunk beyond what was requested.

Classic session: ``toLocalIterator(prefetchPartitions=False)`` makes Spark compute
a partition only when the iterator reaches it, and the driver holds that one
partition. A partition larger than ``partition_bytes`` (by the plan's size
estimate; one big Parquet row group is one partition) is first split, order
kept, by a range repartition on ``monotonically_increasing_id``, so the driver's
memory is bounded by ``partition_bytes`` and not by the file. Spark Connect:
``toLocalIterator`` streams Arrow batches over gRPC; the client holds a chunk and
the gRPC window, the server runs one job for the whole result.

``cancel`` stops the thread and cancels the subscription's Spark jobs (a job
group, or an operation tag over Connect).
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
from typing import Any

from reactive_streams._core.downstream import Downstream
from reactive_streams.api import Subscriber
from reactive_streams.spark.session import is_connect

__all__ = ["SparkSource", "SparkSourceError"]

log = logging.getLogger("reactive_streams.spark")

_ids = itertools.count(1)
_UNKNOWN_SIZE = 2**62  # Spark's "no statistics" estimate is Long.MaxValue
_MAX_SPLITS = 100_000
_ORDER = "__rs_source_order"


class SparkSourceError(RuntimeError):
    """Reading the DataFrame failed (the Spark error is the ``__cause__``)."""


class _RowSubscription(Downstream[Any]):
    """One subscriber's rows, read on its own thread, on the core: demand through
    ``_demand``, rule 3.9, cancel, 2.13 and 3.13 are :class:`Downstream`'s, and the
    subscription is traced as the ``spark_source`` hop. The thread is the one emitter
    (rule 1.3); ``request`` and ``cancel`` record their effect and wake it."""

    __slots__ = ("_cond", "_source", "group", "partitions", "thread")

    def __init__(self, source: SparkSource, subscriber: Subscriber[Any]) -> None:
        super().__init__(subscriber, "spark_source")
        self._source = source
        self._cond = threading.Condition(self._lock)  # the thread waits for demand here
        self.group = f"rs-spark-source-{next(_ids)}"
        self.partitions: int | None = None  # partitions read (after any split)
        self.thread = threading.Thread(target=self._run, name=self.group, daemon=True)

    def __repr__(self) -> str:
        return f"<spark_source subscription {self._sid or self.group}>"

    def start(self) -> None:
        """On the subscribing thread: on_subscribe first (rule 1.9), then the reader."""
        if self._deliver_subscribe():
            self.thread.start()  # rule 1.3: on_next only after on_subscribe returned

    # ------------------------------------------------------- the core's hooks
    def _work(self) -> bool:
        return True  # no drain loop: the reader thread is the one emitter

    def _wake(self, cancel: bool) -> None:
        with self._cond:
            self._cond.notify_all()
        if cancel:
            try:  # stop the partition Spark may be computing for us (rule 3.12)
                self._source.cancel_jobs(self.group)
            except Exception:  # rule 3.15: cancel returns normally
                log.debug("cancelling Spark jobs of %s failed", self.group, exc_info=True)

    def _wait(self) -> int:
        """Block until there is demand, a cancel or an invalid request; the rows to read
        next (0: nothing more is read)."""
        with self._cond:
            while self._requested == 0 and not self._stopped():
                self._cond.wait(timeout=5.0)
            return 0 if self._stopped() else min(self._requested, self._source.chunk_rows)

    def _read(self, iterator: Any, size: int) -> tuple[list[Any], Exception | None]:
        """Up to ``size`` rows (a chunk is at most the demand), and the read's failure."""
        chunk: list[Any] = []
        try:
            rows = itertools.islice(iterator, size)
            if self._source.as_dict:
                chunk.extend(row.asDict(recursive=True) for row in rows)
            else:
                chunk.extend(rows)
        except Exception as e:  # a py4j/gRPC error, a dead JVM, MemoryError
            return chunk, e
        return chunk, None

    def _run(self) -> None:
        iterator: Any = None
        try:
            while True:
                size = self._wait()
                if size == 0:
                    self._answer_bad_request()  # rule 3.9; after a cancel, nothing
                    return
                try:
                    if iterator is None:
                        iterator, self.partitions = self._source.open(self.group)
                except Exception as e:
                    self._fail(e)
                    return
                chunk, failure = self._read(iterator, size)
                downstream = self._downstream
                sent = 0
                for row in chunk:  # rows read before a failure are still delivered
                    if downstream is None or self._stopped():
                        break  # rule 1.8: cancelled, stop sending
                    if not self._send(downstream, row):
                        return  # the subscriber raised: cancelled (rule 2.13)
                    sent += 1
                self._delivered(sent)  # rule 3.17: unbounded stays
                if self._stopped():
                    continue  # the next _wait answers a cancel or an invalid request
                if failure is not None:
                    self._fail(failure)
                    return
                if len(chunk) < size:  # the iterator is exhausted
                    self._finish(None)  # rule 1.5
                    return
        finally:
            self._released()
            if iterator is not None and hasattr(iterator, "close"):
                try:
                    iterator.close()
                except Exception:
                    log.debug("closing the row iterator failed", exc_info=True)

    def _fail(self, failure: Exception) -> None:
        """Rule 1.4: a failed job, a dead JVM, an OOM ends the stream with on_error."""
        error = SparkSourceError(f"SparkSource: reading the DataFrame failed: {failure}")
        error.__cause__ = failure
        self._finish(error)

    def _released(self) -> None:
        self._downstream = None  # rule 3.13


class SparkSource:
    """Publisher of the rows of ``df`` (as dicts unless ``as_dict=False``), on demand.

    ``partition_bytes`` bounds the estimated size of one partition the driver
    holds (classic sessions; ``None`` reads the partitions as they are);
    ``chunk_rows`` bounds the rows fetched ahead of ``on_next``. Works with a
    classic and a Spark Connect DataFrame.
    """

    def __init__(
        self,
        df: Any,
        *,
        as_dict: bool = True,
        partition_bytes: int | None = 8 * 2**20,
        chunk_rows: int = 4096,
    ) -> None:
        if partition_bytes is not None and partition_bytes <= 0:
            raise ValueError(f"partition_bytes must be > 0 or None, got {partition_bytes!r}")
        if chunk_rows <= 0:
            raise ValueError(f"chunk_rows must be > 0, got {chunk_rows!r}")
        spark = getattr(df, "sparkSession", None)
        if spark is None or not hasattr(df, "toLocalIterator"):
            raise TypeError(f"SparkSource needs a Spark DataFrame, got {type(df).__name__}")
        self.df = df
        self.spark = spark
        self.connect = is_connect(spark)
        if not self.connect and not hasattr(spark, "_jsc"):
            raise TypeError(
                "SparkSource needs a classic (py4j) or a Spark Connect SparkSession; "
                f"this DataFrame belongs to a {type(spark).__module__}.{type(spark).__name__}"
            )
        self.as_dict = as_dict
        self.partition_bytes = partition_bytes
        self.chunk_rows = chunk_rows

    def split(self, df: Any) -> tuple[Any, int | None]:
        """``df`` with no partition above ``partition_bytes`` (order kept), and its
        number of partitions (classic sessions; Connect returns ``df, None``)."""
        if self.connect:
            return df, None
        parts = int(df.rdd.getNumPartitions())
        if self.partition_bytes is None:
            return df, parts
        size = int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
        if size >= _UNKNOWN_SIZE or size <= parts * self.partition_bytes:
            return df, parts  # small enough, or no estimate to split by
        splits = min(_MAX_SPLITS, math.ceil(size / self.partition_bytes))
        from pyspark.sql import functions as F

        ordered = (
            df.withColumn(_ORDER, F.monotonically_increasing_id())
            .repartitionByRange(splits, _ORDER)
            .sortWithinPartitions(_ORDER)
            .drop(_ORDER)
        )
        return ordered, splits

    def open(self, group: str) -> tuple[Any, int | None]:
        """The row iterator of one subscription, its jobs tagged ``group``."""
        if self.connect:
            self.spark.addTag(group)  # thread-local: only this thread's operations
            return iter(self.df.toLocalIterator()), None
        sc = self.spark.sparkContext
        sc.setJobGroup(group, "reactive_streams SparkSource", interruptOnCancel=True)
        df, parts = self.split(self.df)
        return iter(df.toLocalIterator(prefetchPartitions=False)), parts

    def cancel_jobs(self, group: str) -> None:
        if self.connect:
            self.spark.interruptTag(group)
        else:
            self.spark.sparkContext.cancelJobGroup(group)

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        _RowSubscription(self, subscriber).start()
