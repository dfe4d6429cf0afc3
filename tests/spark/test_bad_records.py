"""``bad_records=``: a refused record goes to a quarantine once, the rest lands once,
and a replay does not fail on it again (issue 26 item 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import map_value
from reactive_streams.spark.replay import FileSource
from reactive_streams.spark.sink import SparkSink, SparkSinkError

WAIT = 30.0
BAD = 23  # the memory writer refuses a row whose id is not an int


class CrashAfter(MemoryBatchWriter):
    def __init__(self, storage: MemoryStorage, commits: int | None) -> None:
        super().__init__(storage, "q")
        self.left = commits

    def commit(self, record: Any) -> None:
        if self.left is not None:
            if self.left <= 0:
                raise OSError("injected: the process died")
            self.left -= 1
        super().commit(record)


def row(record: dict[str, Any]) -> tuple[Any, str]:
    i = record["id"]
    return (f"bad-{i}" if i == BAD else i, "x")


def run(storage: MemoryStorage, source: FileSource, quarantine: Path, commits: int | None) -> Any:
    sink = SparkSink(
        writer=CrashAfter(storage, commits),
        sink_id="q",
        batch_rows=5,
        max_attempts=1,
        max_latency=None,
        progress=False,
        bad_records=str(quarantine),
    )
    Flow.from_publisher(source.replay_from(sink.resume_position)).map(map_value(row)).subscribe(
        sink
    )
    return sink


def test_a_bad_record_is_quarantined_once_and_the_rest_lands_once(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps({"id": i}) + "\n" for i in range(60)))
    source = FileSource([data])
    storage = MemoryStorage()
    quarantine = tmp_path / "bad"
    # the first run dies after 4 commits (batch 4 holds the bad record, quarantined but
    # not committed); the replay meets it again; the last run completes
    for commits in (4, 1, None):
        sink = run(storage, source, quarantine, commits)
        if commits is None:
            assert sink.result(WAIT).status == "completed"
        else:
            with pytest.raises(SparkSinkError, match="the process died"):
                sink.result(WAIT)
    ids = [r[0] for r in storage.reader_view("q")]
    assert sorted(ids) == [i for i in range(60) if i != BAD]  # each good row once
    kept = sorted(quarantine.iterdir())
    assert [p.name for p in kept] == [f"q-{BAD:012d}.json"]
    entry = json.loads(kept[0].read_text())
    assert entry["offset"] == BAD
    assert json.loads(entry["position"])["row"] == BAD + 1
    assert "bad-23" in entry["record"]
    assert f"record {BAD}" in entry["error"]


def test_without_bad_records_the_record_fails_the_stream(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps({"id": i}) + "\n" for i in range(30)))
    sink = SparkSink(
        writer=MemoryBatchWriter(MemoryStorage(), "q"),
        sink_id="q",
        batch_rows=5,
        max_latency=None,
        progress=False,
    )
    Flow.from_publisher(FileSource([data]).replay_from(None)).map(map_value(row)).subscribe(sink)
    with pytest.raises(SparkSinkError, match=f"record {BAD}"):
        sink.result(WAIT)


@pytest.mark.spark
def test_spark_sink_quarantine_is_a_json_table(spark: Any, tmp_path: Path) -> None:
    from reactive_streams.spark.writer import read_committed

    table, bad = str(tmp_path / "t"), str(tmp_path / "bad")
    records = [{"id": i, "xs": [i, i + 0.5 if i == 3 else i]} for i in range(6)]
    sink = SparkSink(
        spark, table, sink_id="j", schema="id long, xs array<long>", bad_records=bad, progress=False
    )
    Flow.from_iterable(records).subscribe(sink)
    assert sink.result(120).status == "completed"
    assert sink.quarantined == 1
    ids = sorted(r["id"] for r in read_committed(spark, table, sink_id="j").collect())
    assert ids == [0, 1, 2, 4, 5]
    kept = spark.read.json(bad).collect()
    assert [(r["offset"], r["sink_id"]) for r in kept] == [(3, "j")]
    assert "field 'xs[1]': record 3 has float 3.5" in kept[0]["error"]
