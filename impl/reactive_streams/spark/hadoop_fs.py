"""Table paths as URIs, and Hadoop's ``FileSystem`` through Spark's JVM (py4j).

Every file operation of the commit protocol goes through the same Hadoop
``FileSystem`` the executors write with, so it works wherever Spark can write
(``file://``, ``hdfs://``, ``s3a://``, ``abfs://``), with no shared POSIX path and
no driver-side ``os`` call. Every error names the operation and the path.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Entry", "HadoopFS", "java_message", "join", "table_uri"]


def table_uri(path: str) -> str:
    """``path`` as a URI: local paths become absolute ``file:`` URIs; any other scheme
    (``hdfs:/x``, ``s3a://bucket/y``) is kept as is, never treated as a local folder."""
    if not path:
        raise ValueError("a table path must not be empty")
    parts = urlsplit(path)
    scheme = parts.scheme.lower()
    if len(scheme) == 1:  # a Windows drive letter, not a scheme
        scheme = ""
    if not scheme:
        return "file://" + os.path.abspath(os.path.expanduser(path))
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"{path!r}: a file: URI must not name a host ({parts.netloc!r})")
        return "file://" + os.path.abspath(parts.path or "/")
    if not parts.path or parts.path == "/":
        raise ValueError(f"{path!r}: the table must be a directory below the filesystem root")
    return path.rstrip("/")


def join(uri: str, *names: str) -> str:
    """``uri`` with ``names`` appended as path segments."""
    return "/".join([uri.rstrip("/"), *names])


def java_message(error: BaseException) -> str:
    """The Java exception's ``toString`` for a py4j error, else the error's type and
    the first line of its message (a Connect error carries the JVM stack after it)."""
    java = getattr(error, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:  # the gateway may be gone
            pass
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else repr(error)


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    size: int


class HadoopFS:
    """The few ``FileSystem`` calls the commit log needs, for URIs under one session."""

    def __init__(self, spark: Any) -> None:
        try:
            self._jvm = spark._jvm
            self._conf = spark._jsc.hadoopConfiguration()
        except Exception as e:
            raise TypeError(
                "the commit log needs a classic SparkSession (py4j JVM access); "
                "Spark Connect sessions have none"
            ) from e

    def _path(self, uri: str) -> tuple[Any, Any]:
        path = self._jvm.org.apache.hadoop.fs.Path(uri)
        return path.getFileSystem(self._conf), path

    def _call(self, what: str, uri: str, fn: Any) -> Any:
        try:
            return fn()
        except OSError:
            raise
        except Exception as e:
            raise OSError(f"{what} {uri}: {java_message(e)}") from e

    def exists(self, uri: str) -> bool:
        def run() -> bool:
            fs, path = self._path(uri)
            return bool(fs.exists(path))

        return bool(self._call("exists", uri, run))

    def mkdirs(self, uri: str) -> None:
        def run() -> None:
            fs, path = self._path(uri)
            if not fs.mkdirs(path):
                raise OSError(f"mkdirs {uri}: the filesystem refused")

        self._call("mkdirs", uri, run)

    def list(self, uri: str) -> list[Entry]:
        """Entries of directory ``uri`` (empty if it does not exist)."""

        def run() -> list[Entry]:
            fs, path = self._path(uri)
            if not fs.exists(path):
                return []
            return [
                Entry(str(s.getPath().getName()), bool(s.isDirectory()), int(s.getLen()))
                for s in fs.listStatus(path)
            ]

        out: list[Entry] = self._call("list", uri, run)
        return out

    def files(self, uri: str) -> Sequence[Entry]:
        """Every visible file below directory ``uri``, recursively, named by its path
        relative to ``uri`` (``_``/``.``-prefixed names are skipped, as Spark does)."""

        def run() -> list[Entry]:
            fs, path = self._path(uri)
            if not fs.exists(path):
                return []
            base = str(fs.makeQualified(path).toUri().getPath()).rstrip("/")
            out = []
            found = fs.listFiles(path, True)
            while found.hasNext():
                status = found.next()
                full = str(status.getPath().toUri().getPath())
                rel = full[len(base) + 1 :] if full.startswith(base + "/") else full
                if not any(seg.startswith(("_", ".")) for seg in rel.split("/")):
                    out.append(Entry(rel, False, int(status.getLen())))
            return sorted(out, key=lambda e: e.name)

        found: Sequence[Entry] = self._call("list", uri, run)
        return found

    def read(self, uri: str) -> bytes:
        """The bytes of file ``uri``; of a directory (a record a Spark Connect sink
        wrote), its visible files' contents below it, in name order, one per line."""

        def content(fs: Any, path: Any) -> bytes:
            stream = fs.open(path)
            try:
                return bytes(self._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
            finally:
                stream.close()

        def run() -> bytes:
            fs, path = self._path(uri)
            if not fs.getFileStatus(path).isDirectory():
                return content(fs, path)
            # a Connect record: one candidate per subdirectory, one line each
            data = (
                content(fs, self._jvm.org.apache.hadoop.fs.Path(uri, e.name))
                for e in self.files(uri)
            )
            return b"\n".join(c.rstrip(b"\n") for c in data if c.strip())

        data: bytes = self._call("read", uri, run)
        return data

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        """Create ``uri`` holding ``data`` unless it exists; False if it already did."""

        def run() -> bool:
            fs, path = self._path(uri)
            if fs.exists(path):
                return False
            return self.create_new(fs, path, data)

        return bool(self._call("create", uri, run))

    @staticmethod
    def create_new(fs: Any, path: Any, data: bytes) -> bool:
        """``create(overwrite=false)`` of ``path``; False if it exists. HDFS refuses at
        the create call; WebHDFS only when the stream closes (its datanode step)."""
        try:
            out = fs.create(path, False)  # overwrite=False: create-if-absent
        except Exception as e:
            if "FileAlreadyExistsException" in java_message(e):
                return False
            raise
        try:
            try:
                out.write(bytearray(data))
                out.hsync()  # durable on HDFS before close returns
            finally:
                out.close()
        except Exception as e:
            if "FileAlreadyExistsException" in java_message(e):
                return False  # WebHDFS refuses at close: the file is another writer's
            # ours, cut short (a full disk): no 0-byte or partial record may stay
            with contextlib.suppress(Exception):
                fs.delete(path, False)
            raise
        return True

    def rename(self, src: str, dst: str) -> None:
        """Move ``src`` to ``dst`` (which must not exist): atomic on HDFS and
        ``file://``, a copy on object stores."""

        def run() -> None:
            fs, path = self._path(src)
            if not fs.rename(path, self._jvm.org.apache.hadoop.fs.Path(dst)):
                raise OSError(f"rename {src} to {dst}: the filesystem refused")

        self._call("rename", f"{src} to {dst}", run)

    def delete(self, uri: str, recursive: bool = True) -> None:
        def run() -> None:
            fs, path = self._path(uri)
            fs.delete(path, recursive)

        self._call("delete", uri, run)
