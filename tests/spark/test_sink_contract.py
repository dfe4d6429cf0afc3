"""SparkSink's contract as its caller sees it, without Spark (in-memory writer,
ManualExecutor): where the first batch is cut by the byte estimate of its first record
(the estimate stops descending below nine levels of nesting), what a SparkSinkError
reports, a lane that runs one task at a time, and the defaults (demand, latency, retry
backoff, lease). Round 4 drives the state machine through the writer and clock seams:
batches dead after a cancel or a failure, two batches in flight at most, demand as the
free buffer, retries, the table's schema, and races forced through a hooked lock."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark import sink as sink_module
from reactive_streams.spark.commit_log import CommitRecord
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import SKIP, Positioned
from reactive_streams.spark.quarantine import LocalFS
from reactive_streams.spark.sink import DEMAND_SLICE, SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload

from .test_sink_unit import FakeSubscription, memory_sink
from .test_sink_units import AnyWriter, any_sink, failure

TEXT = "x" * 1000  # a leaf that estimates 1004 bytes


@dataclass
class Box:
    inner: Any


def in_dicts(levels: int) -> Any:
    value: Any = TEXT
    for _ in range(levels):
        value = {"v": value}
    return value


def in_boxes(levels: int) -> Any:
    value: Any = TEXT
    for _ in range(levels):
        value = Box(value)
    return value


def first_batch(record: Any, batch_bytes: int = 2008) -> int:
    """The rows of the first batch of five copies of ``record``: a first record of
    1004 estimated bytes cuts a batch of two (batch_bytes 2008); one of 8 does not."""
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=100, batch_bytes=batch_bytes)
    sink.on_subscribe(FakeSubscription())
    for _ in range(5):
        sink.on_next(record)
        ex.run_all()  # commits free the byte budget (batches are sealed by size only)
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 5
    writer = sink.writer
    assert isinstance(writer, AnyWriter)
    converts = [offset for step, offset in writer.calls if step == "convert"]
    return converts[1] if len(converts) > 1 else 5


@pytest.mark.parametrize("wrap", [in_dicts, in_boxes], ids=["dicts", "dataclasses"])
def test_the_first_record_estimate_descends_nine_levels(wrap: Any) -> None:
    # nine levels: the text at the bottom counts, the first batch holds two records
    assert first_batch(wrap(9)) == 2
    assert first_batch(wrap(5)) == 2
    # ten: the tenth level counts 8 bytes, the five records fit one batch
    assert first_batch(wrap(10)) == 5


def test_a_sink_error_says_where_a_restart_resumes_and_what_was_dropped() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run_all()  # batch 0 committed
    sink.on_next((2, "c"))
    sink.on_next("bad")  # batch 1's convert refuses it
    ex.run_all()
    with pytest.raises(SparkSinkError) as caught:
        sink.result(0)
    error = caught.value
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 2
    assert str(error) == (
        "sink failed: field 'id': record 3 is 'bad'; last committed batch id 0, "
        "committed offset 2, 2 records dropped uncommitted"
    )


def test_an_upstream_error_reports_no_dropped_records() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run_all()
    sink.on_error(ValueError("boom"))
    ex.run_all()
    with pytest.raises(SparkSinkError) as caught:
        sink.result(0)
    error = caught.value
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 0
    assert str(error) == ("upstream failed: boom; last committed batch id 0, committed offset 2")


# ------------------------------------------------------------ the lanes
def test_a_lane_rearmed_by_its_own_task_still_runs_one_task_at_a_time() -> None:
    ex = ManualExecutor()
    lane = sink_module._SerialLane(ex)
    ran: list[str] = []

    def first() -> None:
        ran.append("a")
        lane.submit(lambda: ran.append("b"))  # queued behind the running task

    lane.submit(first)
    ex.run()  # a runs, b is queued: the lane re-arms itself once
    assert len(ex.pending) == 1
    lane.submit(lambda: ran.append("c"))  # the lane is busy: c waits its turn
    assert len(ex.pending) == 1
    ex.run_all()
    assert ran == ["a", "b", "c"]
    assert ex.executed == 3


# ------------------------------------------------------------ the defaults
class RecordingTimer:
    armed: ClassVar[list[float]] = []

    def __init__(self, interval: float, function: Any) -> None:
        RecordingTimer.armed.append(interval)
        self.daemon = False

    def start(self) -> None:
        pass


def test_the_defaults_request_two_batches_and_seal_a_partial_one_after_two_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(threading, "Timer", RecordingTimer)  # the latency timer
    RecordingTimer.armed = []
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    sink = SparkSink(writer=writer, sink_id="u", executor=ManualExecutor(), progress=False)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    # demand is the free buffer (two batches of rows, two of bytes), asked in slices
    # of DEMAND_SLICE records after a first record measured the size of one
    assert sub.requested == 1
    sink.on_next((0, "a"))
    assert sub.requested == 1 + DEMAND_SLICE
    assert RecordingTimer.armed == [2.0]  # max_latency: a partial batch waits 2 s at most
    sink.cancel()


def test_the_default_retries_back_off_from_a_fifth_of_a_second() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    writer = MemoryBatchWriter(storage, "u")
    writer.inject("stage", "fail")
    writer.inject("stage", "fail")
    slept: list[float] = []
    sink = SparkSink(
        writer=writer,
        sink_id="u",
        executor=ex,
        progress=False,
        sleep=slept.append,
        batch_rows=1,
        max_latency=None,
    )
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 1  # the third attempt of three succeeds
    assert slept == [0.2, 0.4]
    assert [c for c in writer.calls if c[0] == "stage"] == [("stage", 0)] * 3


def test_the_spark_writer_gets_a_thirty_second_lease_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[dict[str, Any]] = []

    def fake(*args: Any, **kw: Any) -> MemoryBatchWriter:
        made.append(kw)
        return MemoryBatchWriter(MemoryStorage(), "u")

    monkeypatch.setattr(sink_module, "SparkBatchWriter", fake)
    SparkSink(object(), "/t", progress=False).cancel()
    # a holder whose heartbeat is 30 s old may be taken over (spark/lease.py)
    assert made[0]["lease_ttl_s"] == 30.0
    assert (made[0]["takeover"], made[0]["mode"], made[0]["format"]) == (False, "append", "parquet")


def test_an_empty_path_is_no_path_when_the_writer_cannot_be_created(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = OSError("mkdirs refused")

    def refused(*args: Any, **kw: Any) -> Any:
        raise plain

    monkeypatch.setattr(sink_module, "SparkBatchWriter", refused)
    monkeypatch.setattr(os, "access", lambda *_a, **_k: False)  # nothing looks writable
    for path in (None, ""):
        with pytest.raises(OSError, match="mkdirs") as caught:
            SparkSink(object(), path, progress=False)
        assert caught.value is plain  # not blamed on the working directory


# ------------------------------------------------------------ the metrics
class Clock:
    """The sink's ``time`` module: a monotonic clock moved by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


