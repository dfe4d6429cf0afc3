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

from reactive_streams._demand import MAX_DEMAND
from reactive_streams.api import Subscriber, Subscription
from reactive_streams.spark.session import is_connect

__all__ = ["SparkSource", "SparkSourceError"]

log = logging.getLogger("reactive_streams.spark")

_ids = itertools.count(1)
_UNKNOWN_SIZE = 2**62  # Spark's "no statistics" estimate is Long.MaxValue
_MAX_SPLITS = 100_000
_ORDER = "__rs_source_order"


class SparkSourceError(RuntimeError):
    """Reading the DataFrame failed (the Spark error is the ``__cause__``)."""


class _RowSubscription:
    def __init__(self, source: SparkSource, subscriber: Subscriber[Any]) -> None:
        self._source = source
        self._subscriber: Subscriber[Any] | None = subscriber
        self._cond = threading.Condition()
        self._demand = 0
        self._cancelled = False
        self._bad_request: str | None = None
        self.group = f"rs-spark-source-{next(_ids)}"
        self.partitions: int | None = None  # partitions read (after any split)
        self.thread = threading.Thread(target=self._run, name=self.group, daemon=True)

    def request(self, n: int) -> None:
        with self._cond:
            if self._cancelled:
                return  # rule 3.6
            if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
                self._bad_request = f"rule 3.9: request(n) requires n > 0, got {n!r}"
            else:
                self._demand = min(MAX_DEMAND, self._demand + n)  # rule 3.17
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            if self._cancelled:
                return  # rule 3.7
            self._cancelled = True
            self._cond.notify_all()
        try:  # stop the partition Spark may be computing for us (rule 3.12)
            self._source.cancel_jobs(self.group)
        except Exception:  # rule 3.15: cancel returns normally
            log.debug("cancelling Spark jobs of %s failed", self.group, exc_info=True)

    def _wait(self) -> int | str:
        """Block until there is demand (return how many rows to fetch), a cancel or a
        bad request (return which)."""
        with self._cond:
            while True:
                if self._cancelled:
                    return "cancelled"
                if self._bad_request is not None:
                    return "bad_request"
                if self._demand > 0:
                    return min(self._demand, self._source.chunk_rows)
                self._cond.wait(timeout=5.0)

    def _take_one(self) -> bool:
        """Spend one unit of demand for a row about to be sent; False once cancelled."""
        with self._cond:
            if self._cancelled:
                return False
            self._demand -= 1  # never below 0: a chunk is at most the demand
            return True

    def _fail(self, sub: Subscriber[Any], error: BaseException) -> None:
        if self._terminate():
            try:
                sub.on_error(error)  # rule 1.4: a failed job, a dead JVM, an OOM
            except Exception:
                log.exception("SparkSource: on_error raised")  # rule 2.13

    def _run(self) -> None:
        sub = self._subscriber
        assert sub is not None
        iterator: Any = None
        as_dict = self._source.as_dict
        try:
            while True:
                what = self._wait()
                if what == "cancelled":
                    return
                if what == "bad_request":
                    self._terminate()
                    sub.on_error(ValueError(self._bad_request))  # rule 3.9
                    return
                assert isinstance(what, int)
                chunk: list[Any] = []
                failure: Exception | None = None
                try:
                    if iterator is None:
                        iterator, self.partitions = self._source.open(self.group)
                    chunk.extend(itertools.islice(iterator, what))
                except Exception as e:  # a py4j/gRPC error, a dead JVM, MemoryError
                    failure = e
                for row in chunk:  # rows read before a failure are still delivered
                    if not self._take_one():
                        return  # rule 1.8: cancelled, stop sending
                    sub.on_next(row.asDict(recursive=True) if as_dict else row)
                if failure is not None:
                    message = f"SparkSource: reading the DataFrame failed: {failure}"
                    error = SparkSourceError(message)
                    error.__cause__ = failure
                    self._fail(sub, error)
                    return
                if len(chunk) < what:  # the iterator is exhausted
                    if self._terminate():
                        sub.on_complete()  # rule 1.5
                    return
        except Exception:
            # rule 2.13: a subscriber that raises is cancelled, the fault logged
            log.exception("SparkSource subscriber raised; subscription cancelled")
            self.cancel()
        finally:
            self._subscriber = None  # rule 3.13
            if iterator is not None and hasattr(iterator, "close"):
                try:
                    iterator.close()
                except Exception:
                    log.debug("closing the row iterator failed", exc_info=True)

    def _terminate(self) -> bool:
        with self._cond:
            was_live = not self._cancelled
            self._cancelled = True
            return was_live


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
        subscription = _RowSubscription(self, subscriber)
        sub_view: Subscription = subscription
        try:
            subscriber.on_subscribe(sub_view)  # rule 1.9: first signal
        except Exception:
            log.exception("on_subscribe raised; subscription cancelled")  # rule 2.13
            subscription.cancel()
            return
        subscription.thread.start()  # rule 1.3: on_next only after on_subscribe returned
