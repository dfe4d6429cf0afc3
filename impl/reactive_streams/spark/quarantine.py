"""Refused records kept aside (``SparkSink(bad_records=<dir>)``), exactly once.

A record the schema refuses is written, with the error and its place, as one JSON
line to ``<dir>/<sink_id>-<element offset:012d>.json``, and the stream goes on.
The name is the record's element offset, which a replay from the committed
position gives the same record again, and the file is created if absent, so a
record lands in quarantine once however often it is replayed. ``spark.read.json(dir)``
reads the quarantine as a table: ``sink_id``, ``offset``, ``position`` (JSON),
``error``, ``record`` (JSON).
"""

from __future__ import annotations

import builtins
import json
import os
from typing import Any, Protocol

from reactive_streams.spark.hadoop_fs import Entry, join, table_uri

__all__ = ["LocalFS", "Quarantine"]


class _FS(Protocol):
    def mkdirs(self, uri: str) -> None: ...

    def create_exclusive(self, uri: str, data: bytes) -> bool: ...


class LocalFS:
    """``file:`` URIs through ``os`` (for writers without a Hadoop filesystem)."""

    @staticmethod
    def _local(uri: str) -> str:
        if not uri.startswith("file://"):
            raise ValueError(f"{uri}: only file: URIs without a Spark filesystem")
        return uri[len("file://") :]

    def mkdirs(self, uri: str) -> None:
        os.makedirs(self._local(uri), exist_ok=True)

    def list(self, uri: str) -> builtins.list[Entry]:
        path = self._local(uri)
        if not os.path.isdir(path):
            return []
        return [
            Entry(e.name, e.is_dir(), 0 if e.is_dir() else e.stat().st_size)
            for e in os.scandir(path)
        ]

    def read(self, uri: str) -> bytes:
        with open(self._local(uri), "rb") as fh:
            return fh.read()

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        try:
            fd = os.open(self._local(uri), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return True


class Quarantine:
    """The refused records of one sink id under directory ``path``."""

    def __init__(self, fs: _FS | None, path: str, sink_id: str) -> None:
        self.fs: _FS = fs if fs is not None else LocalFS()
        self.uri = table_uri(path)
        self.sink_id = sink_id
        self.fs.mkdirs(self.uri)

    def put(self, offset: int, position: Any, error: BaseException, record: Any) -> bool:
        """Keep ``record`` (element ``offset``); False if a replay already kept it."""
        line = {
            "sink_id": self.sink_id,
            "offset": offset,
            "position": json.dumps(position, sort_keys=True, default=str),
            "error": str(error),
            "record": json.dumps(record, sort_keys=True, default=repr),
        }
        data = json.dumps(line, sort_keys=True).encode("utf-8")  # one line (Connect's rule)
        return self.fs.create_exclusive(join(self.uri, f"{self.sink_id}-{offset:012d}.json"), data)