class SlowStage(MemoryBatchWriter):
    """Staging a batch takes 1.5 s on ``clock``."""

    def __init__(self, storage: MemoryStorage, clock: Clock) -> None:
        super().__init__(storage, "u")
        self.clock = clock

    def stage(self, batch_id: int, attempt: int, payload: Any) -> Any:
        self.clock.now += 1.5
        return super().stage(batch_id, attempt, payload)


def test_the_metrics_count_pending_records_their_lag_and_the_time_in_flush(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(100.0)
    monkeypatch.setattr(sink_module, "time", clock)
    ex = ManualExecutor()
    sink = SparkSink(
        writer=SlowStage(MemoryStorage(), clock),
        sink_id="u",
        executor=ex,
        progress=False,
        batch_rows=2,
        max_latency=None,
    )
    idle = sink.metrics
    assert (idle.elapsed_s, idle.lag_s, idle.pending) == (0.0, 0.0, 0)  # not started
    sink.on_subscribe(FakeSubscription())  # started at 100
    clock.now = 103.0
    sink.on_next((0, "a"))  # the oldest record arrives at 103
    clock.now = 105.0
    m = sink.metrics
    assert (m.elapsed_s, m.pending, m.lag_s, m.records) == (5.0, 1, 2.0, 0)
    clock.now = 106.0
    sink.on_next((1, "b"))  # batch 0 sealed: its first record still waits since 103
    clock.now = 107.0
    sink.on_next((2, "c"))  # the next batch's first record
    clock.now = 108.0
    m = sink.metrics
    assert (m.elapsed_s, m.pending, m.lag_s) == (8.0, 3, 5.0)
    ex.run_all()  # batch 0 staged in 1.5 s and committed
    m = sink.metrics
    assert clock.now == 109.5
    assert (m.records, m.batches, m.committed_offset, m.last_committed_batch_id) == (2, 1, 2, 0)
    assert (m.elapsed_s, m.pending, m.lag_s, m.flush_s) == (9.5, 1, 2.5, 1.5)
    sink.on_complete()
    ex.run_all()  # batch 1 staged at 109.5 .. 111, the sink ends at 111
    clock.now = 200.0
    final = sink.result(0).metrics
    assert (final.records, final.batches, final.pending, final.lag_s) == (3, 2, 0, 0.0)
    assert (final.elapsed_s, final.flush_s) == (11.0, 3.0)
    assert (final.bytes, final.retries) == (3 * 16, 0)  # the memory writer's 16 per row
    later = sink.metrics
    assert (later.elapsed_s, later.lag_s) == (11.0, 0.0)  # the clock stopped at the end


# ------------------------------------------------------------ the quarantine
class RecordingFS:
    """A writer's filesystem that keeps what is created in memory."""

    def __init__(self) -> None:
        self.dirs: list[str] = []
        self.created: dict[str, bytes] = {}

    def mkdirs(self, uri: str) -> None:
        self.dirs.append(uri)

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        if uri in self.created:
            return False
        self.created[uri] = data
        return True


class WriterWithFS(MemoryBatchWriter):
    def __init__(self, storage: MemoryStorage) -> None:
        super().__init__(storage, "u")
        self.fs = RecordingFS()


def test_the_quarantine_is_kept_on_the_writers_filesystem(tmp_path: Any) -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    writer = WriterWithFS(storage)
    where = tmp_path / "q"
    sink = SparkSink(
        writer=writer,
        sink_id="u",
        executor=ex,
        progress=False,
        batch_rows=10,
        max_latency=None,
        bad_records=str(where),
    )
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next("bad")
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).status == "completed"
    assert storage.reader_view("u") == [(0, "a")]
    assert writer.fs.dirs == [f"file://{where}"]
    assert list(writer.fs.created) == [f"file://{where}/u-000000000001.json"]
    assert not where.exists()  # not on the local disk beside the writer's filesystem


