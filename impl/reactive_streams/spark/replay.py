"""Two replayable sources: line files with row offsets, and a partitioned log.

Both publish :class:`~reactive_streams.spark.positions.Positioned` envelopes whose
position is where a replay resumes *after* that record:

* :class:`FileSource`: ``{"file": <name>, "row": <rows of that file done>}``; files
  are read in the given order, one record per line.
* :class:`PartitionedLogSource`: ``{"<partition>": <next offset>, ...}`` over a
  :class:`PartitionedLog` (the shape of a Kafka topic: partition -> offset);
  :class:`MemoryLog` is an in-memory broker for tests.
"""

from __future__ import annotations

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


class FileSource:
    """Records of line files (``parse(line)`` per line), replayable from a position."""

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        *,
        parse: Callable[[str], Any] = json.loads,
        executor: Executor | None = None,
    ) -> None:
        self.paths = [os.fspath(p) for p in paths]
        names = [os.path.basename(p) for p in self.paths]
        if len(set(names)) != len(names):
            raise ValueError(f"FileSource: file names must be distinct, got {names}")
        self._names = names
        self.parse = parse
        self.executor = executor

    def _start(self, position: Any | None) -> tuple[int, int]:
        if position is None:
            return 0, 0
        if not isinstance(position, dict) or set(position) != {"file", "row"}:
            raise ValueError(f"FileSource: position must be {{'file', 'row'}}, got {position!r}")
        name, row = position["file"], position["row"]
        if name not in self._names:
            raise ValueError(f"FileSource: position names {name!r}, not one of {self._names}")
        if not isinstance(row, int) or row < 0:
            raise ValueError(f"FileSource: position row must be an int >= 0, got {row!r}")
        return self._names.index(name), row

    def _records(self, position: Any | None) -> Iterator[Positioned]:
        first, skip = self._start(position)
        for index in range(first, len(self.paths)):
            path, name = self.paths[index], self._names[index]
            to_skip = skip if index == first else 0
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
                    yield Positioned({"file": name, "row": row}, self.parse(line))
                if row < to_skip:
                    raise ValueError(
                        f"FileSource: {path} has {row} rows, the position says {to_skip} were read"
                    )

    def replay_from(self, position: Any | None) -> Publisher[Positioned]:
        self._start(position)  # a bad position fails here, not in the subscriber
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
