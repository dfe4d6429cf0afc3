"""A batch-id commit log beside the data: the sink's exactly-once commit point.

Layout under the table URI ``<table>`` (``_``-prefixed names are hidden from Spark,
pyarrow and most other readers)::

    <table>/_rs_sink/<sink>/staging/<batch:012d>/part-*  a batch being written
    <table>/rs_batch=<sink>-<batch:012d>/part-*<ext>     data of one committed batch
    <table>/_rs_sink/<sink>/commits/<batch:012d>.json    its commit record
    <table>/_rs_sink/<sink>/lease/<epoch:012d>.*         the one writer (``lease``)

Protocol for batch ``b`` (the order ``spec/SparkSink.tla`` checks):

1. *write*: Spark writes the batch into its hidden staging directory with mode
   overwrite, so a retry or a replay after a crash replaces it (idempotent by id);
2. *commit*: the record ``commits/<b>.json`` is created with create-if-absent
   semantics through the same Hadoop ``FileSystem``; it names the batch's files,
   the element range and the source position after the batch. This is the commit
   point; a record that exists is never rewritten (a replay compares), and one
   created by a newer writer's fence refuses the commit (``LeaseLost``);
3. *publish*: the staging directory is renamed to ``rs_batch=<sink>-<b>``, so a
   plain reader of the table sees only committed batches (issue 26.4); a restart
   rolls forward a committed batch not yet renamed;
4. *acknowledge*: only now the sink frees buffer space and asks upstream for more.

A plain read of the directory sees the committed batches as partitions of a string
column ``rs_batch`` (``<sink>-<batch>``). Over Spark Connect there is no rename: a
batch is written in place and a plain reader may see it before its commit.
:meth:`CommitLog.recover` deletes a last record that does not parse (a create cut
short by a crash), every staging or batch directory of this sink that no record
commits, and refuses to resume when a committed batch's data is missing. Readers
that must never see an uncommitted batch on any filesystem read
:meth:`CommitLog.committed_files` (or ``reactive_streams.spark.read_committed``).

Atomicity this needs from the filesystem: the commit record must become visible
whole or not at all, or be detectably truncated (JSON that does not parse), and
create-if-absent must not overwrite. ``hdfs://``: create(overwrite=false) is atomic
at the NameNode, ``hsync`` + close make the record durable, rename is atomic.
``abfs://``: creates are conditional (If-None-Match) and a file is visible only once
flushed and closed. ``s3a://``: an object appears only when its upload completes
(atomic visibility); create-if-absent is a HEAD check (Hadoop releases with
conditional S3 PUT make it atomic), and a rename is a copy, rolled forward on restart.
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
# every record up to its id, in one file: a restart reads O(compact_every) files
_COMPACT_NAME = re.compile(r"^(\d{12})\.compact$")


def _candidates(data: bytes) -> list[CommitRecord]:
    """The records in a commit record's bytes: one, or one per line (the candidates of
    a record created over Spark Connect). Raises ValueError if none parses."""
    lines = [t for t in data.decode("utf-8").split("\n") if t.strip()]
    out = []
    for line in lines:
        try:
            out.append(CommitRecord.from_json(line))
        except (ValueError, TypeError, KeyError):
            if len(lines) == 1:
                raise
    if not out:
        raise ValueError("no record in it")
    return out


# a compaction stores a record's sorted-set position field (a FileSource's files done)
# as what it adds to the record before's: the set once, not once per batch (26.7/26.8)
_ADDED = "rs_added"


def _delta(prev: Any, cur: Any) -> Any:
    if type(cur) is dict and type(prev) is dict:
        return {k: _delta(prev.get(k), v) for k, v in cur.items()}
    if type(cur) is list and type(prev) is list and prev:
        if cur is prev or cur == prev:
            return {_ADDED: []}
        if all(type(v) is str for v in cur):
            seen = set(prev)
            added = [v for v in cur if v not in seen]
            if len(added) < len(cur):
                return {_ADDED: added}
    return cur


def _undelta(prev: Any, enc: Any) -> Any:
    if type(enc) is dict and set(enc) == {_ADDED} and type(prev) is list:
        added = enc[_ADDED]
        return sorted(prev + added) if added else prev  # a merge of two sorted runs
    if type(enc) is dict and type(prev) is dict:
        return {k: _undelta(prev.get(k), v) for k, v in enc.items()}
    return enc


# a commit record stores such a field as what it adds to the newest compaction's last
# record, ``{"rs_since": <its batch id>, "rs_delta": ...}``: a record holds the files
# done since the last compaction, not every file ever done (issue 42)
_SINCE, _DELTA = "rs_since", "rs_delta"


def _is_since(position: Any) -> bool:
    return type(position) is dict and set(position) == {_SINCE, _DELTA}


def _encode_compaction(records: Sequence[CommitRecord]) -> str:
    """One line: each record's JSON, or ``{"rs_delta": <JSON>}`` with its position
    relative to the record before (only where that decodes back exactly)."""
    out: list[Any] = []
    prev: Any = None
    for r in records:
        position = _delta(prev, r.position)
        if position != r.position and _undelta(prev, position) == r.position:
            out.append({"rs_delta": replace(r, position=position).to_json()})
        else:
            out.append(r.to_json())
        prev = r.position
    return json.dumps(out)


def _decode_compaction(line: str) -> list[CommitRecord]:
    out: list[CommitRecord] = []
    for item in json.loads(line):
        if type(item) is dict:
            r = CommitRecord.from_json(item["rs_delta"])
            prev = out[-1].position if out else None
            out.append(replace(r, position=_undelta(prev, r.position)))
        else:
            out.append(CommitRecord.from_json(item))
    return out


def kept_in_staging(record: CommitRecord) -> bool:
    """Is the batch's data read from its staging directory for good? (Over Spark
    Connect there is no rename: the hidden staging directory is its home.)"""
    return bool(record.files) and all(
        final == f"{record.staging}/{staged}" for staged, final in record.files
    )


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

    # and, where batches are staged hidden: rename(src, dst) (HadoopFS has it)


class CommitLog:
    """The commit records and batch directories of one sink id under one table URI."""

    def __init__(
        self, fs: FileSystem, table: str, sink_id: str, *, compact_every: int = 100
    ) -> None:
        self.fs = fs
        self.uri = table_uri(table)
        self.sink_id = check_sink_id(sink_id)
        self.sink_dir = join(self.uri, "_rs_sink", sink_id)
        self.commits_dir = join(self.sink_dir, "commits")
        self.fs.mkdirs(self.commits_dir)
        self.lease: Lease | None = None
        self.compact_every = compact_every  # 0: never compact
        # batch id -> position of the compactions read or written: the bases of the
        # records' ``rs_since`` positions; the newest one is what a commit refers to
        self._bases: dict[int, Any] = {}
        self._base: int | None = None

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
        mine = lease.take(lease.newest + 1)
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
            other = self._resolve(uri)
            if other == fence:  # over Connect: the fence outranks the old writer's candidate
                return
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

    def staging_dir_name(self, batch_id: int) -> str:
        """Where a batch is written before its commit, relative to the table: under
        ``_rs_sink``, which Spark, pyarrow and most readers skip (issue 26.4)."""
        return f"_rs_sink/{self.sink_id}/staging/{batch_id:012d}"

    def publish(self, record: CommitRecord) -> bool:
        """Rename a committed batch from its staging directory to its batch directory
        (idempotent: False if it is there already). Only a committed batch moves."""
        final = self.batch_dir(record.batch_id)
        if (
            not record.files
            or record.staging == self.batch_dir_name(record.batch_id)
            or kept_in_staging(record)
        ):
            return False  # no data, or no rename over Spark Connect (in place: before 26.4)
        src = join(self.uri, record.staging)
        staged = self.fs.exists(src)
        if self.fs.exists(final):
            if not staged:
                return False  # renamed already
            # in the way: a batch directory no record commits (a fenced writer's, or a
            # copy cut short): the committed batch replaces it (issue 26.2)
            self.fs.delete(final)
        elif not staged:
            raise RuntimeError(
                f"batch {record.batch_id} of sink_id {self.sink_id!r} is committed but "
                f"neither {final} nor its staging {src} exists: its data was deleted"
            )
        self.fs.rename(src, final)  # type: ignore[attr-defined]  # staged: it has rename
        return True

    def _record_uri(self, batch_id: int) -> str:
        return join(self.commits_dir, f"{batch_id:012d}.json")

    def records(self, *, repair: bool = False) -> list[CommitRecord]:
        """All commit records in batch order; raises if the ids have a gap. A last
        record that does not parse (a create cut short by a crash, or one being written)
        is not committed: it is skipped, and with ``repair`` deleted.

        A batch id may hold several candidates (a compaction's entry, a leftover record,
        Spark Connect's candidates): the highest lease epoch wins, whatever order they
        landed in. A record of an epoch lower than an earlier batch's (a fenced writer's
        late commit after the fence) ends the log: it is not committed (issue 26.2)."""
        read_many = getattr(self.fs, "read_many", None)  # one job over Spark Connect
        contents: dict[str, bytes] = read_many(self.commits_dir) if read_many else {}
        listed = contents if read_many else [e.name for e in self.fs.list(self.commits_dir)]
        held: dict[int, list[CommitRecord]] = {}
        base = -1
        for name in sorted((n for n in listed if _COMPACT_NAME.match(n)), reverse=True):
            uri = join(self.commits_dir, name)
            try:  # the newest whole compaction; a cut-short one left its records in place
                data = contents[name] if read_many else self.fs.read(uri)
                line = data.decode("utf-8").split("\n")[0]
                for r in _decode_compaction(line):
                    held[r.batch_id] = [r]
                base = int(name[:12])
                self._bases[base] = held[base][0].position
                self._base = base
                break
            except (ValueError, TypeError, KeyError, OSError):
                if repair:
                    self.fs.delete(uri, False)
        names = sorted(n for n in listed if _COMMIT_NAME.match(n))
        above = [n for n in names if int(n[:12]) > base]
        for name in names:
            uri = join(self.commits_dir, name)
            try:
                data = contents[name] if read_many else self.fs.read(uri)
                found = [self._full(r) for r in _candidates(data)]
                held.setdefault(int(name[:12]), []).extend(found)
            except (ValueError, TypeError, KeyError, OSError, RuntimeError) as e:
                if int(name[:12]) <= base:
                    continue  # a leftover the compaction holds
                if name == above[-1]:  # a create cut short, or still being written:
                    if repair:  # not committed (a reader polling beside a killed
                        self.fs.delete(uri, False)  # writer skips it, issue 42)
                    break
                raise RuntimeError(f"commit record {uri} is unreadable: {e}") from e
        out: list[CommitRecord] = []
        top = -1
        for expected, bid in enumerate(sorted(held)):
            record = self._winner(self._record_uri(bid), held[bid])
            if 0 <= record.epoch < top:
                break  # a fenced writer's commit after the fence: never committed
            if record.batch_id != expected:
                raise RuntimeError(
                    f"commit log {self.commits_dir} is not contiguous: "
                    f"expected batch {expected}, found {record.batch_id}"
                )
            top = max(top, record.epoch)
            if expected and record.offset_before != out[expected - 1].offset_after:
                raise RuntimeError(f"commit log {self.commits_dir}: offsets of batch {expected}")
            out.append(record)
        return out

    def _winner(self, uri: str, candidates: Sequence[CommitRecord]) -> CommitRecord:
        """The candidate of the highest lease epoch (issue 26.2: the fence outranks a
        fenced writer's commit, in whatever order the two landed)."""
        top = max(c.epoch for c in candidates)
        best = [c for c in candidates if c.epoch == top]
        if any(c != best[0] for c in best):
            raise RuntimeError(
                f"commit record {uri} holds different records of one lease epoch {top} "
                f"({', '.join(sorted({c.holder or '?' for c in best}))}): two writers on one "
                "sink id without a lease?"
            )
        return best[0]

    def _resolve(self, uri: str) -> CommitRecord:
        return self._winner(uri, [self._full(r) for r in _candidates(self.fs.read(uri))])

    def _stored(self, record: CommitRecord) -> CommitRecord:
        """``record`` as written: its position relative to the newest compaction's
        (only where that decodes back exactly)."""
        base = self._base
        if base is None or record.position is None or record.batch_id <= base:
            return record
        prev = self._bases[base]
        enc = _delta(prev, record.position)
        if enc == record.position or _undelta(prev, enc) != record.position:
            return record
        return replace(record, position={_SINCE: base, _DELTA: enc})

    def _full(self, record: CommitRecord) -> CommitRecord:
        """``record`` as read back: an ``rs_since`` position applied to its base."""
        position = record.position
        if not _is_since(position):
            return record
        since = int(position[_SINCE])
        if since not in self._bases:
            found = self._compaction_end(since)
            if found is None:
                raise RuntimeError(
                    f"commit record of batch {record.batch_id} of sink_id {self.sink_id!r} "
                    f"is relative to compaction {since}, which is missing"
                )
            self._bases[since] = found.position
        return replace(record, position=_undelta(self._bases[since], position[_DELTA]))

    def _compaction_end(self, batch_id: int) -> CommitRecord | None:
        """The last record of compaction ``<batch_id>.compact``, None if unreadable."""
        try:
            data = self.fs.read(join(self.commits_dir, f"{batch_id:012d}.compact"))
            last = _decode_compaction(data.decode("utf-8").split("\n")[0])[-1]
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            return None
        return last if last.batch_id == batch_id else None

    def commit(self, record: CommitRecord) -> None:
        """Create the commit record if absent; idempotent for an identical record.
        Stamped with this writer's lease epoch: a record another epoch created first
        (a fence) refuses the commit (:class:`LeaseLost`)."""
        mine = self.lease.mine if self.lease is not None else None
        if mine is not None:
            record = replace(record, epoch=mine.epoch, holder=mine.holder)
        uri = self._record_uri(record.batch_id)
        data = self._stored(record).to_json().encode("utf-8")
        created = self.fs.create_exclusive(uri, data)
        existing = record if created else self._resolve(uri)  # Connect: ours may win
        if 0 <= existing.epoch < record.epoch and getattr(self.fs, "read_parts", None) is None:
            # a fenced writer's record past its fence (never committed): ours replaces it
            self.fs.delete(uri, False)
            created = self.fs.create_exclusive(uri, data)
            existing = record if created else self._resolve(uri)
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
        self._check_predecessor(record, uri, created)
        self._after_commit(record, uri)

    def _check_predecessor(self, record: CommitRecord, uri: str, created: bool) -> None:
        """Refuse a commit whose previous batch is gone (a newer writer reset the log:
        ``mode="overwrite"``) or belongs to a newer writer (a fence that landed first):
        this writer is fenced (issue 26.2). One read per commit."""
        if record.batch_id == 0 or record.epoch < 0:
            return
        prev = self._find(record.batch_id - 1)
        if prev is not None and prev.epoch <= record.epoch:
            return
        if created and getattr(self.fs, "read_parts", None) is None:
            self.fs.delete(uri, False)  # ours alone (create-if-absent): never committed
        why = (
            f"batch {record.batch_id - 1} is gone (a newer writer reset the log)"
            if prev is None
            else f"batch {record.batch_id - 1} is {prev.holder}'s (epoch {prev.epoch})"
        )
        raise LeaseLost(
            f"batch {record.batch_id} of sink_id {self.sink_id!r} refused: {why}; this "
            f"writer (epoch {record.epoch}) is fenced and commits nothing more"
        )

    def _find(self, batch_id: int) -> CommitRecord | None:
        """Batch ``batch_id``'s winning record, from its file or the compaction ending at
        it; None if neither exists."""
        try:
            return self._resolve(self._record_uri(batch_id))
        except (OSError, ValueError, TypeError, KeyError, RuntimeError):
            pass
        return self._compaction_end(batch_id)

    def _after_commit(self, record: CommitRecord, uri: str) -> None:
        if not self.compact_every:
            return
        names = [e.name for e in self.fs.list(self.commits_dir)]
        covered = [int(m[1]) for n in names if (m := _COMPACT_NAME.match(n))]
        if any(c >= record.batch_id for c in covered) and record not in self.records():
            # a compaction already holds this id: the record was deleted and a zombie
            # created it again; the compaction's entry outranks it (issue 26.2)
            raise LeaseLost(
                f"batch {record.batch_id} of sink_id {self.sink_id!r} refused: the log "
                f"is compacted past it by a newer writer; this writer is fenced"
            )
        if (record.batch_id + 1) % self.compact_every == 0:
            self.compact()

    def compact(self) -> int:
        """Write every record into ``<last>.compact``, then delete the records and older
        compactions it holds (Structured Streaming's compactible log does the same).
        Returns the number of files deleted."""
        done = self.records()
        if not done:
            return 0
        last = done[-1].batch_id
        text = _encode_compaction(done)  # one line (Spark Connect)
        self.fs.create_exclusive(join(self.commits_dir, f"{last:012d}.compact"), text.encode())
        if self._compaction_end(last) == done[-1]:  # whole: later records refer to it
            self._bases[last] = done[-1].position
            self._base = last
        parts = getattr(self.fs, "read_parts", None)  # Spark Connect: candidate by candidate
        listed = (
            parts(self.commits_dir)
            if parts
            else {e.name: [] for e in self.fs.list(self.commits_dir)}
        )
        gone = 0
        for name, candidates in listed.items():
            m = _COMMIT_NAME.match(name) or _COMPACT_NAME.match(name)
            if not (m and int(m[1]) <= last and (m.re is _COMMIT_NAME or int(m[1]) < last)):
                continue
            if not candidates or m.re is _COMPACT_NAME:
                self.fs.delete(join(self.commits_dir, name), False)
                gone += 1
                continue
            for sub, data in candidates:  # only what this compaction holds: a newer
                try:  # writer's candidate that landed meanwhile stays (issue 26.2)
                    held = all(self._full(r) in done for r in _candidates(data))
                except (ValueError, TypeError, KeyError, RuntimeError):
                    held = True  # unreadable: never a winner
                if held:
                    self.fs.delete(join(self.commits_dir, name, *([sub] if sub else [])), False)
                    gone += 1
        return gone

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
        staging = join(self.sink_dir, "staging")
        staged_names = {e.name for e in self.fs.list(staging)}
        for bid, r in with_data.items():  # over Spark Connect the data stays in staging
            if kept_in_staging(r) and r.staging.rsplit("/", 1)[-1] in staged_names:
                present.add(bid)
        rolled: list[int] = []
        for bid in sorted(set(with_data) - present):  # committed, not yet renamed
            staged = with_data[bid].staging
            if staged != self.batch_dir_name(bid) and self.fs.exists(join(self.uri, staged)):
                self.publish(with_data[bid])
                rolled.append(bid)
                present.add(bid)
        for entry in self.fs.list(staging):  # written, never committed: garbage
            if not entry.name.isdigit() or int(entry.name) not in with_data:
                self.fs.delete(join(staging, entry.name))
                removed.append(f"_rs_sink/{self.sink_id}/staging/{entry.name}")
        missing = sorted(set(with_data) - present)
        if missing:  # never resume past lost data (issue 26.2)
            lost = with_data[missing[0]]
            where = lost.staging if kept_in_staging(lost) else self.batch_dir_name(lost.batch_id)
            raise RuntimeError(
                f"commit record {self._record_uri(lost.batch_id)} names {join(self.uri, where)}, "
                "which is missing "
                f"({len(missing)} committed batch(es) missing): data was deleted behind "
                "the commit log; restore it or start over with mode='overwrite'"
            )
        return Recovery(tuple(committed), tuple(removed), tuple(rolled))

    def reset(self) -> list[str]:
        """Forget this sink: delete its commit records and batch directories (for
        ``mode="overwrite"``); other sinks' batches stay. Returns what was deleted."""
        names = [e.name for e in self.fs.list(self.uri)]
        gone = sorted(n for n in names if self.batch_id_of(n) is not None)
        for name in gone:
            self.fs.delete(join(self.uri, name))
        self.fs.delete(self.commits_dir)  # the lease stays: reset under one's own lease
        self.fs.mkdirs(self.commits_dir)
        self._bases.clear()  # the compactions went with the records
        self._base = None
        if self.lease is not None and self.lease.mine is not None:
            # the fence again, at batch 0: a writer of the previous run stays fenced
            self._fence(self.lease.mine)
        return gone

    def committed_files(self) -> list[str]:
        """URIs of the data files of this sink's committed batches, in batch order, up
        to the first one committed but not yet published (renamed into its batch
        directory; its rename or a restart's roll-forward shows it): a reader never
        mixes a staging directory with batch directories. A batch kept in staging for
        good (written over Spark Connect) is read there."""
        records = self.records()
        names = {e.name for e in self.fs.list(self.uri)}
        out: list[str] = []
        for r in records:
            if kept_in_staging(r):
                out.extend(join(self.uri, final) for _, final in r.files)
            elif not r.files:
                continue  # no data (a batch of skips, or the lease's fence)
            elif self.batch_dir_name(r.batch_id) in names:
                out.extend(join(self.uri, final) for _, final in r.files)
            else:
                break  # committed, not yet published: later batches wait for it
        return out