# ------------------------------------------------------------ the default executor
def test_the_default_executor_is_two_threads_named_after_the_sink() -> None:
    storage = MemoryStorage()
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "pool7"),
        sink_id="pool7",
        progress=False,
        sleep=lambda _s: None,
        max_latency=None,
    )
    names = sorted(t.name for t in threading.enumerate() if "pool7" in t.name)
    assert names == ["spark-sink-pool7-0", "spark-sink-pool7-1"]  # one per lane
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_complete()
    assert sink.result(30).metrics.records == 1
    assert storage.reader_view("pool7") == [(0, "a")]


# ------------------------------------------------------------ empty batches of records
def test_an_empty_batch_of_records_first_takes_a_slot_and_writes_nothing() -> None:
    # rule 2.13: on_next returns normally; the byte budget waits for a first record
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    sink.on_next([])  # an empty list (or an empty Arrow table, a DataFrame) first
    assert sink.outstanding == sub.requested - 1
    assert sink.buffered == 0
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 2
    assert storage.reader_view("u") == [(0, "a"), (1, "b")]


def test_no_lag_while_nothing_is_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(100.0)
    monkeypatch.setattr(sink_module, "time", clock)
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=1)
    sink.on_subscribe(FakeSubscription())
    clock.now = 103.0
    sink.on_next((0, "a"))  # sealed at once
    ex.run_all()
    clock.now = 110.0
    m = sink.metrics
    assert (m.records, m.pending, m.lag_s, m.elapsed_s) == (1, 0, 0.0, 10.0)
    sink.cancel()


# ------------------------------------------------------------ the progress report
def sink_lines(progress: bool, caplog: pytest.LogCaptureFixture) -> list[str]:
    ex = ManualExecutor()
    sink = SparkSink(
        writer=MemoryBatchWriter(MemoryStorage(), "u"),
        sink_id="u",
        executor=ex,
        progress=progress,
        batch_rows=1,
        max_latency=None,
    )
    caplog.clear()
    with caplog.at_level(logging.INFO, "reactive_streams.spark"):
        sink.on_subscribe(FakeSubscription())
        sink.on_next((0, "a"))
        sink.on_complete()
        ex.run_all()
    assert sink.result(0).metrics.records == 1
    return [r.getMessage() for r in caplog.records]


def test_the_progress_report_names_the_sink_and_is_off_when_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert sink_lines(False, caplog) == []  # progress=False: silent, even off a terminal
    lines = sink_lines(True, caplog)
    assert len(lines) == 1
    assert lines[0].startswith("sink u done: 1 records, 1 batches, 16 bytes, 0 retries")


# ------------------------------------------------------------ rule 2.13
def test_on_next_none_is_refused_by_rule_2_13_and_takes_no_slot() -> None:
    sink = memory_sink(MemoryStorage(), ManualExecutor(), batch_rows=2)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    with pytest.raises(TypeError) as caught:
        sink.on_next(None)
    assert str(caught.value) == "rule 2.13: on_next(None)"
    assert sink.outstanding == sub.requested
    assert sink.buffered == 0
    sink.cancel()


# ------------------------------------------------------------ a batch of records first
def test_a_list_first_is_budgeted_by_its_first_record_and_arms_the_latency_timer_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(threading, "Timer", RecordingTimer)
    RecordingTimer.armed = []
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=100, batch_bytes=2008, max_latency=5.0)
    sink.on_subscribe(FakeSubscription())
    sink.on_next([in_dicts(1)])  # 1004 estimated bytes: batches of two
    sink.on_next([in_dicts(1)])  # the buffer was not empty: no new timer
    assert RecordingTimer.armed == [5.0]
    sink.on_complete()
    ex.run_all()
    writer = sink.writer
    assert isinstance(writer, AnyWriter)
    assert [c for c in writer.calls if c[0] == "convert"] == [("convert", 0)]
    assert sink.result(0).metrics.batches == 1


def test_a_first_record_of_one_estimated_byte_budgets_one_byte_a_row() -> None:
    # {"a": None} estimates 1 byte: batch_bytes=3 seals batches of three rows
    assert first_batch({"a": None}, batch_bytes=3) == 3


# ------------------------------------------------------------ the end
def test_an_error_after_on_complete_is_ignored() -> None:
    # rule 1.7: no signal follows a terminal one; a sink still writing ignores it
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_complete()  # batch 0 is sealed, not yet written
    sink.on_error(ValueError("late"))
    ex.run_all()
    assert sink.result(0).status == "completed"
    assert storage.reader_view("u") == [(0, "a")]


def test_a_failure_after_on_complete_cancels_nothing(caplog: pytest.LogCaptureFixture) -> None:
    # rule 2.4: after on_complete the subscription is gone; a failing write has none to cancel
    storage, ex = MemoryStorage(), ManualExecutor()
    writer = MemoryBatchWriter(storage, "u")
    for _ in range(3):
        writer.inject("stage", "fail")
    sink = SparkSink(
        writer=writer,
        sink_id="u",
        executor=ex,
        progress=False,
        sleep=lambda _s: None,
        batch_rows=2,
        max_latency=None,
    )
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    sink.on_next((0, "a"))
    sink.on_complete()
    with caplog.at_level(logging.DEBUG, "reactive_streams.spark"):
        ex.run_all()
    with pytest.raises(SparkSinkError):
        sink.result(0)
    assert not sub.cancelled
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


