"""FileSource keeps a set of files done (issue 26 item 7): a late file is read once."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import Positioned, map_value
from reactive_streams.spark.replay import FileSource
from reactive_streams.spark.sink import SparkSink
from reactive_streams.subscribers import LambdaSubscriber

WAIT = 30.0


def lines(directory: Path, name: str, ids: range) -> Path:
    path = directory / name
    path.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids), encoding="utf-8")
    return path


def collect(publisher: Any) -> list[Positioned]:
    out: list[Positioned] = []
    done = threading.Event()
    publisher.subscribe(LambdaSubscriber(out.append, on_error=print, on_complete=done.set))
    assert done.wait(WAIT)
    return out


def run_to_end(storage: MemoryStorage, source: FileSource) -> SparkSink:
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "l"),
        sink_id="l",
        batch_rows=4,
        max_latency=None,
        progress=False,
    )
    Flow.from_publisher(source.replay_from(sink.resume_position)).map(
        map_value(lambda r: (r["id"], "x"))
    ).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    return sink


def test_a_late_file_that_sorts_before_the_committed_one_is_read_once(tmp_path: Path) -> None:
    lines(tmp_path, "b.jsonl", range(10, 15))
    lines(tmp_path, "c.jsonl", range(20, 23))
    storage = MemoryStorage()
    run_to_end(storage, FileSource(sorted(tmp_path.glob("*.jsonl"))))
    lines(tmp_path, "a.jsonl", range(0, 6))  # lands later, sorts first
    lines(tmp_path, "d.jsonl", range(30, 32))
    run_to_end(storage, FileSource(sorted(tmp_path.glob("*.jsonl"))))
    run_to_end(storage, FileSource(sorted(tmp_path.glob("*.jsonl"))))  # nothing new
    ids = [row[0] for row in storage.reader_view("l")]
    assert sorted(ids) == [*range(0, 6), *range(10, 15), *range(20, 23), 30, 31]


def test_a_landing_directory_is_listed_at_each_subscription(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    lines(landing, "m.jsonl", range(3))
    (landing / "_tmp.jsonl").write_text("not json\n")  # hidden: a file still being written
    (landing / "notes.txt").write_text("not json\n")  # does not match the pattern
    source = FileSource([landing], pattern="*.jsonl")
    envs = collect(source.replay_from(None))
    assert [e.value["id"] for e in envs] == [0, 1, 2]
    lines(landing, "a.jsonl", range(100, 102))
    lines(landing, "m2.jsonl", range(200, 201))
    rest = collect(source.replay_from(envs[1].position))  # inside m.jsonl
    assert [e.value["id"] for e in rest] == [2, 100, 101, 200]  # the open file first
    assert rest[-1].position == {"done": ["a.jsonl", "m.jsonl"], "file": "m2.jsonl", "row": 1}


def test_the_earlier_single_cursor_position_is_migrated(tmp_path: Path) -> None:
    files = [lines(tmp_path, f"{n}.jsonl", range(k * 10, k * 10 + 3)) for k, n in enumerate("xyz")]
    source = FileSource(files)
    old = {"file": "y.jsonl", "row": 1}  # what a commit record of the earlier format holds
    rest = collect(source.replay_from(old))
    assert [e.value["id"] for e in rest] == [11, 12, 20, 21, 22]
    assert rest[0].position == {"done": ["x.jsonl"], "file": "y.jsonl", "row": 2}
    with pytest.raises(ValueError, match="'done' must list names"):
        source.replay_from({"done": "x", "file": "y.jsonl", "row": 0})


def test_the_compacted_log_holds_a_done_set_once_not_once_per_batch(tmp_path: Path) -> None:
    # issue 26.8 with 26.7: every FileSource position lists the files done, so a
    # compaction of N one-file batches held N^2/2 names and a restart read them all
    from reactive_streams.spark.commit_log import CommitLog, CommitRecord

    from .test_commit_log import DictFS

    n = 400
    for i in range(n):
        lines(tmp_path, f"f{i:05d}.jsonl", range(i, i + 1))
    lines(tmp_path, "g.jsonl", range(-1, 0))
    positions = [p.position for p in collect(FileSource([tmp_path]).replay_from(None))]
    assert len(positions) == n + 1
    fs = DictFS()
    log = CommitLog(fs, "file:///data/t", "l", compact_every=n + 1)
    for b, position in enumerate(positions):
        log.commit(CommitRecord("l", b, 1, b, b + 1, position=position))
    [compaction] = [v for k, v in fs.files.items() if k.endswith(".compact")]
    assert len(compaction) < 600 * n  # about one record each; once per batch: 5,000+
    back = CommitLog(fs, "file:///data/t", "l").recover()
    assert [r.position for r in back.committed] == positions  # the positions, unchanged
    assert back.resume_position["done"] == sorted(f"f{i:05d}.jsonl" for i in range(n))
