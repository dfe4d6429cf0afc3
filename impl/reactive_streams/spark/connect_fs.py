"""The commit log's file operations over Spark Connect, as Spark jobs (no py4j).

A Connect client has no Hadoop ``FileSystem``: every operation here is a small
Spark job that the server runs with its own Hadoop configuration, so it reaches
exactly what the executors write to (``file://`` on the server's disk, ``hdfs://``,
``s3a://``, ``abfs://``):

* *list* and *read*: the ``binaryFile`` source with ``recursiveFileLookup`` (only
  ``path`` and ``length`` are read for a listing). Spark hides names starting with
  ``_`` or ``.``, which is what the log wants (``_SUCCESS``, ``_temporary``, CRCs);
* *create*: a one-row text DataFrame written with ``coalesce(1)``, so a commit
  record is a directory holding one part file. Spark's job commit moves the part
  file into place whole, so a reader sees the record whole or not at all;
* *delete*: overwrite with an empty DataFrame. What is left (an empty part file and
  ``_SUCCESS``) lists as nothing, since an entry with no bytes does not exist here.

A plain file written by a classic session's log reads the same way, so a Connect
sink resumes a table a classic sink wrote. Each call costs a round trip and a job
(about 0.3 s on a small machine); the sink makes about four per batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from reactive_streams.spark.hadoop_fs import Entry

__all__ = ["ConnectFS"]


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
        data = b"".join(bytes(r["content"]) for r in rows)
        if not data:
            raise FileNotFoundError(f"read {uri}: no such file")
        return data.rstrip(b"\n")

    def read_many(self, uri: str) -> dict[str, bytes]:
        """The content of every non-empty entry of directory ``uri`` in one job."""
        base = _path_of(uri)
        parts: dict[str, list[tuple[str, bytes]]] = {}
        for row in self._load(uri, ("path", "content")):
            path = _path_of(str(row["path"]))
            if path.startswith(base + "/"):
                name = path[len(base) + 1 :].partition("/")[0]
                parts.setdefault(name, []).append((path, bytes(row["content"])))
        out = {n: b"".join(c for _, c in sorted(p)).rstrip(b"\n") for n, p in parts.items()}
        return {n: data for n, data in out.items() if data}

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        """Write ``data`` (one line of text) as the single part file of directory ``uri``
        unless ``uri`` already holds data; False if it did."""
        text = data.decode("utf-8")
        if "\n" in text:
            raise ValueError(f"create {uri}: a record over Spark Connect is one line of text")
        if self.exists(uri):
            return False
        # overwrite: replaces an attempt a crash cut short (it holds no visible file)
        self._write(uri, [(text,)], "create")
        return True

    def delete(self, uri: str, recursive: bool = True) -> None:
        self._write(uri, [], "delete")

    def _write(self, uri: str, rows: Sequence[tuple[str]], what: str) -> None:
        try:
            df = self.spark.createDataFrame(rows, "value string").coalesce(1)
            df.write.mode("overwrite").text(uri)
        except Exception as e:
            raise OSError(f"{what} {uri}: {_first_line(e)}") from e


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)