# ------------------------------------------------------------ round 4: the state machine
class StrictExecutor(ManualExecutor):
    """A ManualExecutor that keeps what its tasks raise (ManualExecutor only logs it)."""

    def __init__(self) -> None:
        super().__init__()
        self.raised: list[BaseException] = []

    def execute(self, task: Any, label: str | None = None) -> None:
        def guarded() -> None:
            try:
                task()
            except Exception as e:
                self.raised.append(e)
                raise

        super().execute(guarded, "task")


class BoundedSubscription(FakeSubscription):
    """Checks at every request that demand stays within the free buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.sink: SparkSink | None = None

    def request(self, n: int) -> None:
        super().request(n)
        sink = self.sink
        assert sink is not None
        # the sink counts the demand before it asks: buffered + outstanding <= capacity
        assert sink.buffered + sink.outstanding <= sink.capacity


def subscribed(sink: SparkSink) -> BoundedSubscription:
    sub = BoundedSubscription()
    sub.sink = sink
    sink.on_subscribe(sub)
    return sub


def strict_sink(
    ex: StrictExecutor, writer: MemoryBatchWriter | None = None, **kw: Any
) -> SparkSink:
    kw.setdefault("max_latency", None)
    kw.setdefault("sleep", lambda _s: None)
    return SparkSink(
        writer=writer if writer is not None else MemoryBatchWriter(MemoryStorage(), "u"),
        sink_id="u",
        executor=ex,
        progress=False,
        **kw,
    )


def memory_of(sink: SparkSink) -> MemoryBatchWriter:
    writer = sink.writer
    assert isinstance(writer, MemoryBatchWriter)
    return writer


def test_a_cancel_drops_the_sealed_batches_unconverted_and_frees_them() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    sub = subscribed(sink)
    for i in range(4):
        sink.on_next((i, "x"))  # batches 0 and 1 sealed, neither converted yet
    assert sink.buffered == 4
    sink.cancel()
    ex.run_all()
    assert sub.cancelled
    assert memory_of(sink).calls == []  # a dead batch is neither converted nor written
    assert (sink.buffered, sink.metrics.pending) == (0, 0)
    assert sink.result(0).status == "cancelled"
    assert ex.raised == []


def test_a_cancelled_sink_resolves_after_its_sealed_batches_are_dropped() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    for i in range(4):
        sink.on_next((i, "x"))
    sink.cancel()
    ex.run_all()
    result = sink.result(0)
    assert (result.status, result.metrics.pending) == ("cancelled", 0)  # nothing held


@pytest.mark.parametrize("step", ["convert", "stage", "commit"])
def test_a_batch_sealed_after_a_failing_one_is_never_written(step: str) -> None:
    ex = StrictExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    writer.inject(step, "fail")  # batch 0's step fails
    sink = strict_sink(ex, writer, batch_rows=2, max_attempts=1)
    sub = subscribed(sink)
    for i in range(4):
        sink.on_next((i, "x"))
    ex.run_all()
    assert [c for c in writer.calls if c[1] == 1] == []  # batch 1 is dropped unconverted
    assert writer.storage.committed("u") == []
    error = failure(sink)
    assert (error.committed_offset, error.uncommitted_records) == (0, 4)
    assert f"injected failure at {step}" in str(error.__cause__)
    assert sub.cancelled
    assert ex.raised == []


def test_a_batch_sealed_after_one_whose_publish_failed_is_never_written() -> None:
    # batch 0 is committed (a restart publishes it); batch 1, sealed, is dropped
    ex = StrictExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    writer.inject("publish", "fail")
    sink = strict_sink(ex, writer, batch_rows=2, max_attempts=1)
    subscribed(sink)
    for i in range(4):
        sink.on_next((i, "x"))
    ex.run_all()
    assert [c for c in writer.calls if c[0] != "convert"] == [
        ("stage", 0),
        ("commit", 0),
        ("publish", 0),
    ]
    assert [r.batch_id for r in writer.storage.committed("u")] == [0]
    error = failure(sink)
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 2
    assert ex.raised == []


class CancelInStage(MemoryBatchWriter):
    """The sink is cancelled while it stages batch ``at``, whose stage then fails."""

    def __init__(self, at: int) -> None:
        super().__init__(MemoryStorage(), "u")
        self.at = at
        self.sink: SparkSink | None = None

    def stage(self, batch_id: int, attempt: int, payload: Any) -> Any:
        if batch_id == self.at:
            assert self.sink is not None
            self.sink.cancel()
            raise OSError("disk gone")
        return super().stage(batch_id, attempt, payload)


def test_a_write_running_when_the_sink_is_cancelled_still_reports_its_failure() -> None:
    # the records the cancel dropped count as uncommitted with the failing batch's
    ex = StrictExecutor()
    writer = CancelInStage(at=0)
    sink = strict_sink(ex, writer, batch_rows=2, max_attempts=1)
    writer.sink = sink
    sub = subscribed(sink)
    for i in range(3):
        sink.on_next((i, "x"))  # batch 0 sealed, one record buffered
    ex.run_all()
    assert sub.cancelled
    error = failure(sink)
    assert (error.last_committed_batch_id, error.committed_offset) == (-1, 0)
    assert error.uncommitted_records == 3
    assert ex.raised == []


def test_records_a_close_drops_mid_input_count_when_a_later_write_fails() -> None:
    # batches of two envelopes of 17 estimated bytes (batch_bytes 50); capacity 8
    # records, 100 bytes
    ex = StrictExecutor()
    writer = CancelInStage(at=1)
    sink = strict_sink(ex, writer, batch_rows=4, batch_bytes=50, max_attempts=1)
    writer.sink = sink
    subscribed(sink)
    for i in range(4):
        sink.on_next(Positioned(i + 1, (i, "x")))  # batches 0 and 1, two in flight
    sink.on_next(Positioned(None, (4, "x")))  # the first output of an input
    sink.close()  # nothing follows: that input is dropped once batch 0 is written
    ex.run_all()  # batch 1's stage is cancelled and fails
    error = failure(sink)
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert error.uncommitted_records == 3  # batch 1 and the dropped output
    assert writer.storage.reader_view("u") == [(0, "x"), (1, "x")]
    assert ex.raised == []


def test_an_input_split_across_batches_is_cut_at_the_batch_size() -> None:
    # one list of three outputs of one input; batches of two slots: a split batch
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next([Positioned(None, (0, "a")), Positioned(None, (1, "b")), Positioned(7, (2, "c"))])
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 3
    storage = memory_of(sink).storage
    assert [r.position for r in storage.committed("u")] == [
        {"rs_partial": {"after": None, "outputs": 2}},
        7,
    ]
    assert storage.reader_view("u") == [(0, "a"), (1, "b"), (2, "c")]


def run_newest_first(ex: ManualExecutor) -> None:
    """A scheduler that favours the lane that submitted last (the convert lane)."""
    while ex.pending:
        ex.run(len(ex.pending) - 1)


class InFlight(MemoryBatchWriter):
    """Records the most batches converted and not yet published at once."""

    def __init__(self) -> None:
        super().__init__(MemoryStorage(), "u")
        self.converted = self.published = self.most = 0

    def convert(self, records: Any, first_offset: int) -> Any:
        self.converted += 1
        self.most = max(self.most, self.converted - self.published)
        return super().convert(records, first_offset)

    def publish(self, record: Any) -> None:
        super().publish(record)
        self.published += 1


def test_at_most_two_batches_are_in_flight_and_the_third_is_sealed_after_the_first() -> None:
    # batches of one row (17 estimated bytes, 16 measured, a budget of 30), capacity
    # four rows and 60 bytes: three rows
    ex = StrictExecutor()
    writer = InFlight()
    sink = strict_sink(ex, writer, batch_rows=2, batch_bytes=30)
    sub = subscribed(sink)
    assert sub.requested == 1  # one record first, to measure its size
    for i in range(3):
        sink.on_next((i, "x"))  # batches 0 and 1 sealed; the third row waits
    assert (sink.buffered, sink.outstanding, sub.requested) == (3, 0, 3)
    run_newest_first(ex)
    assert writer.most == 2  # the memory bound: two sealed batches in flight at most
    # the third row was sealed when batch 0 was written, with no new element
    assert writer.storage.committed_offset("u") == 3
    assert [r.rows for r in writer.storage.committed("u")] == [1, 1, 1]
    # every committed row is requested again: three rows of the 60 bytes (64 measured)
    assert sub.requested == 3 + 3
    assert ex.raised == []


def test_demand_after_a_write_is_the_free_buffer() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    sub = subscribed(sink)
    for i in range(3):
        sink.on_next((i, "x"))  # batch 0 sealed, one row buffered, one outstanding
    ex.run_all()
    assert sub.requested == 4 + 2  # capacity 4 - 1 buffered - 1 outstanding
    assert (sink.buffered, sink.outstanding) == (1, 3)


def test_the_lag_of_a_rest_left_by_a_seal_runs_from_the_seal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(100.0)
    monkeypatch.setattr(sink_module, "time", clock)
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next([(0, "a"), (1, "b"), (2, "c")])  # batch 0 sealed, (2, "c") left over
    clock.now = 104.0
    ex.run_all()  # batch 0 committed
    clock.now = 105.0
    m = sink.metrics
    assert (m.records, m.pending, m.lag_s) == (2, 1, 5.0)
    sink.cancel()


class CapturingTimer:
    """threading.Timer for the latency bound: armed, never started; fired by hand."""

    armed: ClassVar[list[Any]] = []

    def __init__(self, interval: float, function: Any) -> None:
        CapturingTimer.armed.append(function)
        self.daemon = False

    def start(self) -> None:
        pass


def test_the_latency_timer_seals_a_partial_batch_once_max_latency_has_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(100.0)
    monkeypatch.setattr(sink_module, "time", clock)
    monkeypatch.setattr(threading, "Timer", CapturingTimer)
    CapturingTimer.armed = []
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=10, max_latency=5.0)
    subscribed(sink)
    sink.on_next((0, "a"))  # the timer is armed at 100
    (fire,) = CapturingTimer.armed
    clock.now = 104.5
    fire()  # early (a timer may fire early): the batch keeps filling
    ex.run_all()
    assert memory_of(sink).calls == []
    clock.now = 105.0
    fire()  # exactly max_latency after the first record: sealed
    ex.run_all()
    assert memory_of(sink).storage.committed_offset("u") == 1
    sink.cancel()


def test_a_write_acknowledged_while_close_cancels_upstream_requests_nothing() -> None:
    # close() cancels upstream before it marks the upstream done; a write that ends in
    # between finds no subscription and asks nothing of it
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)

    class WritesOnCancel(BoundedSubscription):
        def cancel(self) -> None:
            super().cancel()
            ex.run_all()  # batch 0 written and acknowledged right now

    sub = WritesOnCancel()
    sub.sink = sink
    sink.on_subscribe(sub)
    for i in range(3):
        sink.on_next((i, "x"))
    sink.close()
    ex.run_all()
    assert sub.requested == 4
    assert sink.result(0).status == "closed"
    assert memory_of(sink).storage.committed_offset("u") == 3
    assert ex.raised == []


def test_a_write_acknowledged_while_a_failure_cancels_upstream_requests_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # batch 1's convert fails; batch 0, before it, is still written, and its write ends
    # after the sink failed and before the upstream is cancelled: no new demand
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    sub = subscribed(sink)
    for item in [(0, "a"), (1, "b"), (2, "c"), "bad"]:
        sink.on_next(item)
    cancel_upstream = sink._cancel_upstream

    def write_first() -> None:
        ex.run_all()
        cancel_upstream()

    monkeypatch.setattr(sink, "_cancel_upstream", write_first)
    ex.run()  # batch 0 converted; its write waits
    ex.run(1)  # batch 1's convert fails
    ex.run_all()
    assert sub.cancelled
    assert sub.requested == 4
    error = failure(sink)
    assert (error.last_committed_batch_id, error.committed_offset) == (0, 2)
    assert ex.raised == []


class SchemaList(list[Any]):
    """Converted rows whose data has a ``schema`` attribute, as an Arrow table has."""

    schema = "schema"


class SchemaRows(MemoryBatchWriter):
    def convert(self, records: Any, first_offset: int) -> Any:
        payload = super().convert(records, first_offset)
        return Payload(SchemaList(payload.data), payload.rows, payload.nbytes)


def test_a_writer_with_no_table_checks_no_schema() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, SchemaRows(MemoryStorage(), "u"), batch_rows=2)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 1
    assert ex.raised == []


def test_a_position_that_is_not_json_fails_the_batch_before_it_is_written() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=1)
    subscribed(sink)
    sink.on_next(Positioned((1, 2), (0, "a")))  # a tuple comes back as a list
    ex.run_all()
    error = failure(sink)
    assert str(error.__cause__) == (
        "a source position must survive a JSON round trip, got (1, 2) -> [1, 2]"
    )
    assert memory_of(sink).storage.committed("u") == []


class BytesPerRow(MemoryBatchWriter):
    """Reports ``per_row`` bytes for each converted row, and ``extra`` per batch."""

    def __init__(self, per_row: int, extra: int = 0) -> None:
        super().__init__(MemoryStorage(), "u")
        self.per_row = per_row
        self.extra = extra

    def convert(self, records: Any, first_offset: int) -> Any:
        payload = super().convert(records, first_offset)
        return Payload(payload.data, payload.rows, self.per_row * payload.rows + self.extra)


def batch_sizes(per_row: int, batch_bytes: int, extra: int = 0) -> list[int]:
    ex = StrictExecutor()
    writer = BytesPerRow(per_row, extra)
    sink = strict_sink(ex, writer, batch_rows=10, batch_bytes=batch_bytes)
    subscribed(sink)
    for i in range(9):
        sink.on_next((i, "x"))
        ex.run_all()
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 9
    return [r.rows for r in writer.storage.committed("u")]


def test_measured_batches_are_budgeted_down_to_one_byte_and_one_row() -> None:
    # the first batch by the estimate (17 bytes: one row), then as measured
    assert batch_sizes(per_row=1, batch_bytes=4) == [1, 4, 4]
    assert batch_sizes(per_row=16, batch_bytes=10) == [1] * 9  # a row above the budget
    # two rows measure 17 bytes, three would measure 25: 24 bytes hold two
    assert batch_sizes(per_row=8, batch_bytes=24, extra=1) == [1, 2, 2, 2, 2]


class RefusesOnce(MemoryBatchWriter):
    """The first convert refuses the batch with ``error``; later ones convert."""

    def __init__(self, error: Exception) -> None:
        super().__init__(MemoryStorage(), "u")
        self.error: Exception | None = error

    def convert(self, records: Any, first_offset: int) -> Any:
        error, self.error = self.error, None
        if error is not None:
            raise error
        return super().convert(records, first_offset)


@pytest.mark.parametrize("index", [None, 2], ids=["no-index", "past-the-batch"])
def test_a_schema_error_naming_no_record_of_the_batch_fails_the_sink(
    index: int | None, tmp_path: Any
) -> None:
    # with a quarantine, a refusal that names no record of the batch is not quarantined
    from reactive_streams.spark.records import SchemaError

    refusal = SchemaError("field 'id': refused", "id", index)
    ex = StrictExecutor()
    sink = strict_sink(ex, RefusesOnce(refusal), batch_rows=2, bad_records=str(tmp_path / "q"))
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run_all()
    error = failure(sink)
    assert error.__cause__ is refusal
    assert sink.quarantined == 0
    assert list((tmp_path / "q").iterdir()) == []
    assert ex.raised == []


def test_a_refused_record_of_a_later_batch_is_quarantined_by_its_offset() -> None:
    ex = StrictExecutor()
    writer = WriterWithFS(MemoryStorage())
    sink = strict_sink(ex, writer, batch_rows=2, bad_records="/q")
    subscribed(sink)
    for item in [(0, "a"), (1, "b"), (2, "c"), "bad"]:
        sink.on_next(item)
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).status == "completed"
    assert writer.storage.reader_view("u") == [(0, "a"), (1, "b"), (2, "c")]
    assert list(writer.fs.created) == ["file:///q/u-000000000003.json"]
    assert sink.quarantined == 1


# ------------------------------------------------------------ round 4: retries
def test_a_retried_stage_is_counted_logged_and_committed_with_its_attempt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ex = StrictExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    writer.inject("stage", "fail")
    writer.inject("stage", "fail")
    sink = strict_sink(ex, writer, batch_rows=1)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_complete()
    with caplog.at_level(logging.WARNING, "reactive_streams.spark"):
        ex.run_all()
    assert sink.result(0).metrics.retries == 2
    (record,) = writer.storage.committed("u")
    assert record == CommitRecord(  # the third attempt's files
        sink_id="u",
        batch_id=0,
        attempt=3,
        offset_before=0,
        offset_after=1,
        staging="u/000000000000-3",
        files=(("part-0", "part-u-000000000000-000"),),
        bytes=16,
        position=None,
    )
    assert [r.getMessage() for r in caplog.records] == [
        f"stage of batch 0 failed (attempt {n}): OSError('injected failure at stage')"
        for n in (1, 2)
    ]
    assert ex.raised == []


@pytest.mark.parametrize("step", ["stage", "commit", "publish"])
def test_a_step_that_keeps_failing_names_itself_and_its_last_error(step: str) -> None:
    ex = StrictExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    for _ in range(3):
        writer.inject(step, "fail")
    sink = strict_sink(ex, writer, batch_rows=1)
    subscribed(sink)
    sink.on_next((0, "a"))
    ex.run_all()
    error = failure(sink)
    assert str(error.__cause__) == (
        f"{step} of batch 0 failed after 3 attempt(s): OSError('injected failure at {step}')"
    )
    assert sink.metrics.retries == 2


# ------------------------------------------------------------ round 4: the table's schema
class TableWriter(MemoryBatchWriter):
    """The memory writer with a table on the local disk and Arrow-like rows; no
    ``converter`` attribute unless ``declared`` is given."""

    def __init__(self, path: Any, declared: Any = None) -> None:
        super().__init__(MemoryStorage(), "u")
        self.fs = LocalFS()
        self.path = f"file://{path}"
        if declared is not None:
            self.converter = type("Converter", (), {"schema": declared})()

    def convert(self, records: Any, first_offset: int) -> Any:
        import pyarrow as pa

        payload = super().convert(records, first_offset)
        table = pa.table({"id": [r[0] for r in records], "v": [r[1] for r in records]})
        return Payload(table, payload.rows, payload.nbytes)

    def stage(self, batch_id: int, attempt: int, payload: Any) -> Any:
        rows = list(zip(*payload.data.to_pydict().values(), strict=True))
        return super().stage(batch_id, attempt, Payload(rows, len(rows), 16))


def test_an_inferred_schema_is_stored_by_the_first_batch_only(tmp_path: Any) -> None:
    pytest.importorskip("pyarrow")
    ex = StrictExecutor()
    writer = TableWriter(tmp_path)  # a writer with a table and no converter
    sink = strict_sink(ex, writer, batch_rows=1)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 2
    assert writer.storage.reader_view("u") == [(0, "a"), (1, "b")]
    assert [p.name for p in (tmp_path / "_rs_sink" / "_schema").iterdir()] == ["000000000000.json"]
    assert ex.raised == []


def test_a_declared_schema_adding_a_column_is_stored_as_the_next_version(tmp_path: Any) -> None:
    pa = pytest.importorskip("pyarrow")
    from reactive_streams.spark.table_schema import SchemaStore

    v0 = pa.schema([("id", pa.int64()), ("v", pa.string())])
    SchemaStore(LocalFS(), f"file://{tmp_path}").check(v0)
    v1 = v0.append(pa.field("note", pa.string()))
    sink = strict_sink(StrictExecutor(), TableWriter(tmp_path, v1), schema_evolution="add_columns")
    assert sorted(p.name for p in (tmp_path / "_rs_sink" / "_schema").iterdir()) == [
        "000000000000.json",
        "000000000001.json",
    ]
    sink.cancel()


# ------------------------------------------------------------ round 4: a failure racing on_complete
class CompletesWhenIdle:
    """The sink's lock: after a release that leaves nothing buffered once the writer
    has failed, the upstream completes (the earliest moment on_complete can land)."""

    def __init__(self, writer: MemoryBatchWriter) -> None:
        self._lock = threading.Lock()
        self.writer = writer
        self.sink: SparkSink | None = None
        self.completed_at: int | None = None
        self._inside = False

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
        sink = self.sink
        if self._inside or sink is None or self.completed_at is not None:
            return
        self._inside = True
        try:
            if not self.writer.faults and sink.buffered == 0:
                self.completed_at = len(self.writer.calls)
                sink.on_complete()
        finally:
            self._inside = False


@pytest.mark.parametrize("step", ["convert", "stage", "publish"])
def test_a_failure_is_not_lost_to_an_on_complete_that_lands_as_its_batch_leaves(
    step: str,
) -> None:
    # the failing batch leaves the in-flight count in the same step as the sink fails:
    # an on_complete seeing nothing in flight must not finish the sink "done"
    ex = StrictExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    writer.inject(step, "fail")
    sink = strict_sink(ex, writer, batch_rows=1, max_attempts=1)
    lock = CompletesWhenIdle(writer)
    lock.sink = sink
    sink._lock = lock  # type: ignore[assignment]
    subscribed(sink)
    sink.on_next((0, "a"))
    ex.run_all()
    assert lock.completed_at is not None  # the upstream completed once the step had failed
    error = failure(sink)
    assert f"injected failure at {step}" in str(error.__cause__)
    assert ex.raised == []


def test_a_batch_of_skips_commits_its_position_with_no_files_and_no_attempt() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next(Positioned(1, SKIP))
    sink.on_next(Positioned(2, SKIP))  # every record filtered out: nothing to stage
    ex.run_all()
    writer = memory_of(sink)
    assert writer.storage.committed("u") == [
        CommitRecord(
            sink_id="u", batch_id=0, attempt=0, offset_before=0, offset_after=2, position=2
        )
    ]
    assert [c[0] for c in writer.calls] == ["commit", "publish"]
    assert sink.metrics.committed_offset == 2
    sink.cancel()


def test_a_batch_converted_before_a_cancel_is_not_written() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    ex.run()  # batch 0 converted; its write waits
    sink.cancel()
    ex.run_all()
    assert memory_of(sink).calls == [("convert", 0)]
    assert (sink.buffered, sink.metrics.pending) == (0, 0)
    assert sink.result(0).status == "cancelled"
    assert ex.raised == []


# ------------------------------------------------------------ round 4: rule 1.1 violations
def violating_sink() -> tuple[SparkSink, StrictExecutor, BoundedSubscription]:
    """Two batches sealed (capacity 2), then one element more than requested."""
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=1)
    sub = subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))  # two batches sealed, no demand left
    sink.on_next((2, "c"))  # one more than requested
    ex.run_all()
    return sink, ex, sub


def test_a_rule_1_1_violation_still_writes_the_batches_sealed_before_it() -> None:
    sink, ex, sub = violating_sink()
    assert sub.cancelled
    error = failure(sink)
    assert str(error.__cause__) == "rule 1.1: the publisher sent more elements than requested"
    assert memory_of(sink).storage.reader_view("u") == [(0, "a"), (1, "b")]
    assert ex.raised == []


def test_a_failed_sink_resolves_after_the_batches_it_still_writes() -> None:
    # the result comes after the sealed batches' writes: it names what they committed
    sink = violating_sink()[0]
    error = failure(sink)
    assert (error.last_committed_batch_id, error.committed_offset) == (1, 2)
    assert memory_of(sink).storage.committed_offset("u") == error.committed_offset
    assert error.uncommitted_records == 0  # the element beyond demand was never taken


class HookedLock:
    """The sink's lock; ``hook`` runs once, after the first release once armed."""

    def __init__(self, hook: Any) -> None:
        self._lock = threading.Lock()
        self.hook = hook
        self.armed = False

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
        if self.armed:
            self.armed = False
            self.hook()


