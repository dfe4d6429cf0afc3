"""One writer per (table, sink_id), enforced (issue 26.2): the lease, the fence
record, zombie commits refused, and a restart that finds committed data missing.
On the in-memory filesystem of test_commit_log (no Spark)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from reactive_streams.spark.commit_log import CommitLog, CommitRecord, LeaseHeld, LeaseLost

from .test_commit_log import DictFS

T = "file:///data/t"


def batch(log: CommitLog, fs: DictFS, b: int) -> CommitRecord:
    """Stage batch ``b`` (its data file) and return the record that commits it."""
    name = log.batch_dir_name(b)
    fs.files[f"{log.batch_dir(b)}/part-0"] = b"rows"
    prev = log.records()
    start = prev[-1].offset_after if prev else 0
    return CommitRecord(log.sink_id, b, 1, start, start + 10, name, (("part-0", f"{name}/part-0"),))


def writer(fs: DictFS, host: str, compact_every: int = 100, **kw: object) -> CommitLog:
    log = CommitLog(fs, T, "ev", compact_every=compact_every)
    log.acquire(host=host, pid=1, heartbeat=False, **kw)  # type: ignore[arg-type]
    return log


def test_a_second_writer_is_refused_naming_the_holder_and_deletes_nothing() -> None:
    fs = DictFS()
    first = writer(fs, "node-a")
    first.commit(batch(first, fs, 0))
    in_flight = batch(first, fs, 1)  # written, not yet committed
    with pytest.raises(LeaseHeld, match=r"'ev' .* is held by node-a:1:\w+ \(host node-a"):
        writer(fs, "node-b")
    # the refused writer ran no recovery: the first one's in-flight batch is intact
    assert f"{first.batch_dir(1)}/part-0" in fs.files
    first.commit(in_flight)
    assert [r.batch_id for r in first.recover().committed] == [0, 1]


def test_a_zombie_whose_lease_was_taken_over_cannot_commit() -> None:
    fs = DictFS()
    zombie = writer(fs, "node-a")
    zombie.commit(batch(zombie, fs, 0))
    late = batch(zombie, fs, 1)  # the zombie is still writing batch 1
    heir = writer(fs, "node-b", takeover=True)
    with pytest.raises(LeaseLost, match=r"batch 1 of sink_id 'ev' refused: .* node-b"):
        zombie.commit(late)
    recovery = heir.recover()
    fence = recovery.committed[-1]
    assert (fence.batch_id, fence.files, fence.holder) == (1, (), heir.lease.mine.holder)  # type: ignore[union-attr]
    assert recovery.resume_offset == 10  # the zombie's rows are not committed
    assert recovery.removed_staging == (zombie.batch_dir_name(1),)
    heir.commit(batch(heir, fs, 2))
    assert [r.batch_id for r in heir.recover().committed] == [0, 1, 2]


def test_a_stale_lease_is_taken_over_and_a_released_one_needs_no_fence() -> None:
    fs = DictFS()
    old = writer(fs, "node-a")
    old.commit(batch(old, fs, 0))
    fs.files[f"{old.sink_dir}/lease/{0:012d}.beat"] = b"0.0"  # its heartbeat stopped long ago
    new = writer(fs, "node-b")  # no takeover needed
    assert [r.files == () for r in new.records()] == [False, True]  # fenced at batch 1
    new.release()
    third = writer(fs, "node-c")
    assert len(third.records()) == 2  # released: nothing to fence


def test_two_writers_starting_together_one_wins() -> None:
    fs = DictFS()
    a, b = CommitLog(fs, T, "ev"), CommitLog(fs, T, "ev")
    from reactive_streams.spark.lease import Lease

    Lease(fs, a.sink_dir, host="node-a", pid=1).take(0)
    with pytest.raises(LeaseHeld, match=r"was just taken by node-a:1"):
        Lease(fs, b.sink_dir, host="node-b", pid=1).take(0)


def test_a_restart_that_finds_committed_data_missing_names_it() -> None:
    fs = DictFS()
    log = writer(fs, "node-a")
    log.commit(batch(log, fs, 0))
    log.commit(batch(log, fs, 1))
    del fs.files[f"{log.batch_dir(0)}/part-0"]  # deleted behind the log's back
    with pytest.raises(RuntimeError, match=r"names .*rs_batch=ev-000000000000, which is missing"):
        log.recover()


class CountingFS(DictFS):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read(self, uri: str) -> bytes:
        self.reads += 1
        return super().read(uri)


def test_compaction_leaves_a_constant_number_of_files_to_read() -> None:
    # issue 26.8: restart time must not grow with the number of commits
    fs = CountingFS()
    log = CommitLog(fs, T, "ev", compact_every=10)
    for b in range(95):
        log.commit(batch(log, fs, b))
    names = [e.name for e in fs.list(log.commits_dir)]
    assert len(names) == 1 + 5  # the compaction of 0..89, then 90..94
    fs.reads = 0
    recovery = CommitLog(fs, T, "ev", compact_every=10).recover()
    assert [r.batch_id for r in recovery.committed] == list(range(95))
    assert recovery.resume_offset == 950
    assert fs.reads == 6


def test_a_zombie_cannot_commit_an_id_a_compaction_deleted() -> None:
    fs = DictFS()
    zombie = writer(fs, "node-a", compact_every=3)
    late = batch(zombie, fs, 0)  # written, about to commit
    heir = writer(fs, "node-b", takeover=True, compact_every=3)  # fences id 0
    heir.recover()
    for b in range(1, 3):
        heir.commit(batch(heir, fs, b))  # id 2 compacts 0..2: the fence record is gone
    with pytest.raises(LeaseLost, match=r"compacted past it"):
        zombie.commit(late)
    assert next(r.files for r in heir.records()) == ()  # the fence, not the zombie's batch


class CandidateFS(DictFS):
    """Spark Connect's record semantics (``ConnectFS``): a create adds a candidate
    beside the others and wins only if it is alone; ``hooks[uri]`` runs just before
    the candidate lands (another writer's job landing first)."""

    def __init__(self) -> None:
        super().__init__()
        self.hooks: dict[str, list[Callable[[], object]]] = {}
        self.n = 0

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        for hook in self.hooks.pop(uri, []):
            hook()
        self.n += 1
        self.files[f"{uri}/c{self.n:04d}/part-0"] = data
        return set(self.read(uri).split(b"\n")) == {data}

    def read(self, uri: str) -> bytes:
        if uri in self.files:
            return self.files[uri]
        found = [v for k, v in self.files.items() if k.startswith(uri + "/")]
        if not found:
            raise OSError(f"read {uri}: not found")
        return b"\n".join(found)

    def read_parts(self, uri: str) -> dict[str, list[tuple[str, bytes]]]:
        out: dict[str, list[tuple[str, bytes]]] = {}
        for k, v in self.files.items():
            if k.startswith(uri + "/"):
                name, _, rest = k[len(uri) + 1 :].partition("/")
                out.setdefault(name, []).append((rest.partition("/")[0], v))
        return out

    def read_many(self, uri: str) -> dict[str, bytes]:
        return {n: b"\n".join(d for _, d in p) for n, p in self.read_parts(uri).items()}


def test_over_connect_the_fence_outranks_a_zombie_commit_that_landed_first() -> None:
    # issue 26.2 over Spark Connect (no atomic create-if-absent): the zombie's commit of
    # batch 1 lands after the heir listed the log, before the heir's fence
    fs = CandidateFS()
    zombie = writer(fs, "node-a")
    zombie.commit(batch(zombie, fs, 0))
    late = batch(zombie, fs, 1)
    fs.hooks[zombie._record_uri(1)] = [lambda: zombie.commit(late)]
    heir = writer(fs, "node-b", takeover=True)
    fence = heir.recover().committed[-1]
    assert (fence.batch_id, fence.files, fence.holder) == (1, (), heir.lease.mine.holder)  # type: ignore[union-attr]
    # the zombie goes on (it saw its commit alone): its next commit finds the fence
    # before it, and its candidate left at batch 2 is past the fence: not committed
    with pytest.raises(LeaseLost, match=r"batch 2 .* batch 1 is node-b"):
        zombie.commit(replace(batch(zombie, fs, 2), offset_before=20, offset_after=30))
    assert [r.holder for r in heir.records()] == [zombie.lease.mine.holder, fence.holder]  # type: ignore[union-attr]
    heir.commit(replace(batch(heir, fs, 2), offset_before=10, offset_after=20))
    assert [(r.batch_id, r.offset_after) for r in heir.recover().committed] == [
        (0, 10),
        (1, 10),
        (2, 20),
    ]
    fs.hooks[zombie._record_uri(3)] = [lambda: heir.commit(batch(heir, fs, 3))]
    with pytest.raises(LeaseLost, match=r"batch 3 .* node-b"):  # a candidate it loses to
        zombie.commit(replace(batch(zombie, fs, 3), offset_before=30, offset_after=40))


def test_over_connect_a_compaction_keeps_a_candidate_that_landed_meanwhile() -> None:
    fs = CandidateFS()
    zombie = writer(fs, "node-a", compact_every=2)
    zombie.commit(batch(zombie, fs, 0))
    rec = batch(zombie, fs, 1)
    fence = replace(rec, files=(), staging="", offset_after=10, epoch=1, holder="heir")
    # the heir's fence of batch 1 lands while the zombie compacts 0..1
    land = lambda: fs.create_exclusive(zombie._record_uri(1), fence.to_json().encode())  # noqa: E731
    fs.hooks[f"{zombie.commits_dir}/{1:012d}.compact"] = [land]
    zombie.commit(rec)
    assert [e.name for e in fs.list(zombie.commits_dir)] == [f"{1:012d}.json", f"{1:012d}.compact"]
    holder = zombie.lease.mine.holder  # type: ignore[union-attr]
    assert [r.holder for r in CommitLog(fs, T, "ev").records()] == [holder, "heir"]


@pytest.mark.parametrize("make_fs", [DictFS, CandidateFS], ids=["atomic", "over_connect"])
def test_overwrite_keeps_the_fence_so_a_zombie_of_the_previous_run_cannot_commit(
    make_fs: Callable[[], DictFS],
) -> None:
    fs = make_fs()
    zombie = writer(fs, "node-a")
    for b in range(2):
        zombie.commit(batch(zombie, fs, b))
    late = batch(zombie, fs, 2)  # the previous run is still writing batch 2
    heir = writer(fs, "node-b", takeover=True)
    heir.reset()  # mode="overwrite": the re-run starts from nothing
    with pytest.raises(LeaseLost, match=r"batch 2 of sink_id 'ev' refused"):
        zombie.commit(late)
    # a zombie whose check passed before the reset, killed right after its create
    stale = replace(late, batch_id=3, offset_before=20, offset_after=30, epoch=0, holder="z")
    fs.create_exclusive(heir._record_uri(3), stale.to_json().encode())
    assert heir.recover().resume_offset == 0
    for b in range(1, 4):  # the heir's own batches (0 is its fence), past the zombie's id
        heir.commit(batch(heir, fs, b))
    records = heir.recover().committed
    assert [(r.batch_id, r.offset_after, r.epoch) for r in records] == [
        (0, 0, 1),
        (1, 10, 1),
        (2, 20, 1),
        (3, 30, 1),
    ]


def test_a_fenced_writers_record_left_at_an_id_is_replaced_by_the_heirs() -> None:
    # a zombie killed after creating a record past the fence, before removing it: the
    # heir's commit at that id replaces it (lower epoch), not "different content"
    fs = DictFS()
    zombie = writer(fs, "node-a")
    zombie.commit(batch(zombie, fs, 0))
    heir = writer(fs, "node-b", takeover=True)  # fences batch 1
    stale = replace(batch(zombie, fs, 2), offset_before=10, offset_after=99)
    fs.files[heir._record_uri(2)] = replace(stale, epoch=0, holder="zombie").to_json().encode()
    assert [r.batch_id for r in heir.recover().committed] == [0, 1]
    heir.commit(batch(heir, fs, 2))
    holder = heir.lease.mine.holder  # type: ignore[union-attr]
    assert [(r.batch_id, r.holder) for r in heir.records()][1:] == [(1, holder), (2, holder)]


def test_publish_replaces_a_batch_directory_that_no_record_commits() -> None:
    # a fenced writer published batch 0 before it learnt of the fence: the heir's
    # committed batch 0 must not stay in staging behind the zombie's directory
    fs = DictFS()
    log = writer(fs, "node-a")
    staging, name = log.staging_dir_name(0), log.batch_dir_name(0)
    fs.files[f"{T}/{staging}/part-h"] = b"heir"
    fs.files[f"{log.batch_dir(0)}/part-z"] = b"zombie"
    record = CommitRecord("ev", 0, 1, 0, 10, staging, (("part-h", f"{name}/part-h"),))
    log.commit(record)
    assert log.publish(record)
    assert sorted(p for p in fs.files if name in p) == [f"{log.batch_dir(0)}/part-h"]
    assert log.committed_files() == [f"{log.batch_dir(0)}/part-h"]
