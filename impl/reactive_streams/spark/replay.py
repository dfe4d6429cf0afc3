"""Two replayable sources: line files with row offsets, and a partitioned log.

Both publish :class:`~reactive_streams.spark.positions.Positioned` envelopes whose
position is where a replay resumes *after* that record:

* :class:`FileSource`: ``{"done": [<names of files read whole>], "file": <name>,
  "row": <rows of that file done>}``: a *set of files done*, as Structured
  Streaming's file source keeps them, so a file that lands late in a directory is
  read once even if its name sorts before files already read. Files are read in the
  given order (a directory: its files by name), one record per line. The earlier
  format ``{"file", "row"}`` is still accepted: the files before ``file`` count as
  done.
* :class:`PartitionedLogSource`: ``{"<partition>": <next offset>, ...}`` over a
  :class:`PartitionedLog` (the shape of a Kafka topic: partition -> offset);
  :class:`MemoryLog` is an in-memory broker for tests.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from reactive_streams import sources
from reactive_streams.api import Publisher
from reactive_streams.executors import Executor, default_executor
from reactive_streams.spark.positions import Positioned

__all__ = ["FileSource", "MemoryLog", "PartitionedLog", "PartitionedLogSource"]


class _Replay:
    """An iterable calling ``make()`` per ``iter()`` (one generator per subscription)."""

    def __init__(self, make: Callable[[], Iterator[Positioned]]) -> None:
        self._make = make

    def __iter__(self) -> Iterator[Positioned]:
        return self._make()


_Plan = tuple[list[tuple[str, str, int]], set[str]]


class FileSource:
    """Records of line files (``parse(line)`` per line), replayable from a position.

    ``paths`` are files or directories (landing directories: listed at every
    subscription, their files matching ``pattern`` by name, hidden ``.``/``_``
    names skipped). The position keeps the set of files done, so a late file is
    read once wherever its name sorts."""

    def __init__(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        parse: Callable[[str], Any] = json.loads,
        pattern: str = "*",
        executor: Executor | None = None,
    ) -> None:
        if isinstance(paths, (str, bytes, os.PathLike)):  # one path, not its characters
            paths = [os.fspath(paths)]
        self.paths = [os.fspath(p) for p in paths]
        self.pattern = pattern
        self.parse = parse
        self.executor = executor
        self._listing()  # distinct names, checked now

    def _listing(self) -> list[tuple[str, str]]:
        """(name, path) of every input file now, in reading order."""
        out: list[tuple[str, str]] = []
        for p in self.paths:
            if os.path.isdir(p):
                for name in sorted(os.listdir(p)):
                    full = os.path.join(p, name)
                    if (
                        not name.startswith((".", "_"))
                        and fnmatch.fnmatch(name, self.pattern)
                        and os.path.isfile(full)
                    ):
                        out.append((name, full))
            else:
                out.append((os.path.basename(p), p))
        names = [n for n, _ in out]
        if len(set(names)) != len(names):
            raise ValueError(f"FileSource: file names must be distinct, got {names}")
        return out

    def _plan(self, position: Any | None) -> _Plan:
        """The files to read as (name, path, rows to skip), and the names done."""
        listing = self._listing()
        if position is None:
            return [(n, p, 0) for n, p in listing], set()
        keys = set(position) if isinstance(position, dict) else set()
        if keys not in ({"file", "row"}, {"done", "file", "row"}):
            raise ValueError(
                f"FileSource: position must be {{'done', 'file', 'row'}}, got {position!r}"
            )
        name, row = position["file"], position["row"]
        names = [n for n, _ in listing]
        if name not in names:
            raise ValueError(f"FileSource: position names {name!r}, not one of {names}")
        if not isinstance(row, int) or row < 0:
            raise ValueError(f"FileSource: position row must be an int >= 0, got {row!r}")
        at = names.index(name)
        if "done" in keys:
            done = position["done"]
            if not isinstance(done, list) or not all(isinstance(d, str) for d in done):
                raise ValueError(f"FileSource: position 'done' must list names, got {done!r}")
            finished = set(done)
        else:  # the earlier single-cursor format: every file before it is done
            finished = set(names[:at])
        rest = [(n, p, 0) for n, p in listing if n not in finished and n != name]
        return [(name, listing[at][1], row), *rest], finished

    def _records(self, position: Any | None) -> Iterator[Positioned]:
        plan, finished = self._plan(position)
        for name, path, to_skip in plan:
            done = sorted(finished)  # shared by this file's positions, never mutated
            try:
                fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
            except OSError as e:
                raise OSError(e.errno, f"FileSource: cannot open {path}: {e.strerror}") from e
            with fh:
                row = 0
                for line in fh:
                    row += 1
                    if row <= to_skip:
                        continue
                    position = {"done": done, "file": name, "row": row}
                    yield Positioned(position, self.parse(line))
                if row < to_skip:
                    raise ValueError(
                        f"FileSource: {path} has {row} rows, the position says {to_skip} were read"
                    )
            finished.add(name)

    def replay_from(self, position: Any | None) -> Publisher[Positioned]:
        self._plan(position)  # a bad position fails here, not in the subscriber
        return sources.from_iterable(
            _Replay(lambda: self._records(position)),
            executor=self.executor or default_executor(),
        )


class PartitionedLog(Protocol):
    """A Kafka-style topic: records by (partition, offset)."""

    def partitions(self) -> Sequence[int]: ...

    def end_offset(self, partition: int) -> int:
        """The offset the next appended record of ``partition`` will get."""
        ...

    def fetch(self, partition: int, offset: int, max_records: int) -> Sequence[Any]:
        """Records from ``offset`` on (at most ``max_records``)."""
        ...


class MemoryLog:
    """An in-memory partitioned log (a fake broker): ``append(partition, record)``."""

    def __init__(self, partitions: int) -> None:
        if partitions < 1:
            raise ValueError(f"MemoryLog: partitions must be >= 1, got {partitions}")
        self._data: list[list[Any]] = [[] for _ in range(partitions)]
        self.fetches = 0

    def append(self, partition: int, record: Any) -> int:
        self._data[partition].append(record)
        return len(self._data[partition]) - 1

    def partitions(self) -> Sequence[int]:
        return list(range(len(self._data)))

    def end_offset(self, partition: int) -> int:
        return len(self._data[partition])

    def fetch(self, partition: int, offset: int, max_records: int) -> Sequence[Any]:
        self.fetches += 1
        return self._data[partition][offset : offset + max_records]


class PartitionedLogSource:
    """Every record of ``log`` up to the end offsets seen at subscription, partitions
    interleaved in fetch-sized rounds; the position is the whole offset map."""

    def __init__(
        self, log: PartitionedLog, *, fetch_size: int = 500, executor: Executor | None = None
    ) -> None:
        if fetch_size < 1:
            raise ValueError(f"fetch_size must be >= 1, got {fetch_size}")
        self.log = log
        self.fetch_size = fetch_size
        self.executor = executor

    def _offsets(self, position: Any | None) -> dict[int, int]:
        parts = list(self.log.partitions())
        if position is None:
            return dict.fromkeys(parts, 0)
        if not isinstance(position, dict):
            raise ValueError(f"PartitionedLogSource: position must be a dict, got {position!r}")
        offsets = dict.fromkeys(parts, 0)
        for key, value in position.items():
            if not key.isdigit() or int(key) not in offsets:
                raise ValueError(f"PartitionedLogSource: unknown partition {key!r} in position")
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"PartitionedLogSource: offset of partition {key} is {value!r}")
            offsets[int(key)] = value
        return offsets

    def _records(self, position: Any | None) -> Iterator[Positioned]:
        offsets = self._offsets(position)
        ends = {p: self.log.end_offset(p) for p in offsets}
        while any(offsets[p] < ends[p] for p in offsets):
            for p in offsets:
                want = min(self.fetch_size, ends[p] - offsets[p])
                if want <= 0:
                    continue
                for record in self.log.fetch(p, offsets[p], want):
                    offsets[p] += 1
                    yield Positioned({str(q): o for q, o in offsets.items()}, record)

    def replay_from(self, position: Any | None) -> Publisher[Positioned]:
        self._offsets(position)
        return sources.from_iterable(
            _Replay(lambda: self._records(position)),
            executor=self.executor or default_executor(),
        )