def test_a_violation_noticed_after_a_close_has_finished_the_sink_is_ignored() -> None:
    # close() lands between on_next's check and its failure: the sink, already done
    # (everything written), resolves "closed"; the late failure changes nothing
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=1)

    def close_now() -> None:
        ex.run_all()  # both batches written
        sink.close()

    lock = HookedLock(close_now)
    sink._lock = lock  # type: ignore[assignment]
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))
    lock.armed = True
    sink.on_next((2, "c"))  # more than requested: noticed, then the close lands
    ex.run_all()
    result = sink.result(0)
    assert (result.status, result.metrics.committed_offset) == ("closed", 2)
    assert ex.raised == []


# ------------------------------------------------------------ round 4: the end
def test_a_failure_counts_the_buffered_records_it_drops() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next("bad")  # batch 0, which its convert refuses
    sink.on_next((2, "c"))  # buffered when the sink fails
    ex.run_all()
    error = failure(sink)
    assert error.uncommitted_records == 3
    assert str(error).endswith("committed offset 0, 3 records dropped uncommitted")


class Finishing(MemoryBatchWriter):
    def __init__(self) -> None:
        super().__init__(MemoryStorage(), "u")
        self.finished = 0

    def finish(self) -> None:
        self.finished += 1


def test_a_closed_sink_finishes_its_writer_once() -> None:
    ex = StrictExecutor()
    writer = Finishing()
    sink = strict_sink(ex, writer, batch_rows=2)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.close()
    ex.run_all()
    assert sink.result(0).status == "closed"
    assert writer.finished == 1
    assert writer.storage.reader_view("u") == [(0, "a")]


def test_an_upstream_error_then_a_cancel_counts_what_the_cancel_dropped() -> None:
    ex = StrictExecutor()
    sink = strict_sink(ex, batch_rows=2)
    subscribed(sink)
    sink.on_next((0, "a"))
    sink.on_next((1, "b"))  # batch 0 sealed, not written
    sink.on_error(ValueError("boom"))
    sink.cancel()  # batch 0 is dropped
    ex.run_all()
    error = failure(sink)
    assert str(error) == "upstream failed: boom; last committed batch id -1, committed offset 0"
    assert error.uncommitted_records == 2  # the records the sink held and dropped
