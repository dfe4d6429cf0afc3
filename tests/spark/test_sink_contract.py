"""SparkSink's contract as its caller sees it, without Spark (in-memory writer,
ManualExecutor): where the first batch is cut by the byte estimate of its first record
(the estimate stops descending below nine levels of nesting), what a SparkSinkError
reports, a lane that runs one task at a time, and the defaults (demand, latency, retry
backoff, lease)."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark import sink as sink_module
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.sink import SparkSink, SparkSinkError

from .test_sink_unit import FakeSubscription, memory_sink
from .test_sink_units import AnyWriter, any_sink

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


def first_batches(record: Any, batch_bytes: int = 2008) -> list[tuple[str, int]]:
    """The converts a sink asks for after five copies of ``record``: a first record of
    1004 estimated bytes cuts batches of two (batch_bytes 2008); one of 8 does not."""
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=100, batch_bytes=batch_bytes)
    sink.on_subscribe(FakeSubscription())
    for _ in range(5):
        sink.on_next(record)
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).metrics.records == 5
    writer = sink.writer
    assert isinstance(writer, AnyWriter)
    return [c for c in writer.calls if c[0] == "convert"]


@pytest.mark.parametrize("wrap", [in_dicts, in_boxes], ids=["dicts", "dataclasses"])
def test_the_first_record_estimate_descends_nine_levels(wrap: Any) -> None:
    # nine levels: the text at the bottom counts, the first batch holds two records
    assert first_batches(wrap(9)) == [("convert", 0), ("convert", 2), ("convert", 4)]
    assert first_batches(wrap(5)) == [("convert", 0), ("convert", 2), ("convert", 4)]
    # ten: the tenth level counts 8 bytes, the five records fit one batch
    assert first_batches(wrap(10)) == [("convert", 0)]


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
    assert sub.requested == 2 * 262_144  # demand is the free buffer: two batches of rows
    sink.on_next((0, "a"))
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
    assert first_batches({"a": None}, batch_bytes=3) == [("convert", 0), ("convert", 3)]


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
