"""No lease heartbeat outlives its writer: every end of a sink (completed, closed,
cancelled, failed, a failed finish, an upstream error, ``LeaseLost`` after a takeover)
and a writer or sink whose constructor fails after the lease was taken stops its
"spark-sink-lease" thread and releases the lease, so a writer on another host needs
no ``takeover=True``. The Spark writer with its Spark steps done on the in-memory
filesystem of test_commit_log (no Spark): its commit log and lease are the real ones."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from reactive_streams.spark import writer as writer_module
from reactive_streams.spark.commit_log import CommitLog, LeaseHeld
from reactive_streams.spark.hadoop_fs import join
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload, SparkBatchWriter, StagedBatch

from .test_commit_log import DictFS

T = "file:///data/t"
WAIT = 30.0
HEARTBEAT = "spark-sink-lease"


def beating() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == HEARTBEAT}


def still_beating(before: set[threading.Thread]) -> set[threading.Thread]:
    """The heartbeats started since ``before`` that are alive after a generous deadline."""
    deadline = time.monotonic() + WAIT
    for t in beating() - before:
        t.join(max(0.0, deadline - time.monotonic()))
    return beating() - before


class Conf:
    def __init__(self, refuse: bool) -> None:
        self.refuse = refuse

    def set(self, key: str, value: str) -> None:
        if self.refuse:
            raise RuntimeError(f"conf {key} refused")

    def get(self, key: str) -> str:
        return "file:///warehouse"


class Spark:
    """What the writer's constructor asks of a session (not Spark Connect)."""

    def __init__(self, refuse_conf: bool = False) -> None:
        self.conf = Conf(refuse_conf)


class FsWriter(SparkBatchWriter):
    """The Spark writer; convert and stage write the records to ``fs`` themselves."""

    fail_stage = False
    fail_finish = False

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        return Payload(list(records), len(records), 1)

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch:
        if self.fail_stage:
            raise OSError(f"injected: disk full while writing batch {batch_id}")
        staging = self.log.staging_dir_name(batch_id)
        self.fs.create_exclusive(join(self.path, staging, "part-0"), repr(payload.data).encode())
        return StagedBatch(staging, (("part-0", f"{self.log.batch_dir_name(batch_id)}/part-0"),), 1)

    def finish(self) -> None:
        if self.fail_finish:
            raise OSError("injected: refreshing the table failed")


class Idle:
    """A subscription that delivers nothing by itself: the test calls the sink."""

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


@pytest.fixture
def fs(monkeypatch: pytest.MonkeyPatch) -> DictFS:
    files = DictFS()
    monkeypatch.setattr(writer_module, "filesystem", lambda spark: files)
    return files


def released(fs: DictFS, epoch: int) -> bool:
    return f"{T}/_rs_sink/ev/lease/{epoch:012d}.released" in fs.files


def another_host_may_write(fs: DictFS) -> None:
    """A writer on node-b, without takeover: refused while a heartbeat keeps it live."""
    CommitLog(fs, T, "ev").acquire(host="node-b", pid=1, heartbeat=False)


def _complete(s: SparkSink, w: FsWriter) -> None:
    s.on_next({"id": 1})
    s.on_complete()


def _close(s: SparkSink, w: FsWriter) -> None:
    s.on_next({"id": 1})
    s.close()


def _cancel(s: SparkSink, w: FsWriter) -> None:
    s.on_next({"id": 1})
    s.cancel()


def _fail_stage(s: SparkSink, w: FsWriter) -> None:
    w.fail_stage = True
    _complete(s, w)


def _fail_finish(s: SparkSink, w: FsWriter) -> None:
    w.fail_finish = True
    _complete(s, w)


def _upstream_error(s: SparkSink, w: FsWriter) -> None:
    s.on_next({"id": 1})
    s.on_error(ValueError("upstream broke"))


ENDS: dict[str, tuple[Callable[[SparkSink, FsWriter], None], str]] = {
    "completed": (_complete, "completed"),
    "closed": (_close, "closed"),
    "cancelled": (_cancel, "cancelled"),
    "stage_failed": (_fail_stage, "failed"),
    "finish_failed": (_fail_finish, "failed"),
    "upstream_error": (_upstream_error, "failed"),
}


def _status(s: SparkSink) -> str:
    done, _ = concurrent.futures.wait([s.completion], WAIT)
    assert done, "the sink did not end"
    error = s.completion.exception()
    if error is not None:
        assert isinstance(error, SparkSinkError), error
        return "failed"
    return s.completion.result().status


@pytest.mark.parametrize("end", list(ENDS))
def test_every_end_of_a_sink_stops_its_heartbeat_and_releases_the_lease(
    fs: DictFS, end: str
) -> None:
    before = beating()
    w = FsWriter(Spark(), T, "ev")
    assert len(beating() - before) == 1, "the writer beats from its start"
    s = SparkSink(writer=w, sink_id="ev", max_latency=None, max_attempts=1, progress=False)
    s.on_subscribe(Idle())
    act, status = ENDS[end]
    act(s, w)
    assert _status(s) == status
    assert still_beating(before) == set(), f"{end}: the heartbeat outlived the sink"
    assert released(fs, 0)
    another_host_may_write(fs)


def test_a_sink_that_lost_its_lease_stops_beating_and_leaves_the_heirs_lease(
    fs: DictFS,
) -> None:
    before = beating()
    w = FsWriter(Spark(), T, "ev")
    s = SparkSink(writer=w, sink_id="ev", max_latency=None, max_attempts=1, progress=False)
    s.on_subscribe(Idle())
    CommitLog(fs, T, "ev").acquire(host="node-b", pid=1, heartbeat=False, takeover=True)
    _complete(s, w)  # its commit finds the heir's fence: LeaseLost
    assert _status(s) == "failed"
    assert "the lease" in str(s.completion.exception())
    assert still_beating(before) == set()
    assert not released(fs, 0)  # a fenced writer marks nothing
    assert not released(fs, 1)  # the heir's lease is not its to release
    with pytest.raises(LeaseHeld, match="node-b"):
        CommitLog(fs, T, "ev").acquire(host="node-c", pid=1, heartbeat=False)


def test_a_writer_whose_constructor_fails_after_the_lease_stops_beating_and_releases(
    fs: DictFS,
) -> None:
    before = beating()
    with pytest.raises(ValueError, match="rs_batch"):
        SparkBatchWriter(Spark(), T, "ev", partition_by=["rs_batch"])
    with pytest.raises(RuntimeError, match="refused"):
        SparkBatchWriter(Spark(refuse_conf=True), T, "ev")
    assert still_beating(before) == set(), "a failed writer's heartbeat keeps its lease live"
    assert released(fs, 0)
    assert released(fs, 1)
    another_host_may_write(fs)


@pytest.mark.parametrize("cause", ["schema_evolution", "recovery"])
def test_a_sink_whose_constructor_fails_after_the_lease_stops_beating_and_releases(
    fs: DictFS, cause: str
) -> None:
    before = beating()
    if cause == "recovery":  # a file no sink wrote: recovery refuses the table
        fs.files[f"{T}/notes.csv"] = b"a,b\n"
        with pytest.raises(RuntimeError, match="no sink wrote"):
            SparkSink(Spark(), T, sink_id="ev", progress=False)
    else:
        with pytest.raises(ValueError, match="schema_evolution"):
            SparkSink(Spark(), T, sink_id="ev", schema_evolution="merge", progress=False)
    assert still_beating(before) == set(), "a failed sink's heartbeat keeps its lease live"
    assert released(fs, 0)
    another_host_may_write(fs)
