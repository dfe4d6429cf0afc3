"""A commit record holds the files a FileSource finished since the last compaction,
not every file ever done, and a restart reads the same position back (issue 42: at
1,936 files each record carried 33 kB)."""

from __future__ import annotations

from reactive_streams.spark.commit_log import CommitLog, CommitRecord

from .test_commit_log import DictFS
from .test_lease import CandidateFS, batch, writer

T = "file:///data/t"
PER_BATCH = 8  # files finished per batch


def position(b: int) -> dict[str, object]:
    """A FileSource position after batch ``b``: every file done so far, one open."""
    done = [f"in-{i:06d}.jsonl" for i in range(PER_BATCH * (b + 1))]
    return {"done": done, "file": f"in-{PER_BATCH * (b + 1):06d}.jsonl", "row": b}


def run(fs: DictFS, log: CommitLog, batches: range) -> dict[int, int]:
    """Commit ``batches``; the bytes each one's commit record was created with."""
    sizes: dict[int, int] = {}
    create = fs.create_exclusive

    def measured(uri: str, data: bytes) -> bool:
        name = uri.rsplit("/", 1)[-1]
        if name.endswith(".json") and "/commits/" in uri:
            sizes[int(name[:12])] = len(data)
        return create(uri, data)

    fs.create_exclusive = measured  # type: ignore[method-assign]
    try:
        for b in batches:
            rec = batch(log, fs, b)
            log.commit(CommitRecord(**{**rec.__dict__, "position": position(b)}))
    finally:
        fs.create_exclusive = create  # type: ignore[method-assign]
    return sizes


def test_a_record_holds_the_files_done_since_the_last_compaction() -> None:
    fs = DictFS()
    log = writer(fs, "node-a", compact_every=100)
    sizes = run(fs, log, range(250))
    # main: batch 249's record named all 2,000 files (38 kB), batch 99's 800
    assert sizes[249] < sizes[99], (sizes[99], sizes[249])
    # never more than the first 100 batches' records (plus the 'rs_since' wrapper)
    assert max(sizes[b] for b in range(100, 250)) <= max(sizes[b] for b in range(100)) + 100
    # a restart reads the whole position back, and resumes where the log ends
    again = CommitLog(fs, T, "ev")
    records = again.records()
    assert [r.batch_id for r in records] == list(range(250))
    assert all(r.position == position(r.batch_id) for r in records if r.batch_id >= 0)
    assert again.recover().resume_position == position(249)


def test_records_relative_to_a_compaction_read_back_over_connect_candidates() -> None:
    fs = CandidateFS()
    log = writer(fs, "node-a", compact_every=10)
    run(fs, log, range(25))
    assert CommitLog(fs, T, "ev").recover().resume_position == position(24)
