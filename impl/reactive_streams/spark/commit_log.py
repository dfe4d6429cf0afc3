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
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from reactive_streams.spark.hadoop_fs import Entry, join, table_uri

__all__ = ["BATCH_DIR", "CommitLog", "CommitRecord", "FileSystem", "Recovery", "check_sink_id"]

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
        self.commits_dir = join(self.uri, "_rs_sink", sink_id, "commits")
        self.fs.mkdirs(self.commits_dir)

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
        """Create the commit record if absent; idempotent for an identical record."""
        uri = self._record_uri(record.batch_id)
        if self.fs.create_exclusive(uri, record.to_json().encode("utf-8")):
            return
        existing = CommitRecord.from_json(self.fs.read(uri).decode("utf-8"))
        if existing != record:
            raise RuntimeError(
                f"batch {record.batch_id} of sink {self.sink_id!r} is already committed "
                f"in {uri} with different content (two writers on one sink id?)"
            )

    def recover(self) -> Recovery:
        """Delete a cut-short last record and every uncommitted batch directory;
        raise if the table holds files that belong to no sink."""
        committed = self.records(repair=True)
        last = committed[-1].batch_id if committed else -1
        removed: list[str] = []
        foreign: list[str] = []
        for entry in self.fs.list(self.uri):
            name = entry.name
            bid = self.batch_id_of(name)
            if bid is not None and entry.is_dir:
                if bid > last:
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
        return Recovery(tuple(committed), tuple(removed), ())

    def reset(self) -> list[str]:
        """Forget this sink: delete its commit records and batch directories (for
        ``mode="overwrite"``); other sinks' batches stay. Returns what was deleted."""
        names = [e.name for e in self.fs.list(self.uri)]
        gone = sorted(n for n in names if self.batch_id_of(n) is not None)
        for name in gone:
            self.fs.delete(join(self.uri, name))
        self.fs.delete(join(self.uri, "_rs_sink", self.sink_id))
        self.fs.mkdirs(self.commits_dir)
        return gone

    def committed_files(self) -> list[str]:
        """URIs of every committed data file of this sink, in batch order."""
        return [join(self.uri, f) for r in self.records() for _, f in r.files]
