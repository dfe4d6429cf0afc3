"""SparkSink: a Subscriber that appends a stream of records to a Spark table, exactly once.

Flow of one batch (``spec/SparkSink.tla`` models it):

    on_next -> filling buffer --seal--> convert lane (Arrow table)
            --> write lane: stage (Spark write, retried) -> commit record -> publish
            --> acknowledge: free the rows, ``request`` the free buffer again.

*Demand is the free buffer*, in records and in bytes: ``buffered + outstanding
demand <= capacity`` (``capacity = 2 * batch_rows``) at every moment, and when the
sink requests, ``held bytes + outstanding * bytes per record <= 2 * batch_bytes``
(each record's bytes estimated as it arrives; see :attr:`SparkSink.held_bytes`).
Demand goes out in slices of at most ``DEMAND_SLICE`` records, so records larger
than the estimate at their request overshoot by at most a slice of them. A batch is
sealed on a running byte count, before the record that would pass ``batch_bytes``.
While Spark writes batch k, batch k+1 is filled and converted
(at most two sealed batches in flight). The convert and write lanes each run one
task at a time on ``executor`` (a two-thread pool by default; a
``ManualExecutor`` in tests makes every interleaving reproducible).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from reactive_streams.api import Subscription
from reactive_streams.executors import Executor, ThreadPoolExecutor
from reactive_streams.spark.commit_log import CommitRecord, Recovery
from reactive_streams.spark.ioerrors import io_cause, local_cause
from reactive_streams.spark.lease import LeaseLost
from reactive_streams.spark.positions import SKIP, Positioned, check_position
from reactive_streams.spark.progress import Progress, SinkMetrics
from reactive_streams.spark.quarantine import Quarantine
from reactive_streams.spark.table_schema import EVOLUTION, SchemaStore
from reactive_streams.spark.writer import BatchWriter, Payload, SparkBatchWriter, StagedBatch

__all__ = ["SinkResult", "SparkSink", "SparkSinkError"]

log = logging.getLogger("reactive_streams.spark")

R = TypeVar("R")
Task = Callable[[], None]


_NO_FILES = StagedBatch("", (), 0)

# element types taken as a batch of records (one slot per row): type -> to list of dicts
_TABULAR: dict[type, Callable[[Any], list[Any]]] = {}


def _register_tabular() -> None:
    """Accept Arrow record batches and tables, and pandas DataFrames, if loaded."""
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is not None:
        _TABULAR[pa.RecordBatch] = _TABULAR[pa.Table] = lambda t: t.to_pylist()
    pd = sys.modules.get("pandas")
    if pd is not None:
        _TABULAR[pd.DataFrame] = lambda df: df.to_dict("records")


def _unwrap(entries: list[Any]) -> list[Any] | None:
    """The records of a batch of envelopes (skips dropped); ``None`` if not envelopes."""
    if type(entries[0]) is not Positioned:
        if any(type(e) is Positioned for e in entries):
            raise TypeError("a stream mixes Positioned envelopes and bare records")
        return None
    try:
        return [e.value for e in entries if e.value is not SKIP]
    except AttributeError:
        raise TypeError("a stream mixes Positioned envelopes and bare records") from None


def _locate(error: Exception, entries: list[Any], first_offset: int) -> Exception:
    """Add the source position to a schema error raised on a batch of envelopes."""
    from reactive_streams.spark.records import SchemaError

    index = getattr(error, "record_index", None)
    if not isinstance(error, SchemaError) or index is None or type(entries[0]) is not Positioned:
        return error
    rows = [e for e in entries if e.value is not SKIP]
    at = index - first_offset
    if not 0 <= at < len(rows):
        return error
    where = rows[at].position
    located = SchemaError(f"{error} (source position after it: {where!r})", error.field, index)
    located.__cause__ = error.__cause__
    return located


PARTIAL = "rs_partial"


def _split_position(position: Any) -> tuple[Any, int]:
    """A committed position as (source position, outputs of the next input already
    committed): a batch cut inside one input's outputs commits
    ``{"rs_partial": {"after": <position before the input>, "outputs": k}}``."""
    if type(position) is dict and set(position) == {PARTIAL}:
        inner = position[PARTIAL]
        return inner["after"], int(inner["outputs"])
    return position, 0


DEMAND_SLICE = 64  # records requested at most at once: bounds a jump in record size


def _row_bytes(value: Any) -> int:
    """:func:`_estimate` with the common flat dict and tuple records inlined."""
    kind = type(value)
    if kind is dict or kind is tuple:
        n = 0 if kind is dict else 4
        for v in value.values() if kind is dict else value:
            k = type(v)
            if k is str or k is bytes:
                n += len(v) + 4
            elif k is int or k is float:
                n += 8
            else:
                n += _estimate(v, 1)
        return n
    return _estimate(value)


def _estimate(value: Any, depth: int = 0) -> int:
    """About the Arrow bytes of one record (8 per number, length plus a 4-byte offset
    per string): the sink's running byte count, scaled by the measured Arrow size."""
    kind = type(value)
    if kind is Positioned:
        return 0 if value.value is SKIP else _estimate(value.value, depth)
    if kind is str or kind is bytes or kind is bytearray:
        return len(value) + 4
    if value is None or kind is bool:
        return 1
    if depth > 8:
        return 8
    if kind is dict:
        return sum(_estimate(v, depth + 1) for v in value.values())
    if kind is list or isinstance(value, tuple):
        return 4 + sum(_estimate(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(_estimate(v, depth + 1) for v in vars(value).values())
    return 8


class SparkSinkError(RuntimeError):
    """The sink stopped on an error; nothing after ``committed_offset`` was written.

    ``last_committed_batch_id`` and ``committed_offset`` say where a restart resumes;
    ``uncommitted_records`` counts the records the sink held and dropped.
    """

    def __init__(
        self,
        message: str,
        *,
        last_committed_batch_id: int,
        committed_offset: int,
        uncommitted_records: int,
    ) -> None:
        super().__init__(message)
        self.last_committed_batch_id = last_committed_batch_id
        self.committed_offset = committed_offset
        self.uncommitted_records = uncommitted_records


@dataclass(frozen=True)
class SinkResult:
    """How the stream ended (``"completed"`` or ``"cancelled"``) and the final metrics."""

    status: str
    metrics: SinkMetrics


class _Batch:
    """A sealed batch: ``slots`` elements taken from the buffer (records, or
    envelopes of which skips produce no row) and the source position after them."""

    __slots__ = (
        "batch_id",
        "nbytes",
        "offset_before",
        "payload",
        "position",
        "records",
        "slots",
    )

    def __init__(
        self, batch_id: int, offset_before: int, records: list[Any], position: Any, nbytes: int
    ) -> None:
        self.batch_id = batch_id
        self.nbytes = nbytes  # estimated, as counted on arrival
        self.offset_before = offset_before
        self.records: list[Any] | None = records
        self.slots = len(records)
        self.position = position
        self.payload: Payload | None = None


class _SerialLane:
    """Runs submitted tasks one at a time, in order, on an executor."""

    def __init__(self, executor: Executor) -> None:
        self._executor = executor
        self._lock = threading.Lock()
        self._tasks: deque[Task] = deque()
        self._running = False

    def submit(self, task: Task) -> None:
        with self._lock:
            self._tasks.append(task)
            if self._running:
                return
            self._running = True
        self._start()

    def _start(self) -> None:
        try:
            self._executor.execute(self._drain_one)
        except RuntimeError:  # the executor was shut down after the sink finished
            with self._lock:
                dropped = len(self._tasks)
                self._tasks.clear()
                self._running = False
            log.debug("sink lane: %d task(s) after shutdown dropped", dropped)

    def _drain_one(self) -> None:
        with self._lock:
            task = self._tasks.popleft()
        try:
            task()
        finally:
            with self._lock:
                more = bool(self._tasks)
                self._running = more
            if more:
                self._start()


class _StepFailed(Exception):
    def __init__(
        self, step: str, batch_id: int, attempts: int, cause: BaseException, first: BaseException
    ) -> None:
        # a retry may fail on what the first attempt left (a 0-byte record on a full
        # disk): both errors are named, and the cause found in either
        also = f"; attempt 1 failed with {first!r}" if repr(first) != repr(cause) else ""
        why = io_cause(cause, first)
        super().__init__(
            f"{step} of batch {batch_id} failed after {attempts} attempt(s): {cause!r}{also}"
            + (f" [{why}]" if why else "")
        )
        self.step = step


class SparkSink:
    """Subscriber[record] appending to ``path`` (and optionally catalog ``table``).

    Records are dicts, tuples (named by ``columns``) or dataclasses; the schema is
    declared (``pyarrow.Schema``, Spark ``StructType`` or DDL string) or inferred from
    the first batch. After a crash, a new sink with the same ``path`` and ``sink_id``
    rolls the commit log forward; subscribe it to a source that resumes at
    :attr:`resume_offset` and no record is lost or duplicated. ``spark`` may be a
    classic or a Spark Connect session; ``partition_by`` partitions each batch.
    """

    def __init__(
        self,
        spark: Any = None,
        path: str | None = None,
        *,
        sink_id: str = "default",
        format: str = "parquet",
        schema: Any = None,
        columns: Sequence[str] | None = None,
        table: str | None = None,
        options: Mapping[str, str] | None = None,
        mode: str = "append",
        partition_by: Sequence[str] | None = None,
        batch_rows: int = 262_144,
        batch_bytes: int = 64 * 1024 * 1024,
        max_latency: float | None = 2.0,
        max_attempts: int = 3,
        retry_backoff_s: float = 0.2,
        writer: BatchWriter | None = None,
        executor: Executor | None = None,
        progress: bool | None = None,
        sleep: Callable[[float], None] = time.sleep,
        bad_records: str | None = None,
        schema_evolution: str = "none",
        takeover: bool = False,
        lease_ttl_s: float = 30.0,
    ) -> None:
        if batch_rows < 1 or batch_bytes < 1 or max_attempts < 1:
            raise ValueError("batch_rows, batch_bytes and max_attempts must be >= 1")
        if max_latency is not None and not max_latency > 0:
            raise ValueError(f"max_latency must be > 0 seconds or None, got {max_latency!r}")
        built = writer is None
        if writer is None:
            if spark is None:
                raise ValueError("SparkSink needs a SparkSession (or an injected writer)")
            try:
                writer = SparkBatchWriter(
                    spark,
                    path,
                    sink_id,
                    format=format,
                    schema=schema,
                    columns=columns,
                    options=options,
                    table=table,
                    mode=mode,
                    partition_by=partition_by,
                    takeover=takeover,
                    lease_ttl_s=lease_ttl_s,
                )
            except OSError as e:  # name the cause: Hadoop's mkdirs only says "refused"
                why = io_cause(e) or (local_cause(path) if path else None)
                if why is None or why in str(e):
                    raise
                if e.errno is None:  # OSError(None, text) would print "[Errno None]"
                    raise OSError(f"{e} [{why}]") from e
                raise OSError(e.errno, f"{e.strerror} [{why}]") from e
        self.writer = writer
        self.sink_id = sink_id
        self.batch_rows = batch_rows
        self.batch_bytes = batch_bytes
        self.capacity = 2 * batch_rows
        self.max_latency = max_latency
        self.max_attempts = max_attempts
        self.retry_backoff_s = retry_backoff_s
        self._sleep = sleep
        try:
            self.recovery: Recovery = writer.recover()
            self._quarantined = 0
            self._quarantine: Quarantine | None = None
            if bad_records is not None:  # refused records go aside, the stream goes on
                self._quarantine = Quarantine(getattr(writer, "fs", None), bad_records, sink_id)
            self._schema_store, self._evolution = self._table_schema(writer, schema_evolution)
        except BaseException:
            release = getattr(writer, "release", None)
            if built and release is not None:  # no sink came of it: its writer's lease
                release()
            raise

        self._pool: ThreadPoolExecutor | None = None
        if executor is None:
            self._pool = ThreadPoolExecutor(2, name=f"spark-sink-{sink_id}")
            executor = self._pool
        self._convert_lane = _SerialLane(executor)
        self._write_lane = _SerialLane(executor)

        self._lock = threading.Lock()
        self._sub_lock = threading.RLock()  # rule 2.7: request/cancel calls are serial
        self._subscription: Subscription | None = None
        self._outstanding = 0
        self._filling: list[Any] = []
        self._filling_since = 0.0
        self._in_flight_rows = 0
        self._in_flight_batches = 0
        # the byte budget, counted in estimated bytes (see _row_bytes); a converted
        # batch rescales it to the Arrow bytes it measured
        self._filling_bytes = 0
        self._last_bytes = 0  # of the last element appended to _filling
        self._in_flight_bytes = 0
        self._row_est = 0  # bytes per record (0: none seen): up at once, down slowly
        self._scale = 1.0  # measured Arrow bytes per estimated byte
        self._seal_bytes = float(batch_bytes)
        self._slice = min(DEMAND_SLICE, self.capacity)
        self._next_batch_id = self.recovery.last_batch_id + 1
        self._next_offset = self.recovery.resume_offset
        self._committed_offset = self.recovery.resume_offset
        # the last complete source position, and the outputs of the input after it that
        # are sealed already (a fan-out split across batches; a replay drops them again)
        self._sealed_position, self._partial_done = _split_position(self.recovery.resume_position)
        self._replay_skip = self._partial_done
        self._closing = False
        self._last_committed = self.recovery.last_batch_id
        self._upstream_done = False
        self._upstream_error: BaseException | None = None
        self._state = "active"  # active | cancelled | failed | done
        self._error: BaseException | None = None
        self._finalized = False
        self._dropped = 0
        self._fail_from = 0  # batches below this id are still written after a failure
        self._records = 0
        self._batches = 0
        self._bytes = 0
        self._retries = 0
        self._flush_s = 0.0
        self._fill_since = 0.0  # when the filling batch's first element arrived
        self._waiting: deque[float] = deque()  # arrival of each in-flight batch's first
        self._started = 0.0
        self._ended: float | None = None
        self._progress = Progress(f"sink {sink_id}", progress)
        self.completion: Future[SinkResult] = Future()
        self.completion.set_running_or_notify_cancel()

    # ------------------------------------------------------------------ queries
    @property
    def resume_offset(self) -> int:
        """Records committed by earlier runs: where a replayable source must resume."""
        return self.recovery.resume_offset

    @property
    def resume_position(self) -> Any:
        """Source position committed by earlier runs (``None``: start from the beginning).

        ``source.replay_from(sink.resume_position)`` resumes a replayable source; when
        the last batch ended inside one input's outputs, the sink drops the outputs of
        that input it has already committed as the replay sends them again."""
        return _split_position(self.recovery.resume_position)[0]

    @property
    def buffered(self) -> int:
        """Records held (filling plus sealed, not yet committed)."""
        with self._lock:
            return len(self._filling) + self._in_flight_rows

    @property
    def held_bytes(self) -> int:
        """Bytes of the records held (filling plus sealed, not yet committed), as the
        sink counts them: each record's estimate, scaled by the measured Arrow size."""
        with self._lock:
            return int((self._filling_bytes + self._in_flight_bytes) * self._scale)

    @property
    def byte_capacity(self) -> int:
        """The byte budget demand is counted against: ``2 * batch_bytes``."""
        return 2 * self.batch_bytes

    @property
    def outstanding(self) -> int:
        """Demand requested from upstream and not yet delivered."""
        with self._lock:
            return self._outstanding

    @property
    def metrics(self) -> SinkMetrics:
        with self._lock:
            return self._metrics_locked()

    def _metrics_locked(self) -> SinkMetrics:
        now = time.monotonic()
        end = self._ended if self._ended is not None else now
        oldest = self._waiting[0] if self._waiting else (self._fill_since if self._filling else 0)
        return SinkMetrics(
            records=self._records,
            batches=self._batches,
            bytes=self._bytes,
            retries=self._retries,
            elapsed_s=(end - self._started) if self._started else 0.0,
            committed_offset=self._committed_offset,
            last_committed_batch_id=self._last_committed,
            pending=len(self._filling) + self._in_flight_rows,
            lag_s=now - oldest if oldest and self._ended is None else 0.0,
            flush_s=self._flush_s,
        )

    def result(self, timeout: float | None = None) -> SinkResult:
        """Wait for the end of the stream; raises :class:`SparkSinkError` on failure."""
        return self.completion.result(timeout)

    # --------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        _register_tabular()
        with self._lock:
            duplicate = self._subscription is not None or self._state != "active"
            if not duplicate:
                self._subscription = subscription
                self._started = time.monotonic()
        if duplicate:
            subscription.cancel()  # rule 2.5
            return
        self._request_free()

    def on_next(self, item: Any) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        if type(item) in _TABULAR:  # an Arrow RecordBatch/Table or a pandas DataFrame
            item = _TABULAR[type(item)](item)
        if self._replay_skip:  # resumed inside a split input: drop what is committed
            item = self._skip_replayed(item)
            if item is None:
                return
        with self._lock:
            if self._state != "active" or self._upstream_done:
                return  # rule 2.8: signals after cancel are dropped
            outstanding = self._outstanding - 1
            filling = self._filling
            if outstanding >= 0:  # rule 1.1 holds
                self._outstanding = outstanding
                if type(item) is list:  # a batch of records or envelopes: one slot each
                    was_empty = not filling
                    sizes = [_row_bytes(e) for e in item]
                    nbytes, largest = sum(sizes), max(sizes, default=0)
                    if sizes:
                        self._last_bytes = sizes[-1]
                    filling.extend(item)
                else:
                    was_empty = not filling
                    nbytes = largest = self._last_bytes = _row_bytes(item)
                    filling.append(item)
                held = self._filling_bytes = self._filling_bytes + nbytes
                est = self._row_est
                largest = largest or 1  # a record with no row measured: est 0 means none yet
                if largest > est:  # the estimate per record follows a growth at once
                    self._row_est = largest
                elif largest < est:  # and a shrink slowly
                    self._row_est = est - (est - largest + 15) // 16
                size = len(filling)
                refill = outstanding < self._slice // 2
                if (
                    not was_empty
                    and size < self.batch_rows
                    and held + self._row_est <= self._seal_bytes
                    and not refill
                ):
                    return  # the hot path: one lock, one append
                if was_empty and size:
                    self._fill_since = time.monotonic()
                    if self.max_latency is not None:
                        self._start_delay_timer_locked()
                full = size >= self.batch_rows or held + self._row_est > self._seal_bytes
                batch = self._seal_locked() if full else None
                violation = False
            else:
                violation, batch, refill = True, None, False
        if violation:
            self._fail(RuntimeError("rule 1.1: the publisher sent more elements than requested"))
            return
        if batch is not None:
            self._convert_lane.submit(lambda: self._convert(batch))
        if refill:  # demand goes out in slices: the next one as this one runs low
            self._request_free()

    def _skip_replayed(self, item: Any) -> Any:
        """Drop the first replayed outputs of an input whose outputs were partly
        committed; they must be outputs with no position (else the replay differs)."""
        entries = item if type(item) is list else [item]
        with self._lock:
            if self._state != "active" or self._upstream_done:
                return None  # rule 2.8
            take = min(self._replay_skip, len(entries))
            bad = next(
                (e for e in entries[:take] if type(e) is not Positioned or e.position is not None),
                None,
            )
            if bad is None:
                self._replay_skip -= take
                rest = entries[take:]
                if not rest:
                    self._outstanding -= 1  # the element is consumed: its slot is free again
        if bad is not None:
            self._fail(
                RuntimeError(
                    f"the replay differs from the committed run: output {bad!r} comes where "
                    f"{self._partial_done} outputs of the input after position "
                    f"{self._sealed_position!r} were committed (a non-deterministic source "
                    "or flat_map)"
                )
            )
            return None
        if not rest:
            self._request_free()
            return None
        return rest if type(item) is list else rest[0]

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._upstream_finished(error)

    def on_complete(self) -> None:
        self._upstream_finished(None)

    def close(self) -> None:
        """Flush and stop: cancel upstream, write and commit everything received, then
        resolve :attr:`completion` with status ``"closed"``. Elements arriving after
        ``close`` are dropped (with positions, a replay delivers them again)."""
        with self._lock:
            if self._state != "active" or self._upstream_done:
                return
            self._closing = True
        self._cancel_upstream()
        self._upstream_finished(None)

    def cancel(self) -> None:
        """Stop: cancel upstream, drop uncommitted records; the result says ``cancelled``."""
        with self._lock:
            if self._state != "active":
                return
            self._state = "cancelled"
            self._dropped += len(self._filling)
            self._filling = []
            self._filling_bytes = 0
        self._cancel_upstream()
        self._finalize_later()

    # ----------------------------------------------------------------- internals
    def _upstream_finished(self, error: BaseException | None) -> None:
        # rule 2.3: no call on the subscription from here
        with self._lock:
            if self._state != "active" or self._upstream_done:
                return
            self._upstream_done = True
            self._upstream_error = error
            self._subscription = None  # rule 2.4: the subscription is cancelled now
            batch = self._seal_locked() if self._filling else None
            finished = self._finished_locked()
        if batch is not None:
            self._convert_lane.submit(lambda: self._convert(batch))
        if finished:
            self._write_lane.submit(self._finalize)

    def _finished_locked(self) -> bool:
        done = (
            self._state == "active"
            and self._upstream_done
            and not self._filling
            and self._in_flight_batches == 0
        )
        if done:
            self._state = "done"
        return done

    def _full_locked(self) -> bool:
        """The filling batch holds ``batch_rows``, or no room for a record more of the
        estimated size: it is sealed now rather than after the next record."""
        filling = len(self._filling)
        return filling >= self.batch_rows or (
            filling > 0 and self._filling_bytes + self._row_est > self._seal_bytes
        )

    def _fits_locked(self, limit: int) -> int:
        """How many of the first ``limit`` slots fit in the byte budget (at least one)."""
        filling, budget = self._filling, self._seal_bytes
        if self._filling_bytes <= budget:
            return limit
        if limit == len(filling) > 1 and self._filling_bytes - self._last_bytes <= budget:
            return limit - 1  # the common case: the last record passed the budget
        total = 0
        for j in range(limit):
            total += _row_bytes(filling[j])
            if total > budget:
                return max(1, j)
        return limit

    def _cut_locked(self) -> int:
        """Slots the next batch takes: at most ``batch_rows`` and ``batch_bytes``, ending
        with an envelope that completes its input (a position), so no input is ever
        half committed."""
        filling = self._filling
        limit = self._fits_locked(min(len(filling), self.batch_rows))
        full = self._full_locked()
        if type(filling[0]) is not Positioned:
            return limit
        for j in range(limit - 1, -1, -1):
            if getattr(filling[j], "position", None) is not None:
                return j + 1
        if full:
            # one input expanded past a batch: split it; the batch commits how many of
            # its outputs it holds, and a replay drops that many (see _split_position)
            return limit
        if self._upstream_done and not self._closing:
            return len(filling)  # completed: nothing follows, write it all
        return 0

    def _seal_locked(self) -> _Batch | None:
        if self._in_flight_batches >= 2 or not self._filling:
            return None
        cut = self._cut_locked()
        if cut == 0:
            if self._upstream_done:  # closed mid-input: a replay sends that input again
                self._dropped += len(self._filling)
                self._filling = []
                self._filling_bytes = 0
            return None
        filling = self._filling
        take = filling[:cut]
        self._filling = filling[cut:]
        if cut == len(filling):
            nbytes = self._filling_bytes
        elif cut == len(filling) - 1:
            nbytes = self._filling_bytes - self._last_bytes
        else:
            nbytes = sum(map(_row_bytes, take))
        self._filling_bytes = max(0, self._filling_bytes - nbytes)
        position = self._sealed_position
        if type(take[0]) is Positioned:
            last = len(take) - 1  # the last envelope that completes its input, or -1
            while last >= 0 and getattr(take[last], "position", None) is None:
                last -= 1
            if last >= 0:
                self._sealed_position = position = take[last].position
                self._partial_done = 0
            self._partial_done += len(take) - 1 - last
            if self._partial_done:  # cut inside an input's outputs
                position = {PARTIAL: {"after": position, "outputs": self._partial_done}}
        else:
            position = getattr(take[-1], "position", None)
            if position is not None:
                self._sealed_position = position
            position = self._sealed_position
        batch = _Batch(self._next_batch_id, self._next_offset, take, position, nbytes)
        self._waiting.append(self._fill_since)
        if self._filling:  # the rest arrived later; close enough for a lag figure
            self._fill_since = time.monotonic()
        self._next_batch_id += 1
        self._next_offset += len(take)
        self._in_flight_batches += 1
        self._in_flight_rows += len(take)
        self._in_flight_bytes += nbytes
        if self._filling and self.max_latency is not None:
            self._start_delay_timer_locked()
        return batch

    def _should_seal_locked(self) -> bool:
        if not self._filling or self._state != "active":
            return False
        if self._upstream_done or self._full_locked():
            return True
        # The latency bound seals a partial batch only when no write is in flight:
        # while Spark writes, the batch keeps filling (a write's completion checks
        # again), so a busy sink still writes full batches.
        return (
            self.max_latency is not None
            and self._in_flight_batches == 0
            and time.monotonic() - self._filling_since >= self.max_latency
        )

    def _start_delay_timer_locked(self) -> None:
        assert self.max_latency is not None
        self._filling_since = time.monotonic()
        timer = threading.Timer(self.max_latency, self._on_delay)
        timer.daemon = True
        timer.start()

    def _on_delay(self) -> None:
        with self._lock:
            batch = self._seal_locked() if self._should_seal_locked() else None
        if batch is not None:
            self._convert_lane.submit(lambda: self._convert(batch))

    def _request_free(self) -> None:
        with self._lock:
            if self._state != "active" or self._upstream_done or self._subscription is None:
                return
            outstanding = self._outstanding
            free = self.capacity - len(self._filling) - self._in_flight_rows - outstanding
            est = self._row_est
            held = self._filling_bytes + self._in_flight_bytes
            if est == 0:  # no record seen yet: one, to measure, before a slice
                free = min(free, 1 - outstanding)
            else:
                free_bytes = 2 * self._seal_bytes - held - outstanding * est
                free = min(free, int(free_bytes // est), self._slice - outstanding)
            if free <= 0:
                if outstanding or self._in_flight_batches or self._full_locked():
                    return  # an arrival or a commit asks again
                # nothing in flight to free the budget: one record at a time, so one
                # larger than the whole budget still flows
                free = min(1, self.capacity - len(self._filling))
                if free <= 0:
                    return
            self._outstanding += free
            sub = self._subscription
        with self._sub_lock:
            sub.request(free)

    def _cancel_upstream(self) -> None:
        with self._lock:
            sub, self._subscription = self._subscription, None
        if sub is not None:
            with self._sub_lock:
                try:
                    sub.cancel()
                except Exception:  # rule 3.15 says it returns normally; log if not
                    log.exception("cancel() raised")

    def _dead(self, batch: _Batch) -> bool:
        state = self._state
        return state == "cancelled" or (state == "failed" and batch.batch_id >= self._fail_from)

    def _convert(self, batch: _Batch) -> None:
        if self._dead(batch):
            self._drop(batch)
            return
        assert batch.records is not None
        try:
            payload = self._convert_rows(batch, batch.records)
            store = self._schema_store
            if store is not None and payload.rows and hasattr(payload.data, "schema"):
                store.check(payload.data.schema, self._evolution)  # the first batch only
                self._schema_store = None
            if batch.position is not None:
                check_position(batch.position)
        except Exception as e:
            self._fail(_locate(e, batch.records, batch.offset_before), batch.batch_id, batch)
            return
        batch.payload = payload
        batch.records = None  # the payload holds the data now
        if payload.rows and batch.nbytes > 0 and payload.nbytes > 0:
            scale = payload.nbytes / batch.nbytes  # Arrow bytes per estimated byte
            with self._lock:
                self._scale = scale
                self._seal_bytes = self.batch_bytes / scale
        self._write_lane.submit(lambda: self._write(batch))

    def _convert_rows(self, batch: _Batch, entries: list[Any]) -> Payload:
        """The batch's rows as a payload; with ``bad_records``, a row the schema refuses
        goes to the quarantine (named by its element offset) and the rest is written."""
        from reactive_streams.spark.records import SchemaError

        first = batch.offset_before
        records = _unwrap(entries)
        if records is None:
            rows, places = entries, [(first + k, None) for k in range(len(entries))]
        else:
            rows = records
            places = [(first + k, e.position) for k, e in enumerate(entries) if e.value is not SKIP]
        while rows:
            try:
                return self.writer.convert(rows, first)
            except SchemaError as e:
                at = -1 if e.record_index is None else e.record_index - first
                if self._quarantine is None or not 0 <= at < len(rows):
                    raise
                offset, position = places[at]
                if e.record_index != offset:  # counted in the rows left: name its own
                    e = SchemaError(
                        str(e).replace(f"record {e.record_index}", f"record {offset}", 1),
                        e.field,
                        offset,
                    )
                self._quarantine.put(offset, position, e, rows[at])
                with self._lock:
                    self._quarantined += 1
                rows, places = rows[:at] + rows[at + 1 :], places[:at] + places[at + 1 :]
        return Payload(None, 0, 0)  # every element was a skip (or refused): no file

    @staticmethod
    def _table_schema(writer: Any, evolution: str) -> tuple[SchemaStore | None, str]:
        """The table's stored schema: a declared schema is checked against it now; an
        inferred one adopts it (so an all-null column keeps the table's type), or is
        checked at the first batch."""
        if evolution not in EVOLUTION:
            raise ValueError(f"schema_evolution must be one of {EVOLUTION}, got {evolution!r}")
        fs, path = getattr(writer, "fs", None), getattr(writer, "path", None)
        if fs is None or not isinstance(path, str):
            return None, evolution  # a writer with no table (the in-memory one)
        store = SchemaStore(fs, path)
        converter = getattr(writer, "converter", None)
        declared = getattr(converter, "schema", None)
        if declared is not None:
            store.check(declared, evolution)
            return None, evolution  # checked: nothing left to do per batch
        found = store.current() if evolution == "none" else None
        if found is not None and converter is not None:
            converter.schema = found[1]
            return None, evolution
        return store, evolution

    @property
    def quarantined(self) -> int:
        """Records this run refused and kept in ``bad_records`` (replays included)."""
        with self._lock:
            return self._quarantined

    def _drop(self, batch: _Batch) -> None:
        with self._lock:
            self._drop_locked(batch)

    def _drop_locked(self, batch: _Batch) -> None:
        if self._waiting:
            self._waiting.popleft()
        self._in_flight_batches -= 1
        self._in_flight_rows -= batch.slots
        self._in_flight_bytes -= batch.nbytes

    def _retry(self, step: str, batch_id: int, action: Callable[[int], R]) -> R:
        first: Exception | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                return action(attempt)
            except Exception as e:
                first = first or e
                # a fenced writer stays fenced: a retry cannot succeed (LeaseLost is final)
                if attempt == self.max_attempts or isinstance(e, LeaseLost):
                    raise _StepFailed(step, batch_id, attempt, e, first) from e
                with self._lock:
                    self._retries += 1
                log.warning("%s of batch %d failed (attempt %d): %r", step, batch_id, attempt, e)
                self._sleep(self.retry_backoff_s * 2 ** (attempt - 1))
        raise AssertionError("unreachable")

    def _write(self, batch: _Batch) -> None:
        if self._dead(batch):
            self._drop(batch)
            return
        payload = batch.payload
        assert payload is not None
        bid = batch.batch_id
        flush_started = time.monotonic()
        try:
            attempt_used = 0

            def stage(attempt: int) -> Any:
                nonlocal attempt_used
                attempt_used = attempt
                return self.writer.stage(bid, attempt, payload)

            staged = self._retry("stage", bid, stage) if payload.rows else _NO_FILES
            record = CommitRecord(
                sink_id=self.sink_id,
                batch_id=bid,
                attempt=attempt_used,
                offset_before=batch.offset_before,
                offset_after=batch.offset_before + batch.slots,
                staging=staged.staging,
                files=staged.files,
                bytes=staged.nbytes,
                position=batch.position,
            )
            self._retry("commit", bid, lambda _: self.writer.commit(record))
        except _StepFailed as e:
            self._fail(e, bid, batch)
            return
        publish_error: _StepFailed | None = None
        try:
            self._retry("publish", bid, lambda _: self.writer.publish(record))
        except _StepFailed as e:  # committed: a restart rolls it forward
            publish_error = e
        with self._lock:
            if self._waiting:
                self._waiting.popleft()
            self._flush_s += time.monotonic() - flush_started
            self._in_flight_batches -= 1
            self._in_flight_rows -= batch.slots
            self._in_flight_bytes -= batch.nbytes
            self._committed_offset = record.offset_after
            self._last_committed = bid
            self._records += payload.rows
            self._batches += 1
            self._bytes += staged.nbytes
            metrics = self._metrics_locked()
            # a failed publish fails the stream in this step: an on_complete finding the
            # sink idle in between would finish it "done" (and lose the failure)
            failing = publish_error is not None and self._fail_locked(publish_error, bid + 1)
            nxt = self._seal_locked() if self._should_seal_locked() else None
            finished = publish_error is None and self._finished_locked()
        self._progress.update(payload.rows, metrics)
        if publish_error is not None:
            if failing:
                self._cancel_upstream()
                self._finalize_later()
            return
        if nxt is not None:
            self._convert_lane.submit(lambda: self._convert(nxt))
        self._request_free()  # acknowledge: the committed rows are free buffer again
        if finished:
            self._finalize()

    def _fail(
        self, error: BaseException, from_batch: int | None = None, failed: _Batch | None = None
    ) -> None:
        """Stop on ``error``: batches before ``from_batch`` (default: all sealed ones)
        are still written, later ones dropped; the upstream is cancelled. The batch that
        ``failed`` leaves the in-flight count in the same step: an on_complete finding
        the sink idle in between would finish it "done" and lose the failure."""
        with self._lock:
            if failed is not None:
                self._drop_locked(failed)
            if not self._fail_locked(error, from_batch):
                return
        self._cancel_upstream()
        self._finalize_later()

    def _fail_locked(self, error: BaseException, from_batch: int | None) -> bool:
        """Enter the failed state; False if the sink had already failed or finished."""
        if self._state in ("failed", "done") or self._finalized:
            return False
        self._state = "failed"
        self._fail_from = self._next_batch_id if from_batch is None else from_batch
        self._error = error
        self._dropped += len(self._filling)
        self._filling = []
        self._filling_bytes = 0
        return True

    def _finalize_later(self) -> None:
        """Finalize once every batch sealed so far has left both lanes: a batch still
        converting queues its write (or its drop) before this reaches the write lane."""
        self._convert_lane.submit(lambda: self._write_lane.submit(self._finalize))

    def _finalize(self) -> None:
        """Runs on the write lane after the last write: resolves :attr:`completion`."""
        with self._lock:
            if self._finalized:
                return
            self._finalized = True
            self._ended = time.monotonic()
            state = self._state
            metrics = self._metrics_locked()
            uncommitted = self._next_offset - self._committed_offset + self._dropped
            upstream_error = self._upstream_error
        if state == "done" and self._closing:
            state = "closed"
        if state in ("done", "closed"):
            try:
                self.writer.finish()
            except Exception as e:
                state, self._error = "failed", e
        release = getattr(self.writer, "release", None)
        if release is not None:  # the lease: a later writer need not fence this one
            try:
                release()
            except Exception as e:
                log.warning("releasing the lease of sink %s failed: %r", self.sink_id, e)
        self._progress.close(metrics, state)
        if self._pool is not None:
            self._pool.close(timeout=0)
        if state == "failed" or upstream_error is not None:
            cause = self._error if state == "failed" else upstream_error
            what = "upstream failed" if state != "failed" else "sink failed"
            err = SparkSinkError(
                f"{what}: {cause}; last committed batch id {metrics.last_committed_batch_id}, "
                f"committed offset {metrics.committed_offset}"
                + (f", {uncommitted} records dropped uncommitted" if state == "failed" else ""),
                last_committed_batch_id=metrics.last_committed_batch_id,
                committed_offset=metrics.committed_offset,
                uncommitted_records=uncommitted,  # 0 unless the sink dropped some (a cancel)
            )
            err.__cause__ = cause
            self.completion.set_exception(err)
        else:
            self.completion.set_result(
                SinkResult("completed" if state == "done" else state, metrics)
            )
