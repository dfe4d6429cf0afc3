"""SparkSource: a Publisher over a DataFrame that pulls rows only as demand allows.

Each subscription reads ``df.toLocalIterator(prefetchPartitions=False)`` on its
own thread: Spark computes a partition only when the iterator reaches it, so
with no demand no further partition is computed (at most the current one is
held). ``cancel`` stops the thread and cancels the subscription's Spark job group.
"""

from __future__ import annotations

import itertools
import logging
import threading
from typing import Any

from reactive_streams._demand import MAX_DEMAND
from reactive_streams.api import Subscriber, Subscription

log = logging.getLogger("reactive_streams.spark")

_ids = itertools.count(1)


class _RowSubscription:
    def __init__(self, source: SparkSource, subscriber: Subscriber[Any]) -> None:
        self._source = source
        self._subscriber: Subscriber[Any] | None = subscriber
        self._cond = threading.Condition()
        self._demand = 0
        self._cancelled = False
        self._bad_request: str | None = None
        self.group = f"rs-spark-source-{next(_ids)}"
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
            self._source.spark.sparkContext.cancelJobGroup(self.group)
        except Exception:  # rule 3.15: cancel returns normally
            log.debug("cancelJobGroup(%s) failed", self.group, exc_info=True)

    def _take(self) -> str:
        """Block until there is demand, a cancel, or a bad request; say which."""
        with self._cond:
            while True:
                if self._cancelled:
                    return "cancelled"
                if self._bad_request is not None:
                    return "bad_request"
                if self._demand > 0:
                    self._demand -= 1  # send_on_next: demand decremented on commit
                    return "next"
                self._cond.wait(timeout=5.0)

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
        try:
            while True:
                what = self._take()
                if what == "cancelled":
                    return
                if what == "bad_request":
                    self._terminate()
                    sub.on_error(ValueError(self._bad_request))  # rule 3.9
                    return
                try:
                    if iterator is None:
                        iterator = iter(self._source.rows(self.group))
                    row = next(iterator)
                except StopIteration:
                    self._terminate()
                    sub.on_complete()  # rule 1.5
                    return
                except Exception as e:
                    error = SparkSourceError(f"SparkSource: reading the DataFrame failed: {e}")
                    error.__cause__ = e
                    self._fail(sub, error)
                    return
                item = row.asDict(recursive=True) if self._source.as_dict else row
                sub.on_next(item)
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


class SparkSourceError(RuntimeError):
    """Reading the DataFrame failed (the Spark error is the ``__cause__``)."""


class SparkSource:
    """Publisher of the rows of ``df`` (as dicts unless ``as_dict=False``), on demand.

    Needs a classic SparkSession: ``toLocalIterator`` and job groups are not
    available over Spark Connect, so a Connect DataFrame is refused here.
    """

    def __init__(self, df: Any, *, as_dict: bool = True) -> None:
        self.df = df
        self.spark = df.sparkSession
        self.as_dict = as_dict
        if not hasattr(self.spark, "_jsc"):
            raise TypeError(
                "SparkSource needs a classic SparkSession (py4j); this DataFrame belongs to "
                f"a {type(self.spark).__module__}.{type(self.spark).__name__} (Spark Connect?)"
            )

    def rows(self, group: str) -> Any:
        """The row iterator of one subscription, under Spark job group ``group``."""
        sc = self.spark.sparkContext
        sc.setJobGroup(group, "reactive_streams SparkSource", interruptOnCancel=True)
        return self.df.toLocalIterator(prefetchPartitions=False)

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
