"""A batch-id commit log beside the data: the sink's exactly-once commit point.

Layout under the table URI ``<table>`` (``_``-prefixed names are hidden from Spark,
pyarrow and most other readers)::

    <table>/rs_batch=<sink>-<batch:012d>/part-*<ext>    data of one batch
    <table>/_rs_sink/<sink>/commits/<batch:012d>.json   its commit record

Protocol for batch ``b`` (the order ``spec/SparkSink.tla`` checks):

1. *write*: Spark writes the batch into ``rs_batch=<sink>-<b>`` with mode overwrite,
   so a retry or a replay after a crash replaces it (idempotent by batch id);
2. *commit*: the record ``commits/<b>.json`` is created with create-if-absent
   semantics through the same Hadoop ``FileSystem``; it names the batch's files,
   the element range and the source position after the batch. This is the commit
   point; a record that exists is never rewritten (a replay compares);
3. *acknowledge*: only now the sink frees buffer space and asks upstream for more.

Nothing is renamed and nothing needs a shared POSIX path. A plain read of the
directory sees the batches as partitions of a string column ``rs_batch``. :meth:`CommitLog.recover`
deletes a last record that does not parse (a create cut short by a crash) and every
batch directory of this sink above the last committed id. Readers that must never
see an uncommitted batch read :meth:`CommitLog.committed_files` (or
``reactive_streams.spark.read_committed``); a plain directory read also sees a
batch being written, until it is committed or a restart deletes it.

Atomicity this needs from the filesystem: the commit record must become visible
whole or not at all, or be detectably truncated (JSON that does not parse), and
create-if-absent must not overwrite. ``hdfs://``: create(overwrite=false) is atomic
at the NameNode, ``hsync`` + close make the record durable. ``abfs://``: creates are
conditional (If-None-Match) and a file is visible only once flushed and closed.
``s3a://``: an object appears only when its upload completes (atomic visibility);
create-if-absent is a HEAD check, safe with the single writer per sink id that
the log assumes (Hadoop releases with conditional S3 PUT make it atomic).
``file://``: a crash mid-write can leave a truncated record, which recovery
detects and deletes; durability across an OS crash follows the local disk's
page-cache rules (a process kill loses nothing written).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from reactive_streams.spark.hadoop_fs import Entry, join, table_uri
from reactive_streams.spark.lease import Lease, LeaseHeld, LeaseInfo, LeaseLost

__all__ = [
    "BATCH_DIR",
    "CommitLog",
    "CommitRecord",
    "FileSystem",
    "LeaseHeld",
    "LeaseLost",
    "Recovery",
    "check_sink_id",
]

# a safe path component: no separator, no dot, not hidden, not an option
_SINK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", re.ASCII)
_BATCH_NUMBER = re.compile(r"[0-9]{12}", re.ASCII)
# a partition-style directory name: plain Spark and pyarrow readers of the table find
# every batch (and a column ``rs_batch``) through partition discovery
BATCH_DIR = "rs_batch="
_COMMIT_NAME = re.compile(r"^(\d{12})\.json$")


def check_sink_id(sink_id: str) -> str:
    """Return ``sink_id`` if it is safe in file names, else raise ValueError."""
    if not isinstance(sink_id, str) or not _SINK_ID.fullmatch(sink_id):
        raise ValueError(
            f"sink_id must be a safe path component ([A-Za-z0-9][A-Za-z0-9_-]{{0,63}}), "
            f"got {sink_id!r}"
        )
    return sink_id


@dataclass(frozen=True)
class CommitRecord:
    """One committed batch: its id, the upstream offsets it covers, its files."""

    sink_id: str
    batch_id: int
    attempt: int
    offset_before: int
    offset_after: int
    staging: str = ""  # the batch directory, relative to the table
    # (file name in the batch directory, path relative to the table)
    files: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    bytes: int = 0
    # the source position after the batch's last element (JSON; None without positions)
    position: Any = None
    # the writer's lease epoch and name (-1: written without a lease); a record with
    # no files whose batch id the writer took at its start is a *fence* (see acquire)
    epoch: int = -1
    holder: str = ""

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


class FileSystem(Protocol):
    """What the log needs of a filesystem (``HadoopFS`` is the real one)."""

    def exists(self, uri: str) -> bool: ...

    def mkdirs(self, uri: str) -> None: ...

    def list(self, uri: str) -> Sequence[Entry]: ...

    def read(self, uri: str) -> bytes: ...

    def create_exclusive(self, uri: str, data: bytes) -> bool: ...

    def delete(self, uri: str, recursive: bool = True) -> None: ...


class CommitLog:
    """The commit records and batch directories of one sink id under one table URI."""

    def __init__(self, fs: FileSystem, table: str, sink_id: str) -> None:
        self.fs = fs
        self.uri = table_uri(table)
        self.sink_id = check_sink_id(sink_id)
        self.sink_dir = join(self.uri, "_rs_sink", sink_id)
        self.commits_dir = join(self.sink_dir, "commits")
        self.fs.mkdirs(self.commits_dir)
        self.lease: Lease | None = None

    def acquire(
        self,
        *,
        takeover: bool = False,
        ttl_s: float = 30.0,
        heartbeat: bool = True,
        host: str | None = None,
        pid: int | None = None,
    ) -> LeaseInfo:
        """Become the one writer of this sink id (issue 26.2). A live holder gives
        :class:`LeaseHeld` naming it (unless ``takeover``); a holder that did not
        release is *fenced*: a commit record with no files is created at the next batch
        id, so any commit the old writer still tries hits an existing record and is
        refused (:class:`LeaseLost`). Call before :meth:`recover` or :meth:`reset`."""
        lease = Lease(self.fs, self.sink_dir, ttl_s=ttl_s, host=host, pid=pid)
        prev, released = lease.latest()
        if prev is not None and not released and not takeover and lease.live(prev):
            raise LeaseHeld(
                f"sink_id {self.sink_id!r} of {self.uri} is held by {prev.describe()}: "
                "one writer per (path, sink_id); wait for it to end, or pass takeover=True"
            )
        mine = lease.take(prev.epoch + 1 if prev is not None else 0)
        self.lease = lease
        if prev is not None and not released:
            self._fence(mine)
        if heartbeat:
            lease.start_heartbeat()
        return mine

    def _fence(self, mine: LeaseInfo) -> None:
        for _ in range(1000):  # each retry follows a commit the old writer made meanwhile
            done = self.records(repair=True)
            last = done[-1] if done else None
            offset = last.offset_after if last else 0
            fence = CommitRecord(
                self.sink_id,
                last.batch_id + 1 if last else 0,
                0,
                offset,
                offset,
                position=last.position if last else None,
                epoch=mine.epoch,
                holder=mine.holder,
            )
            uri = self._record_uri(fence.batch_id)
            if self.fs.create_exclusive(uri, fence.to_json().encode("utf-8")):
                return
            other = CommitRecord.from_json(self.fs.read(uri).decode("utf-8"))
            if other.epoch >= mine.epoch:
                raise LeaseLost(f"{uri}: the lease was taken over by {other.holder}")
        raise LeaseHeld(f"sink_id {self.sink_id!r}: the old writer keeps committing")

    def release(self) -> None:
        """Give the lease up (the stream ended); a later writer need not fence."""
        if self.lease is not None:
            self.lease.release()

    def batch_dir_name(self, batch_id: int) -> str:
        return f"{BATCH_DIR}{self.sink_id}-{batch_id:012d}"

    def batch_dir(self, batch_id: int) -> str:
        return join(self.uri, self.batch_dir_name(batch_id))

    def batch_id_of(self, name: str) -> int | None:
        """The batch id if ``name`` is a batch directory of exactly this sink id, else
        None: ``rs_batch=ev-eu-...`` is not a batch of ``ev`` (issue 26: no prefix match)."""
        prefix = f"{BATCH_DIR}{self.sink_id}-"
        rest = name[len(prefix) :] if name.startswith(prefix) else ""
        return int(rest) if _BATCH_NUMBER.fullmatch(rest) else None

    def _record_uri(self, batch_id: int) -> str:
        return join(self.commits_dir, f"{batch_id:012d}.json")

    def records(self, *, repair: bool = False) -> list[CommitRecord]:
        """All commit records in batch order; raises if the ids have a gap. With
        ``repair``, a last record that does not parse is deleted (a cut-short create)."""
        read_many = getattr(self.fs, "read_many", None)  # one job over Spark Connect
        contents: dict[str, bytes] = read_many(self.commits_dir) if read_many else {}
        listed = contents if read_many else [e.name for e in self.fs.list(self.commits_dir)]
        names = sorted(n for n in listed if _COMMIT_NAME.match(n))
        out: list[CommitRecord] = []
        for k, name in enumerate(names):
            uri = join(self.commits_dir, name)
            try:
                data = contents[name] if read_many else self.fs.read(uri)
                out.append(CommitRecord.from_json(data.decode("utf-8")))
            except (ValueError, TypeError, KeyError, OSError) as e:
                if k == len(names) - 1 and repair:
                    self.fs.delete(uri, False)
                    break
                raise RuntimeError(f"commit record {uri} is unreadable: {e}") from e
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
        """Create the commit record if absent; idempotent for an identical record.
        Stamped with this writer's lease epoch: a record another epoch created first
        (a fence) refuses the commit (:class:`LeaseLost`)."""
        mine = self.lease.mine if self.lease is not None else None
        if mine is not None:
            record = replace(record, epoch=mine.epoch, holder=mine.holder)
        uri = self._record_uri(record.batch_id)
        if self.fs.create_exclusive(uri, record.to_json().encode("utf-8")):
            return
        existing = CommitRecord.from_json(self.fs.read(uri).decode("utf-8"))
        if existing.epoch > record.epoch:  # fencing: a newer writer owns this id
            raise LeaseLost(
                f"batch {record.batch_id} of sink_id {self.sink_id!r} refused: the lease "
                f"was taken over by {existing.holder} (epoch {existing.epoch}); this writer "
                f"(epoch {record.epoch}) is fenced and commits nothing more"
            )
        if existing != record:
            raise RuntimeError(
                f"batch {record.batch_id} of sink {self.sink_id!r} is already committed "
                f"in {uri} with different content (two writers on one sink id?)"
            )

    def recover(self) -> Recovery:
        """Delete a cut-short last record and every uncommitted batch directory;
        raise if the table holds files that belong to no sink."""
        committed = self.records(repair=True)
        with_data = {r.batch_id: r for r in committed if r.files}
        removed: list[str] = []
        foreign: list[str] = []
        present: set[int] = set()
        for entry in self.fs.list(self.uri):
            name = entry.name
            bid = self.batch_id_of(name)
            if bid is not None and entry.is_dir:
                if bid in with_data:
                    present.add(bid)
                else:  # above the last commit, or a batch id a fence took
                    self.fs.delete(join(self.uri, name))
                    removed.append(name)
            elif not (name.startswith(("_", ".")) or (name.startswith(BATCH_DIR) and entry.is_dir)):
                foreign.append(name)
        if foreign:
            shown = ", ".join(join(self.uri, n) for n in sorted(foreign)[:5])
            raise RuntimeError(
                f"table {self.uri} holds {len(foreign)} file(s) no sink wrote ({shown}); "
                "a reader of the directory would read them too: use an empty directory"
            )
        missing = sorted(set(with_data) - present)
        if missing:  # never resume past lost data (issue 26.2)
            lost = with_data[missing[0]]
            raise RuntimeError(
                f"commit record {self._record_uri(lost.batch_id)} names "
                f"{join(self.uri, self.batch_dir_name(lost.batch_id))}, which is missing "
                f"({len(missing)} committed batch(es) missing): data was deleted behind "
                "the commit log; restore it or start over with mode='overwrite'"
            )
        return Recovery(tuple(committed), tuple(removed), ())

    def reset(self) -> list[str]:
        """Forget this sink: delete its commit records and batch directories (for
        ``mode="overwrite"``); other sinks' batches stay. Returns what was deleted."""
        names = [e.name for e in self.fs.list(self.uri)]
        gone = sorted(n for n in names if self.batch_id_of(n) is not None)
        for name in gone:
            self.fs.delete(join(self.uri, name))
        self.fs.delete(self.commits_dir)  # the lease stays: reset under one's own lease
        self.fs.mkdirs(self.commits_dir)
        return gone

    def committed_files(self) -> list[str]:
        """URIs of every committed data file of this sink, in batch order."""
        return [join(self.uri, f) for r in self.records() for _, f in r.files]
