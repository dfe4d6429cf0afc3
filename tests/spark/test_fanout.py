"""A flat_map input that expands past the sink's capacity is split across batches and
still resumes exactly (issue 26 item 6): no hang, no loss, no duplicate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.positions import Positioned, expand
from reactive_streams.spark.replay import FileSource
from reactive_streams.spark.sink import SparkSink, SparkSinkError

WAIT = 30.0
BATCH = 7  # capacity 14: an input of 40 outputs is about 3 capacities


def fan(record: dict[str, Any]) -> list[tuple[int, str]]:
    i = record["id"]
    n = 40 if i % 10 == 4 else i % 3  # every tenth input expands past the capacity
    return [(i, f"{i}-{j}") for j in range(n)]


class CrashAfter(MemoryBatchWriter):
    """The process 'dies' (every later commit fails) after ``commits`` commit records."""

    def __init__(self, storage: MemoryStorage, commits: int | None) -> None:
        super().__init__(storage, "f")
        self.left = commits

    def commit(self, record: Any) -> None:
        if self.left is not None:
            if self.left <= 0:
                raise OSError("injected: the process died")
            self.left -= 1
        super().commit(record)


def run(storage: MemoryStorage, source: FileSource, commits: int | None, batch: int) -> SparkSink:
    sink = SparkSink(
        writer=CrashAfter(storage, commits),
        sink_id="f",
        batch_rows=batch,
        max_attempts=1,
        max_latency=None,
        progress=False,
    )
    Flow.from_publisher(source.replay_from(sink.resume_position)).concat_map(expand(fan)).subscribe(
        sink
    )
    return sink


def write_lines(tmp_path: Path, ids: range) -> FileSource:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids), encoding="utf-8")
    return FileSource([path])


def expected(ids: range) -> list[tuple[int, str]]:
    return sorted(row for i in ids for row in fan({"id": i}))


def test_an_input_larger_than_the_capacity_is_split_not_hung(tmp_path: Path) -> None:
    source = write_lines(tmp_path, range(30))
    storage = MemoryStorage()
    sink = run(storage, source, None, BATCH)
    assert sink.result(WAIT).status == "completed"  # today: TimeoutError, the sink hangs
    assert sorted(storage.reader_view("f")) == expected(range(30))
    assert max(r.rows for r in storage.committed("f")) <= BATCH


@pytest.mark.parametrize("kills", [(2, 3, 1, 4, 2), (1, 1, 1, 1, 1, 1, 1, 1)])
def test_a_split_input_resumes_exactly_after_crashes(
    tmp_path: Path, kills: tuple[int, ...]
) -> None:
    ids = range(30)
    source = write_lines(tmp_path, ids)
    storage = MemoryStorage()
    for k, commits in enumerate((*kills, None)):
        sink = run(storage, source, commits, BATCH + k % 3)  # the batch size changes too
        if commits is None:
            assert sink.result(WAIT).status == "completed"
        else:
            with pytest.raises(SparkSinkError):
                sink.result(WAIT)
    rows = storage.reader_view("f")
    assert len(rows) == len(set(rows))
    assert sorted(rows) == expected(ids)
    partial = [r.position for r in storage.committed("f") if "rs_partial" in str(r.position)]
    assert partial, "the kills were meant to land inside a split input"


def test_a_replay_that_differs_inside_a_split_input_is_an_error() -> None:
    storage = MemoryStorage()
    first = SparkSink(
        writer=MemoryBatchWriter(storage, "d"), sink_id="d", batch_rows=2, max_latency=None
    )
    first.on_subscribe(_Sub())
    for j in range(3):  # one input, three outputs so far: two are committed
        first.on_next(Positioned(None, (0, j)))
    first.close()
    assert first.result(WAIT).status == "closed"
    assert storage.committed("d")[-1].position == {"rs_partial": {"after": None, "outputs": 2}}
    second = SparkSink(
        writer=MemoryBatchWriter(storage, "d"), sink_id="d", batch_rows=2, max_latency=None
    )
    assert second.resume_position is None
    second.on_subscribe(_Sub())
    second.on_next(Positioned(5, (0, 0)))  # the input now ends after one output
    with pytest.raises(SparkSinkError, match="replay differs"):
        second.result(WAIT)


class _Sub:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass
