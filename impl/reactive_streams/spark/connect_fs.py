"""The commit log's file operations over Spark Connect, as Spark jobs (no py4j).

A Connect client has no Hadoop ``FileSystem``: every operation here is a small
Spark job that the server runs with its own Hadoop configuration, so it reaches
exactly what the executors write to (``file://`` on the server's disk, ``hdfs://``,
``s3a://``, ``abfs://``):

* *list* and *read*: the ``binaryFile`` source with ``recursiveFileLookup`` (only
  ``path`` and ``length`` are read for a listing). Spark hides names starting with
  ``_`` or ``.``, which is what the log wants (``_SUCCESS``, ``_temporary``, CRCs);
* *create*: a one-row text DataFrame written with ``coalesce(1)`` into a fresh
  subdirectory of the record, so a commit record is a directory of *candidates*, one
  part file each. Spark's job commit moves a part file into place whole, so a reader
  sees a candidate whole or not at all; no job overwrites another's candidate, and
  the commit log resolves several by lease epoch (see :meth:`ConnectFS.create_exclusive`);
* *delete*: overwrite with an empty DataFrame. What is left (an empty part file and
  ``_SUCCESS``) lists as nothing, since an entry with no bytes does not exist here.

A plain file written by a classic session's log reads the same way, so a Connect
sink resumes a table a classic sink wrote. Each call costs a round trip and a job
(about 0.3 s on a small machine); the sink makes about five per batch.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from reactive_streams.spark.hadoop_fs import Entry, join

__all__ = ["ConnectFS"]

Parts = list[tuple[str, bytes]]  # (candidate subdirectory, content)


def _path_of(uri: str) -> str:
    return urlsplit(uri).path.rstrip("/")


def _not_found(error: BaseException) -> bool:
    condition = getattr(error, "getCondition", None)
    try:
        if condition is not None and condition() == "PATH_NOT_FOUND":
            return True
    except Exception:
        pass
    return "PATH_NOT_FOUND" in str(error)


class ConnectFS:
    """The ``FileSystem`` calls :class:`~reactive_streams.spark.commit_log.CommitLog`
    needs, run as Spark jobs through a Spark Connect session."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark

    def _load(self, uri: str, columns: Iterable[str]) -> list[Any]:
        try:
            reader = self.spark.read.format("binaryFile").option("recursiveFileLookup", "true")
            return list(reader.load(uri).select(*columns).collect())
        except Exception as e:
            if _not_found(e):
                return []
            raise OSError(f"list {uri}: {_first_line(e)}") from e

    def _files(self, uri: str) -> list[tuple[str, int]]:
        """(path below ``uri``, size) of every visible file; ``""`` names ``uri`` itself."""
        base = _path_of(uri)
        out = []
        for row in self._load(uri, ("path", "length")):
            path = _path_of(str(row["path"]))
            rel = path[len(base) + 1 :] if path.startswith(base + "/") else ""
            out.append((rel, int(row["length"])))
        return out

    def exists(self, uri: str) -> bool:
        return sum(size for _, size in self._files(uri)) > 0

    def mkdirs(self, uri: str) -> None:
        """Nothing to do: a Spark write creates the directories it needs."""

    def list(self, uri: str) -> list[Entry]:
        sizes: dict[str, int] = {}
        dirs: set[str] = set()
        for rel, size in self._files(uri):
            if not rel:
                continue  # ``uri`` is a file, not a directory
            name, _, rest = rel.partition("/")
            sizes[name] = sizes.get(name, 0) + size
            if rest:
                dirs.add(name)
        return [Entry(n, n in dirs, s) for n, s in sorted(sizes.items()) if s > 0]

    def files(self, uri: str) -> Sequence[Entry]:
        """Every visible, non-empty file below ``uri``, named relative to it."""
        return [Entry(rel, False, size) for rel, size in sorted(self._files(uri)) if size > 0]

    def read(self, uri: str) -> bytes:
        rows = sorted(self._load(uri, ("path", "content")), key=lambda r: str(r["path"]))
        data = _lines(bytes(r["content"]) for r in rows)
        if not data:
            raise FileNotFoundError(f"read {uri}: no such file")
        return data

    def read_many(self, uri: str) -> dict[str, bytes]:
        """The content of every non-empty entry of directory ``uri`` in one job."""
        parts = self.read_parts(uri)
        out = {n: _lines(c for _, c in sorted(p)) for n, p in parts.items()}
        return {n: data for n, data in out.items() if data}

    def read_parts(self, uri: str) -> dict[str, Parts]:
        """Each entry of directory ``uri``: its non-empty candidates as (the
        subdirectory below the entry holding it, or "" for a plain file; content)."""
        base = _path_of(uri)
        parts: dict[str, Parts] = {}
        for row in self._load(uri, ("path", "content")):
            path = _path_of(str(row["path"]))
            content = bytes(row["content"])
            if path.startswith(base + "/") and content.strip():
                name, _, rest = path[len(base) + 1 :].partition("/")
                parts.setdefault(name, []).append((rest.partition("/")[0], content))
        return parts

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        """Add ``data`` (one line of text) as a *candidate* of record ``uri``: its own
        part file in a fresh subdirectory, so no job ever overwrites or deletes another
        writer's candidate. True if ``uri`` then holds no other content, else False.

        There is no atomic create-if-absent over Connect (a check, then a write, lets a
        late server-side job, e.g. a killed client's, replace what another writer
        created). So a record may hold several candidates, and the commit log picks the
        winner by lease epoch, whatever order the jobs landed in (``commit_log``)."""
        text = data.decode("utf-8")
        if "\n" in text:
            raise ValueError(f"create {uri}: a record over Spark Connect is one line of text")
        try:
            self._write(join(uri, uuid.uuid4().hex), [(text,)], "create", "error")
        except OSError:
            if self._files(uri):  # ``uri`` is a plain file (a classic sink's record)
                return False
            raise
        return set(self.read(uri).split(b"\n")) == {data}

    def delete(self, uri: str, recursive: bool = True) -> None:
        self._write(uri, [], "delete")

    def _write(
        self, uri: str, rows: Sequence[tuple[str]], what: str, mode: str = "overwrite"
    ) -> None:
        try:
            df = self.spark.createDataFrame(rows, "value string").coalesce(1)
            df.write.mode(mode).text(uri)
        except Exception as e:
            raise OSError(f"{what} {uri}: {_first_line(e)}") from e


def _lines(contents: Iterable[bytes]) -> bytes:
    """The non-empty files' contents, one per line (a record's candidates)."""
    return b"\n".join(c.rstrip(b"\n") for c in contents if c.strip())


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)
