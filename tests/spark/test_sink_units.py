"""SparkSink's less travelled paths without Spark (in-memory writer, ManualExecutor): the
first batch's byte estimate, arguments refused, tabular elements, mixed streams, the
quarantine, a lane whose executor is shut down, and what the end does when the writer's
last calls fail."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark import sink as sink_module
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import SKIP, Positioned
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload

from .test_sink_unit import FakeSubscription, memory_sink


class AnyWriter(MemoryBatchWriter):
    """The memory writer, taking any record (dicts from a table, objects)."""

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        self.calls.append(("convert", first_offset))
        return Payload(list(records), len(records), 16 * len(records))


def any_sink(storage: MemoryStorage, ex: ManualExecutor, **kw: Any) -> SparkSink:
    kw.setdefault("max_latency", None)
    return SparkSink(
        writer=AnyWriter(storage, "u"),
        sink_id="u",
        executor=ex,
        progress=False,
        sleep=lambda _s: None,
        **kw,
    )


def failure(sink: SparkSink) -> SparkSinkError:
    with pytest.raises(SparkSinkError) as caught:
        sink.result(0)
    return caught.value


# ------------------------------------------------------------ the byte estimate
@dataclass
class Row:
    n: int
    s: str


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_the_first_record_estimate_counts_arrow_bytes() -> None:
    estimate = sink_module._estimate
    assert estimate(Positioned(None, SKIP)) == 0
    assert estimate(Positioned(3, "ab")) == 6
    assert (estimate("abc"), estimate(b"ab"), estimate(bytearray(b"a"))) == (7, 6, 5)
    assert (estimate(None), estimate(True), estimate(5), estimate(2.5)) == (1, 1, 8, 8)
    assert estimate({"a": 1, "b": "xy"}) == 14
    assert (estimate([1, 2]), estimate((1, "a"))) == (20, 17)
    assert estimate(Row(1, "ab")) == 14
    assert estimate(Row) == 8  # a class is no record
    # nine levels of lists count 4 each, below them one value counts 8, whatever it is
    assert estimate(nested(9)) == 9 * 4 + 8
    assert estimate(nested(12)) == 9 * 4 + 8
    assert estimate(nested(8)) == 8 * 4 + 8
    assert estimate([Positioned(1, nested(9))]) == 4 + 8 * 4 + 8  # an envelope keeps the depth


def test_the_split_position_of_a_partial_commit() -> None:
    split = sink_module._split_position
    assert split({"rs_partial": {"after": {"f": 1}, "outputs": "3"}}) == ({"f": 1}, 3)
    assert split({"rs_partial": 1, "other": 2}) == ({"rs_partial": 1, "other": 2}, 0)
    assert split(None) == (None, 0)


# ------------------------------------------------------------ arguments refused
def test_bad_arguments_are_refused_by_name() -> None:
    writer = MemoryBatchWriter(MemoryStorage(), "u")
    for kw in ({"batch_rows": 0}, {"batch_bytes": 0}, {"max_attempts": 0}):
        with pytest.raises(ValueError, match="must be >= 1") as caught:
            SparkSink(writer=writer, **kw)  # type: ignore[arg-type]
        assert str(caught.value) == "batch_rows, batch_bytes and max_attempts must be >= 1"
    with pytest.raises(ValueError, match="max_latency") as caught:
        SparkSink(writer=writer, max_latency=-1.0)
    assert str(caught.value) == "max_latency must be > 0 seconds or None, got -1.0"
    with pytest.raises(ValueError, match="SparkSession") as caught:
        SparkSink()
    assert str(caught.value) == "SparkSink needs a SparkSession (or an injected writer)"
    with pytest.raises(ValueError, match="schema_evolution") as caught:
        SparkSink(writer=writer, schema_evolution="merge")
    assert str(caught.value) == (
        "schema_evolution must be one of ('none', 'add_columns'), got 'merge'"
    )
    one = SparkSink(writer=writer, batch_rows=1, batch_bytes=1, max_attempts=1, max_latency=None)
    assert (one.batch_rows, one.capacity, one.batch_bytes, one.max_attempts) == (1, 2, 1, 1)
    one.cancel()


def test_the_spark_writer_gets_every_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def fake(*args: Any, **kw: Any) -> MemoryBatchWriter:
        made.append((args, kw))
        return MemoryBatchWriter(MemoryStorage(), "u")

    monkeypatch.setattr(sink_module, "SparkBatchWriter", fake)
    spark = object()
    sink = SparkSink(
        spark,
        "/t",
        sink_id="u",
        format="orc",
        schema="id INT",
        columns=["id"],
        table="db.t",
        options={"k": "v"},
        mode="overwrite",
        partition_by=["id"],
        takeover=True,
        lease_ttl_s=9.0,
        progress=False,
    )
    sink.cancel()
    assert made == [
        (
            (spark, "/t", "u"),
            {
                "format": "orc",
                "schema": "id INT",
                "columns": ["id"],
                "options": {"k": "v"},
                "table": "db.t",
                "mode": "overwrite",
                "partition_by": ["id"],
                "takeover": True,
                "lease_ttl_s": 9.0,
            },
        )
    ]
    SparkSink(spark, "/t", progress=False).cancel()
    assert made[-1][1] | {"lease_ttl_s": 30.0} == {
        "format": "parquet",
        "schema": None,
        "columns": None,
        "options": None,
        "table": None,
        "mode": "append",
        "partition_by": None,
        "takeover": False,
        "lease_ttl_s": 30.0,
    }
    assert made[-1][0][2] == "default"


def test_an_os_error_creating_the_writer_names_its_cause(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    def raising(error: OSError) -> Any:
        def make(*args: Any, **kw: Any) -> Any:
            raise error

        return make

    named = OSError(13, "mkdirs: permission denied (EACCES)")
    monkeypatch.setattr(sink_module, "SparkBatchWriter", raising(named))
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), "/t", progress=False)
    assert caught.value is named  # its cause is named in it already
    unnamed = OSError(13, "mkdirs refused")
    monkeypatch.setattr(sink_module, "SparkBatchWriter", raising(unnamed))
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), "/t", progress=False)
    assert caught.value.errno == 13
    assert str(caught.value).endswith("mkdirs refused [permission denied (EACCES)]")
    assert caught.value.__cause__ is unnamed
    plain = OSError("mkdirs refused")
    monkeypatch.setattr(sink_module, "SparkBatchWriter", raising(plain))
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), None, progress=False)
    assert caught.value is plain  # no path, no cause: raised as it was
    file = tmp_path / "file"
    file.write_text("")
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), str(file / "t"), progress=False)
    assert caught.value.errno is None
    assert str(caught.value).endswith(f"mkdirs refused [{file} is a file, not a directory]")
    assert caught.value.__cause__ is plain


def test_an_os_error_names_its_errno_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    errors = iter([OSError(13, "mkdirs refused"), OSError("mkdirs refused")])

    def refused(*args: Any, **kw: Any) -> Any:
        raise next(errors)

    monkeypatch.setattr(sink_module, "SparkBatchWriter", refused)
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), "/t", progress=False)
    assert str(caught.value) == "[Errno 13] mkdirs refused [permission denied (EACCES)]"
    file = tmp_path / "file"
    file.write_text("")
    with pytest.raises(OSError, match="mkdirs") as caught:
        SparkSink(object(), str(file / "t"), progress=False)
    assert str(caught.value) == f"mkdirs refused [{file} is a file, not a directory]"


# ------------------------------------------------------------------ the signals
def test_none_subscriptions_and_errors_are_rule_2_13() -> None:
    sink = memory_sink(MemoryStorage(), ManualExecutor())
    with pytest.raises(TypeError) as caught:
        sink.on_subscribe(None)  # type: ignore[arg-type]
    assert str(caught.value) == "rule 2.13: on_subscribe(None)"
    with pytest.raises(TypeError) as caught:
        sink.on_error(None)  # type: ignore[arg-type]
    assert str(caught.value) == "rule 2.13: on_error(None)"
    sink.cancel()


def test_tables_and_record_batches_are_batches_of_rows() -> None:
    pa = pytest.importorskip("pyarrow")
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=10)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    sink.on_next(pa.table({"id": [0, 1]}))
    sink.on_next(pa.record_batch({"id": [2]}))
    assert sink.outstanding == sub.requested - 2  # one slot per element, not per row
    sink.on_complete()
    ex.run_all()
    assert storage.reader_view("u") == [{"id": 0}, {"id": 1}, {"id": 2}]
    assert sink.result(0).metrics.records == 3


def test_a_batch_that_mixes_envelopes_and_bare_records_fails() -> None:
    # bare first; or an envelope that completes no input, cut at the batch size
    for first, second in (
        ((0, "a"), Positioned(1, (1, "b"))),
        (Positioned(None, (1, "b")), (0, "a")),
    ):
        ex = ManualExecutor()
        sink = memory_sink(MemoryStorage(), ex, batch_rows=2)
        sink.on_subscribe(FakeSubscription())
        sink.on_next(first)
        sink.on_next(second)
        ex.run_all()
        error = failure(sink)
        assert str(error.__cause__) == "a stream mixes Positioned envelopes and bare records"


def test_a_schema_error_on_envelopes_names_the_source_position() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=10)
    sink.on_subscribe(FakeSubscription())
    sink.on_next(Positioned({"line": 1}, (0, "a")))
    sink.on_next(Positioned({"line": 2}, SKIP))
    sink.on_next(Positioned({"line": 3}, "bad"))
    sink.on_complete()
    ex.run_all()
    cause = failure(sink).__cause__
    assert str(cause) == "field 'id': record 1 is 'bad' (source position after it: {'line': 3})"
    assert (cause.field, cause.record_index) == ("id", 1)  # type: ignore[union-attr]


def test_a_schema_error_outside_the_batch_is_left_as_it_is() -> None:
    from reactive_streams.spark.records import SchemaError

    error = SchemaError("field 'x': record 7", "x", 7)
    error.__cause__ = root = ValueError("root")
    entries = [Positioned(1, "a"), Positioned(2, "b")]
    assert sink_module._locate(error, entries, 7).__cause__ is root
    assert str(sink_module._locate(error, entries, 7)) == (
        "field 'x': record 7 (source position after it: 1)"
    )
    assert str(sink_module._locate(error, entries, 6)).endswith("after it: 2)")
    assert sink_module._locate(error, entries, 8) is error  # before the batch
    assert sink_module._locate(error, entries, 5) is error  # past its rows
    assert sink_module._locate(error, [(0, "a")], 7) is error  # bare records: no position
    assert sink_module._locate(ValueError("x"), entries, 7).args == ("x",)
    unplaced = SchemaError("field 'x'", "x", None)
    assert sink_module._locate(unplaced, entries, 0) is unplaced


def test_records_with_a_position_attribute_carry_it_to_the_commit() -> None:
    @dataclass
    class Event:
        n: int
        position: Any

    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=2)
    sink.on_subscribe(FakeSubscription())
    sink.on_next(Event(0, None))
    sink.on_next(Event(1, {"o": 1}))  # the last record's position is the batch's
    ex.run_all()
    sink.on_next(Event(2, None))
    sink.on_next(Event(3, None))  # none: the position before stands
    ex.run_all()
    sink.on_complete()
    ex.run_all()
    assert [r.position for r in storage.committed("u")] == [{"o": 1}, {"o": 1}]
    assert sink.resume_position is None  # what earlier runs committed


# ------------------------------------------------------------------ quarantine
def test_refused_records_go_to_the_quarantine_and_the_stream_goes_on(tmp_path: Any) -> None:
    import json

    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=10, bad_records=str(tmp_path))
    sink.on_subscribe(FakeSubscription())
    for element in [(0, "a"), "bad", (2, "c"), ["worse"]]:
        sink.on_next(element)
    sink.on_complete()
    ex.run_all()
    assert sink.result(0).status == "completed"
    assert storage.reader_view("u") == [(0, "a"), (2, "c")]
    assert sink.quarantined == 2
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["u-000000000001.json", "u-000000000003.json"]
    line = json.loads((tmp_path / "u-000000000001.json").read_text())
    assert (line["offset"], line["record"], line["position"]) == (1, '"bad"', "null")
    assert line["error"] == "field 'id': record 1 is 'bad'"


def test_quarantined_envelopes_keep_their_positions(tmp_path: Any) -> None:
    import json

    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=10, bad_records=str(tmp_path))
    sink.on_subscribe(FakeSubscription())
    sink.on_next(Positioned({"l": 1}, SKIP))
    sink.on_next(Positioned({"l": 2}, "bad"))
    sink.on_next(Positioned({"l": 3}, (2, "c")))
    sink.on_complete()
    ex.run_all()
    assert storage.reader_view("u") == [(2, "c")]
    line = json.loads((tmp_path / "u-000000000001.json").read_text())
    assert (line["offset"], line["position"]) == (1, '{"l": 2}')
    assert [r.position for r in storage.committed("u")] == [{"l": 3}]


def test_a_batch_of_nothing_but_refused_records_writes_no_file(tmp_path: Any) -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=10, bad_records=str(tmp_path))
    sink.on_subscribe(FakeSubscription())
    sink.on_next("bad")
    sink.on_complete()
    ex.run_all()
    (record,) = storage.committed("u")
    assert (record.files, record.offset_after) == ((), 1)
    assert sink.result(0).metrics.records == 0


# ----------------------------------------------------------------- the lanes
class Refusing:
    """An executor shut down: every execute raises (until ``open``)."""

    def __init__(self) -> None:
        self.open = False
        self.ran: list[Any] = []

    def execute(self, task: Any) -> None:
        if not self.open:
            raise RuntimeError("executor is shut down")
        task()


def test_a_lane_drops_its_tasks_when_the_executor_refuses(
    caplog: pytest.LogCaptureFixture,
) -> None:
    executor = Refusing()
    lane = sink_module._SerialLane(executor)
    ran: list[str] = []
    with caplog.at_level(logging.DEBUG, "reactive_streams.spark"):
        lane.submit(lambda: ran.append("dropped"))
    assert [r.getMessage() for r in caplog.records] == [
        "sink lane: 1 task(s) after shutdown dropped"
    ]
    executor.open = True  # the lane is free again: a later task runs, the dropped one not
    lane.submit(lambda: ran.append("later"))
    assert ran == ["later"]


def test_a_lane_runs_its_tasks_one_at_a_time_in_order() -> None:
    ex = ManualExecutor()
    lane = sink_module._SerialLane(ex)
    ran: list[int] = []
    for i in range(3):
        lane.submit(lambda i=i: ran.append(i))  # type: ignore[misc]
    assert len(ex.pending) == 1  # one at a time
    ex.run_all()
    assert ran == [0, 1, 2]


# ------------------------------------------------------------------- the end
def test_cancel_and_close_after_the_end_do_nothing() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=10)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    sink.on_complete()
    sink.close()  # upstream done: nothing to close
    ex.run_all()
    sink.cancel()  # done: nothing to cancel
    sink.on_error(RuntimeError("late"))
    ex.run_all()
    assert not sub.cancelled
    assert sink.result(0).status == "completed"


def test_a_raising_cancel_of_the_upstream_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    class Raising(FakeSubscription):
        def cancel(self) -> None:
            raise RuntimeError("no")

    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex)
    sink.on_subscribe(Raising())
    with caplog.at_level(logging.ERROR, "reactive_streams.spark"):
        sink.cancel()
    assert [r.getMessage() for r in caplog.records] == ["cancel() raised"]
    ex.run_all()
    assert sink.result(0).status == "cancelled"


def test_a_failing_finish_fails_the_sink_and_a_failing_release_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Ending(MemoryBatchWriter):
        def finish(self) -> None:
            raise OSError("finish failed")

        def release(self) -> None:
            raise OSError("release failed")

    ex = ManualExecutor()
    sink = SparkSink(writer=Ending(MemoryStorage(), "u"), sink_id="u", executor=ex, progress=False)
    sink.on_subscribe(FakeSubscription())
    sink.on_complete()
    with caplog.at_level(logging.WARNING, "reactive_streams.spark"):
        ex.run_all()
    assert [r.getMessage() for r in caplog.records] == [
        "releasing the lease of sink u failed: OSError('release failed')"
    ]
    error = failure(sink)
    assert str(error) == (
        "sink failed: finish failed; last committed batch id -1, committed offset 0, "
        "0 records dropped uncommitted"
    )
    assert str(error.__cause__) == "finish failed"


def test_a_second_failure_keeps_the_first() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=2)
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    i = 0
    while i < sub.requested + 2:  # two over: the first fails it, the second is dropped
        sink.on_next((i, "x"))
        i += 1
    ex.run_all()
    assert (
        str(failure(sink).__cause__) == "rule 1.1: the publisher sent more elements than requested"
    )


def test_a_failure_while_failing_keeps_the_first_error() -> None:
    # batch 0 is still written after batch 1's convert failed; its own failure then
    # changes nothing: the sink reports batch 1's error, once
    storage, ex = MemoryStorage(), ManualExecutor()
    writer = MemoryBatchWriter(storage, "u")
    for _ in range(3):
        writer.inject("stage", "fail")
    sink = SparkSink(
        writer=writer, sink_id="u", executor=ex, progress=False, batch_rows=1, max_latency=None
    )
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_next("bad")
    ex.run()  # convert 0: queues write 0, then convert 1
    ex.run(1)  # convert 1 fails first
    ex.run_all()  # write 0 fails too
    error = failure(sink)
    assert str(error.__cause__) == "field 'id': record 1 is 'bad'"
    assert [c for c in writer.calls if c[0] == "stage"] == [("stage", 0)] * 3


def test_the_end_of_a_positioned_stream_inside_an_input() -> None:
    # completed: the outputs of an unfinished input are written; closed: dropped
    for end in ("complete", "close"):
        storage, ex = MemoryStorage(), ManualExecutor()
        sink = memory_sink(storage, ex, batch_rows=10)
        sink.on_subscribe(FakeSubscription())
        sink.on_next(Positioned({"l": 1}, (0, "a")))
        sink.on_next(Positioned(None, (1, "b")))  # an output of input 2, not its last
        sink.on_complete() if end == "complete" else sink.close()
        ex.run_all()
        result = sink.result(0)
        if end == "complete":
            assert storage.reader_view("u") == [(0, "a"), (1, "b")]
            assert result.status == "completed"
        else:
            assert storage.reader_view("u") == [(0, "a")]
            assert [r.position for r in storage.committed("u")] == [{"l": 1}]
            assert result.status == "closed"


# ------------------------------------------------------------ the table schema
class Rows(list[Any]):
    schema: Any = None


class TableWriter(MemoryBatchWriter):
    """A writer over a table directory (``fs``, ``path``) with a converter."""

    def __init__(self, fs: Any, schema: Any = None, infer: Any = None) -> None:
        super().__init__(MemoryStorage(), "u")
        self.fs, self.path = fs, "file:///data/t"
        self.converter = type("Converter", (), {"schema": schema})()
        self.infer = infer

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        rows = Rows(records)
        rows.schema = self.converter.schema or self.infer
        return Payload(rows, len(rows), 16 * len(rows))


def test_the_table_schema_is_stored_adopted_and_checked() -> None:
    pa = pytest.importorskip("pyarrow")
    from reactive_streams.spark.records import SchemaError

    from .test_commit_log import DictFS

    one = pa.schema([pa.field("id", pa.int64())])
    two = pa.schema([pa.field("id", pa.int64()), pa.field("x", pa.string())])
    fs = DictFS()

    def run(writer: TableWriter, evolution: str = "none") -> SparkSink:
        ex = ManualExecutor()
        sink = SparkSink(
            writer=writer, sink_id="u", executor=ex, progress=False, schema_evolution=evolution
        )
        sink.on_subscribe(FakeSubscription())
        sink.on_next((0, "a"))
        sink.on_complete()
        ex.run_all()
        return sink

    stored = "file:///data/t/_rs_sink/_schema"
    assert run(TableWriter(fs, infer=one)).result(0).status == "completed"
    assert sorted(p for p in fs.files if p.startswith(stored)) == [f"{stored}/000000000000.json"]
    adopter = TableWriter(fs, infer=two)  # inferred: the table's schema is adopted
    run(adopter)
    assert adopter.converter.schema == one
    with pytest.raises(SchemaError) as caught:
        SparkSink(writer=TableWriter(fs, schema=two), sink_id="u")  # declared: checked now
    assert str(caught.value).startswith("table file:///data/t has schema version 0; this run's")
    grown = run(TableWriter(fs, infer=two), "add_columns")  # checked at its first batch
    assert grown.result(0).status == "completed"
    assert f"{stored}/000000000001.json" in fs.files
    refused = run(TableWriter(fs, infer=one), "add_columns")  # a column dropped
    assert "has schema version 1" in str(failure(refused).__cause__)


# ------------------------------------------------- resuming inside a split input
def resumed(storage: MemoryStorage, outputs: int, **kw: Any) -> tuple[SparkSink, Any]:
    from reactive_streams.spark.commit_log import CommitRecord

    partial = {"rs_partial": {"after": {"l": 1}, "outputs": outputs}}
    storage.commits["u"] = {0: CommitRecord("u", 0, 1, 0, 3, position=partial)}
    ex = ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=10, **kw)
    assert sink.resume_position == {"l": 1}
    sub = FakeSubscription()
    sink.on_subscribe(sub)
    return sink, (ex, sub)


def test_a_replay_drops_the_outputs_already_committed_in_lists_and_alone() -> None:
    storage = MemoryStorage()
    sink, (ex, sub) = resumed(storage, 3)
    requested = sub.requested
    out = [Positioned(None, (k, "old")) for k in range(2)]
    sink.on_next(out)  # both committed already: the element is consumed, its slot free
    assert sink.outstanding == requested  # requested again at once
    assert sub.requested == requested + 1
    rest = [Positioned(None, (3, "new")), Positioned({"l": 2}, (4, "new"))]
    sink.on_next([Positioned(None, (2, "old")), *rest])  # the rest stays one list
    sink.on_next(Positioned({"l": 3}, (5, "new")))  # nothing left to drop: kept
    sink.on_complete()
    ex.run_all()
    assert storage.reader_view("u") == [(3, "new"), (4, "new"), (5, "new")]
    assert [r.position for r in storage.committed("u")][1:] == [{"l": 3}]


def test_a_replay_that_differs_from_the_committed_run_fails() -> None:
    storage = MemoryStorage()
    sink, (ex, sub) = resumed(storage, 2)
    sink.on_next(Positioned({"l": 9}, (0, "other")))  # completes an input where none may
    ex.run_all()
    assert sub.cancelled
    assert str(failure(sink).__cause__) == (
        "the replay differs from the committed run: output Positioned({'l': 9}, (0, 'other')) "
        "comes where 2 outputs of the input after position {'l': 1} were committed "
        "(a non-deterministic source or flat_map)"
    )
    storage = MemoryStorage()
    sink, (ex, _) = resumed(storage, 2)
    sink.on_next((0, "bare"))  # no envelope at all
    ex.run_all()
    assert "output (0, 'bare') comes where 2 outputs" in str(failure(sink).__cause__)


def test_a_replay_after_cancel_is_dropped() -> None:
    storage = MemoryStorage()
    sink, (ex, _) = resumed(storage, 2)
    sink.cancel()
    sink.on_next(Positioned({"l": 9}, (0, "x")))  # would fail the sink if looked at
    ex.run_all()
    assert sink.result(0).status == "cancelled"


# ------------------------------------------------------------- step failures
def test_a_failed_step_names_both_attempts_and_the_io_cause() -> None:
    import errno

    step_failed = sink_module._StepFailed
    same = step_failed("stage", 3, 2, OSError("x"), OSError("x"))
    assert str(same) == "stage of batch 3 failed after 2 attempt(s): OSError('x')"
    assert same.step == "stage"
    full = OSError(errno.ENOSPC, "No space left on device")
    first = step_failed("commit", 1, 3, RuntimeError("0-byte record"), full)
    assert str(first) == (
        "commit of batch 1 failed after 3 attempt(s): RuntimeError('0-byte record'); "
        "attempt 1 failed with OSError(28, 'No space left on device') "
        "[no space left on device (ENOSPC)]"
    )
    late = step_failed("stage", 0, 2, full, OSError("x"))  # the cause only in the last
    assert str(late).endswith("OSError('x') [no space left on device (ENOSPC)]")
    last = step_failed("publish", 0, 1, full, full)
    assert str(last).endswith(
        "OSError(28, 'No space left on device') [no space left on device (ENOSPC)]"
    )


def test_result_waits_at_most_its_timeout() -> None:
    import concurrent.futures
    import threading

    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex)
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            sink.result(0.01)
        except BaseException as e:  # the TimeoutError expected
            outcome.append(e)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(10)
    done = not waiter.is_alive()
    sink.cancel()
    ex.run_all()  # the result is resolved: a waiter still blocked returns
    assert done
    assert [type(e) for e in outcome] == [concurrent.futures.TimeoutError]


def test_close_after_on_complete_while_writing_still_completes() -> None:
    ex = ManualExecutor()
    sink = memory_sink(MemoryStorage(), ex, batch_rows=10)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    sink.on_complete()  # batch 0 still to write
    sink.close()  # the upstream ended already: nothing to close
    ex.run_all()
    assert sink.result(0).status == "completed"


def _timers(sink: SparkSink) -> list[Any]:
    import threading

    return [
        t
        for t in threading.enumerate()
        if isinstance(t, threading.Timer) and t.function == sink._on_delay
    ]


def test_the_latency_timer_never_keeps_the_process_alive() -> None:
    sink = memory_sink(MemoryStorage(), ManualExecutor(), batch_rows=10, max_latency=60.0)
    sink.on_subscribe(FakeSubscription())
    sink.on_next((0, "a"))
    timers = _timers(sink)
    for timer in timers:
        timer.cancel()
    assert len(timers) == 1
    assert timers[0].daemon is True


def test_the_latency_bound_seals_nothing_while_a_write_is_in_flight() -> None:
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = memory_sink(storage, ex, batch_rows=3, max_latency=60.0)
    sink.on_subscribe(FakeSubscription())
    for i in range(4):
        sink.on_next((i, "x"))  # batch 0 sealed, one record filling
    sink._on_delay()  # the timer fires while batch 0 is in flight: it keeps filling
    for i in range(4, 6):
        sink.on_next((i, "x"))
    sink.on_complete()
    ex.run_all()
    for timer in _timers(sink):
        timer.cancel()
    assert [r.rows for r in storage.committed("u")] == [3, 3]


def test_a_dataframe_is_a_batch_of_rows() -> None:
    pd = pytest.importorskip("pandas")
    storage, ex = MemoryStorage(), ManualExecutor()
    sink = any_sink(storage, ex, batch_rows=10)
    sink.on_subscribe(FakeSubscription())
    sink.on_next(pd.DataFrame({"id": [0, 1]}))
    sink.on_complete()
    ex.run_all()
    assert storage.reader_view("u") == [{"id": 0}, {"id": 1}]
