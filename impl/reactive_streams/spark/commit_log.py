"""A batch-id commit log beside the data: the sink's exactly-once commit point.

Layout under the table directory ``<path>`` (names starting with ``_`` are hidden
from Spark, pyarrow and most other readers)::

    <path>/part-<sink>-<batch:012d>-<k><ext>          published data files
    <path>/_rs_sink/<sink>/staging/<batch:012d>-<attempt>/   one Spark write attempt
    <path>/_rs_sink/<sink>/commits/<batch:012d>.json        the commit records

Protocol for batch ``b`` (the order the TLA+ model ``spec/SparkSink.tla`` checks):

1. *stage*: Spark writes the batch into its own staging directory;
2. *commit*: the record ``commits/b.json`` is written atomically (temp file, fsync,
   rename, directory fsync). This is the commit point; it names the staged files
   and the upstream offsets ``[offset_before, offset_after)``;
3. *publish*: each staged file is renamed to its final name (idempotent);
4. *acknowledge*: only now the sink frees buffer space and asks upstream for more.

:meth:`CommitLog.recover` rolls committed batches forward (finishes step 3) and
deletes staging directories no commit names. The resume offset of the upstream is
``offset_after`` of the last record. Local (POSIX) file systems only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

_SINK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_COMMIT_NAME = re.compile(r"^(\d{12})\.json$")


def check_sink_id(sink_id: str) -> str:
    """Return ``sink_id`` if it is safe in file names, else raise ValueError."""
    if not _SINK_ID.match(sink_id):
        raise ValueError(f"sink_id must match [A-Za-z0-9_-]{{1,64}}, got {sink_id!r}")
    return sink_id


@dataclass(frozen=True)
class CommitRecord:
    """One committed batch: its id, the upstream offsets it covers, its files."""

    sink_id: str
    batch_id: int
    attempt: int
    offset_before: int
    offset_after: int
    staging: str = ""
    # (staged name relative to ``staging``, final name relative to the table path)
    files: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    bytes: int = 0
    # the source position after the batch's last element (JSON; None without positions)
    position: Any = None

    @property
    def rows(self) -> int:
        return self.offset_after - self.offset_before

    def to_json(self) -> str:
        data = asdict(self)
        data["files"] = [list(pair) for pair in self.files]
        return json.dumps(data, sort_keys=True)

    @staticmethod
    def from_json(text: str) -> CommitRecord:
        data = json.loads(text)
        data["files"] = tuple((str(a), str(b)) for a, b in data["files"])
        return CommitRecord(**data)


@dataclass(frozen=True)
class Recovery:
    """What a restart learns from the log."""

    committed: tuple[CommitRecord, ...]
    removed_staging: tuple[str, ...] = ()
    rolled_forward: tuple[int, ...] = ()

    @property
    def last_batch_id(self) -> int:
        """Id of the last committed batch, -1 if none."""
        return self.committed[-1].batch_id if self.committed else -1

    @property
    def resume_offset(self) -> int:
        """Number of elements the sink has committed (received, not source positions)."""
        return self.committed[-1].offset_after if self.committed else 0

    @property
    def resume_position(self) -> Any:
        """The committed source position (``None``: nothing committed, or no positions)."""
        return self.committed[-1].position if self.committed else None


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CommitLog:
    """The commit records and staging area of one sink id under one table path."""

    def __init__(self, path: str, sink_id: str) -> None:
        self.path = os.path.abspath(path)
        self.sink_id = check_sink_id(sink_id)
        self.root = os.path.join(self.path, "_rs_sink", sink_id)
        self.commits_dir = os.path.join(self.root, "commits")
        self.staging_root = os.path.join(self.root, "staging")
        os.makedirs(self.commits_dir, exist_ok=True)
        os.makedirs(self.staging_root, exist_ok=True)

    def staging_dir(self, batch_id: int, attempt: int) -> str:
        return os.path.join(self.staging_root, f"{batch_id:012d}-{attempt}")

    def final_name(self, batch_id: int, index: int, staged_name: str) -> str:
        """Final file name: ``part-<sink>-<batch>-<k>`` plus the staged name's extension."""
        base = os.path.basename(staged_name)
        ext = base[base.index(".") :] if "." in base else ""
        return f"part-{self.sink_id}-{batch_id:012d}-{index:03d}{ext}"

    def records(self) -> list[CommitRecord]:
        """All commit records in batch order; raises if the ids have a gap."""
        out: list[CommitRecord] = []
        for name in sorted(os.listdir(self.commits_dir)):
            if _COMMIT_NAME.match(name):
                with open(os.path.join(self.commits_dir, name), encoding="utf-8") as fh:
                    out.append(CommitRecord.from_json(fh.read()))
        for expected, record in enumerate(out):
            if record.batch_id != expected:
                raise RuntimeError(
                    f"commit log {self.commits_dir} is not contiguous: "
                    f"expected batch {expected}, found {record.batch_id}"
                )
            if expected and record.offset_before != out[expected - 1].offset_after:
                raise RuntimeError(f"commit log {self.commits_dir}: offsets of batch {expected}")
        return out

    def commit(self, record: CommitRecord) -> None:
        """Write the commit record atomically; idempotent for an identical record."""
        target = os.path.join(self.commits_dir, f"{record.batch_id:012d}.json")
        if os.path.exists(target):
            with open(target, encoding="utf-8") as fh:
                existing = CommitRecord.from_json(fh.read())
            if existing != record:
                raise RuntimeError(
                    f"batch {record.batch_id} of sink {self.sink_id!r} is already committed "
                    "with different content (two writers on one sink id?)"
                )
            return
        tmp = os.path.join(self.commits_dir, f".{record.batch_id:012d}.json.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(record.to_json())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        _fsync_dir(self.commits_dir)

    def publish(self, record: CommitRecord) -> None:
        """Move the staged files of a committed batch to their final names (idempotent)."""
        for staged, final in record.files:
            src = os.path.join(record.staging, staged)
            dst = os.path.join(self.path, final)
            if os.path.exists(src):
                os.replace(src, dst)
            elif not os.path.exists(dst):
                raise RuntimeError(
                    f"batch {record.batch_id}: committed file {final} is missing "
                    f"(neither {src} nor {dst} exists)"
                )
        if record.files:
            _fsync_dir(self.path)
        if record.staging:
            shutil.rmtree(record.staging, ignore_errors=True)

    def recover(self) -> Recovery:
        """Roll committed batches forward and delete uncommitted staging directories."""
        committed = self.records()
        rolled: list[int] = []
        for record in committed:
            if any(not os.path.exists(os.path.join(self.path, f)) for _, f in record.files):
                self.publish(record)
                rolled.append(record.batch_id)
        removed: list[str] = []
        for name in sorted(os.listdir(self.staging_root)):
            shutil.rmtree(os.path.join(self.staging_root, name), ignore_errors=True)
            removed.append(name)
        for name in os.listdir(self.commits_dir):
            if name.endswith(".tmp"):
                os.remove(os.path.join(self.commits_dir, name))
        return Recovery(tuple(committed), tuple(removed), tuple(rolled))

    def committed_files(self) -> Sequence[str]:
        """Absolute paths of every published data file of this sink."""
        return [os.path.join(self.path, f) for r in self.records() for _, f in r.files]
