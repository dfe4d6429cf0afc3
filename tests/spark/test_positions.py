"""Source positions without Spark: envelopes, replayable sources, filter/map/flat_map/batch
pipelines into the sink (in-memory writer), crash and resume by position."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import (
    SKIP,
    Positioned,
    check_position,
    expand,
    keep_if,
    map_value,
)
from reactive_streams.spark.replay import FileSource, MemoryLog, PartitionedLogSource
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.subscribers import LambdaSubscriber

WAIT = 60.0


def collect(publisher: Any) -> list[Positioned]:
    out: list[Positioned] = []
    done = threading.Event()
    errors: list[BaseException] = []

    def failed(e: BaseException) -> None:
        errors.append(e)
        done.set()

    publisher.subscribe(LambdaSubscriber(out.append, on_error=failed, on_complete=done.set))
    assert done.wait(WAIT)
    assert not errors, errors
    return out


def lines(tmp_path: Path, name: str, ids: range) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids), encoding="utf-8")
    return path


def test_file_source_positions_resume_after_the_record(tmp_path: Path) -> None:
    files = [lines(tmp_path, "a.jsonl", range(0, 3)), lines(tmp_path, "b.jsonl", range(3, 5))]
    source = FileSource(files)
    envs = collect(source.replay_from(None))
    assert [e.value["id"] for e in envs] == [0, 1, 2, 3, 4]
    assert envs[2].position == {"done": [], "file": "a.jsonl", "row": 3}
    assert envs[3].position == {"done": ["a.jsonl"], "file": "b.jsonl", "row": 1}
    for k, env in enumerate(envs):  # resuming at a record's position yields what follows it
        rest = collect(source.replay_from(env.position))
        assert [e.value["id"] for e in rest] == list(range(k + 1, 5))


def test_file_source_rejects_bad_positions(tmp_path: Path) -> None:
    source = FileSource([lines(tmp_path, "a.jsonl", range(2))])
    with pytest.raises(ValueError, match=r"'zz\.jsonl'"):
        source.replay_from({"file": "zz.jsonl", "row": 0})
    with pytest.raises(ValueError, match="row must be an int"):
        source.replay_from({"file": "a.jsonl", "row": -1})


def test_partitioned_log_positions_are_offset_maps() -> None:
    log = MemoryLog(3)
    for i in range(30):
        log.append(i % 3, {"id": i})
    source = PartitionedLogSource(log, fetch_size=4)
    envs = collect(source.replay_from(None))
    assert sorted(e.value["id"] for e in envs) == list(range(30))
    assert envs[-1].position == {"0": 10, "1": 10, "2": 10}
    middle = envs[13].position
    assert sum(middle.values()) == 14
    rest = collect(source.replay_from(middle))
    assert sorted(e.value["id"] for e in envs[14:]) == sorted(e.value["id"] for e in rest)
    with pytest.raises(ValueError, match="unknown partition '7'"):
        source.replay_from({"7": 1})


def test_positions_must_survive_json() -> None:
    assert check_position({"0": 3}) == {"0": 3}
    with pytest.raises(ValueError, match="JSON round trip"):
        check_position({0: 3})  # int keys come back as strings
    with pytest.raises(ValueError, match="JSON-serialisable"):
        check_position({"f": object()})


def test_helpers_keep_positions() -> None:
    env = Positioned(7, {"id": 1})
    assert map_value(lambda r: {**r, "x": 2})(env) == Positioned(7, {"id": 1, "x": 2})
    assert keep_if(lambda r: False)(env) == Positioned(7, SKIP)
    assert map_value(lambda r: 1 / 0)(Positioned(8, SKIP)) == Positioned(8, SKIP)
    assert collect(expand(lambda r: [1, 2, 3])(env)) == [
        Positioned(None, 1),
        Positioned(None, 2),
        Positioned(7, 3),
    ]
    assert collect(expand(lambda r: [])(env)) == [Positioned(7, SKIP)]


class CrashAfter(MemoryBatchWriter):
    """Stops committing after ``commits`` commit records (the process 'dies')."""

    def __init__(self, storage: MemoryStorage, sink_id: str, commits: int) -> None:
        super().__init__(storage, sink_id)
        self.left = commits

    def commit(self, record: Any) -> None:
        if self.left <= 0:
            raise OSError("injected: the disk went away")
        self.left -= 1
        super().commit(record)


def run(storage: MemoryStorage, source: Any, pipeline: Pipeline, commits: int | None) -> SparkSink:
    writer = (
        MemoryBatchWriter(storage, "p") if commits is None else CrashAfter(storage, "p", commits)
    )
    sink = SparkSink(
        writer=writer, sink_id="p", batch_rows=7, max_attempts=1, max_latency=None, progress=False
    )
    pipeline(Flow.from_publisher(source.replay_from(sink.resume_position))).subscribe(sink)
    return sink


Pipeline = Callable[[Flow[Positioned]], Any]

PIPELINES: dict[str, tuple[Pipeline, Callable[[int], list[int]]]] = {
    # each maps a record {"id": i} to rows (i, tag); the expected ids follow each
    "filter": (
        lambda f: f.filter(lambda e: e.value["id"] % 3 != 0).map(
            map_value(lambda r: (r["id"], "f"))
        ),
        lambda i: [i] if i % 3 else [],
    ),
    "keep_if": (
        lambda f: f.map(keep_if(lambda r: r["id"] % 3 != 0)).map(
            map_value(lambda r: (r["id"], "k"))
        ),
        lambda i: [i] if i % 3 else [],
    ),
    "flat_map": (
        lambda f: f.concat_map(expand(lambda r: [(r["id"], "a"), (r["id"], "b")][: r["id"] % 3])),
        lambda i: [i] * (i % 3),
    ),
    "batch": (
        lambda f: (
            f.map(keep_if(lambda r: r["id"] % 2 == 0))
            .map(map_value(lambda r: (r["id"], "b")))
            .batch(4)
        ),
        lambda i: [i] if i % 2 == 0 else [],
    ),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("kind", ["files", "log"])
def test_pipeline_killed_and_resumed_by_position_is_exact(
    tmp_path: Path, name: str, kind: str
) -> None:
    n = 200
    if kind == "files":
        source: Any = FileSource(
            [lines(tmp_path, f"{k}.jsonl", range(k * 50, (k + 1) * 50)) for k in range(4)]
        )
    else:
        log = MemoryLog(3)
        for i in range(n):
            log.append(i % 3, {"id": i})
        source = PartitionedLogSource(log, fetch_size=5)
    pipeline, expected_of = PIPELINES[name]
    storage = MemoryStorage()
    for commits in (3, 2, 4, None):  # three runs die after a few commits, the last completes
        sink = run(storage, source, pipeline, commits)
        if commits is None:
            assert sink.result(WAIT).status == "completed"
        else:
            with pytest.raises(SparkSinkError):
                sink.result(WAIT)
    ids = sorted(row[0] for row in storage.reader_view("p"))
    assert ids == sorted(j for i in range(n) for j in expected_of(i))


def test_count_based_resume_duplicates_with_a_filter(tmp_path: Path) -> None:
    """Why positions: resuming by the sink's element count re-sends filtered records' rows."""
    files = [lines(tmp_path, "a.jsonl", range(100))]
    storage = MemoryStorage()
    pipeline = PIPELINES["filter"][0]
    sink = run(storage, FileSource(files), pipeline, 3)
    with pytest.raises(SparkSinkError):
        sink.result(WAIT)
    counted = storage.committed_offset("p")
    wrong = {"file": "a.jsonl", "row": counted}  # the sink count taken as a source position
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "p"), sink_id="p", batch_rows=7, max_latency=None
    )
    pipeline(Flow.from_publisher(FileSource(files).replay_from(wrong))).subscribe(sink)
    sink.result(WAIT)
    ids = [row[0] for row in storage.reader_view("p")]
    assert len(ids) > len(set(ids)), "counting sink elements re-writes rows"


def test_mixing_envelopes_and_records_is_an_error() -> None:
    storage = MemoryStorage()
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "m"), sink_id="m", batch_rows=3, max_latency=None
    )
    Flow.from_iterable([Positioned(1, (0, "a")), (1, "b"), Positioned(3, (2, "c"))]).subscribe(sink)
    with pytest.raises(SparkSinkError, match="mixes Positioned envelopes and bare records"):
        sink.result(WAIT)


def test_all_skipped_batch_commits_its_position_without_a_file() -> None:
    storage = MemoryStorage()
    sink = SparkSink(
        writer=MemoryBatchWriter(storage, "s"), sink_id="s", batch_rows=4, max_latency=None
    )
    Flow.from_iterable(
        [Positioned(i + 1, SKIP) for i in range(8)] + [Positioned(9, (8, "x"))]
    ).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    records = storage.committed("s")
    assert [r.position for r in records] == [4, 8, 9]
    assert [len(r.files) for r in records] == [0, 0, 1]
    assert storage.reader_view("s") == [(8, "x")]
