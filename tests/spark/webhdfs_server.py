"""A small WebHDFS REST server (Hadoop's ``webhdfs://`` scheme) over a private
directory, for testing the sink on a filesystem reached only over the network.

    python tests/spark/webhdfs_server.py --store DIR [--port 0] [--private-mount]
    # prints "webhdfs listening on 127.0.0.1:<port>", then serves until killed

It speaks the part of the WebHDFS REST API that Hadoop's ``WebHdfsFileSystem``
client uses for Spark's Parquet write, ``FileOutputCommitter`` and the sink's commit
log, with HDFS semantics where they matter for a commit protocol:

- ``CREATE``/``APPEND``/``OPEN`` take two steps: the "namenode" answers 307 (or a
  ``{"Location": ...}`` body with ``noredirect=true``) to a "datanode" URL on the
  same server, which moves the bytes. ``CREATE`` with ``overwrite=false`` on an
  existing path fails with ``FileAlreadyExistsException`` (atomically: the file is
  made with ``O_EXCL``); a create cut short leaves the bytes written so far, as
  HDFS does after lease recovery.
- ``RENAME`` is HDFS's: atomic under one namespace lock; a destination that is a
  directory receives the source inside it; an existing file destination, a missing
  source or a missing destination parent answer ``false``. With ``renameoptions``
  (``rename2``) an existing destination is ``FileAlreadyExistsException`` unless
  ``OVERWRITE``.
- ``DELETE`` of a non-empty directory needs ``recursive=true``.
- Permissions as HDFS checks them: changing a directory's entries (create, mkdirs,
  rename, delete) needs WRITE+EXECUTE on it (``SETPERMISSION`` sets the bits; one
  user owns everything), else ``AccessControlException`` naming the inode.
- JSON answers carry no ``Content-Type`` header. A NameNode sends
  ``application/json``, but the shaded ``hadoop-client-api`` jar that pyspark ships
  parses that header with a JAX-RS class whose implementation it does not bundle
  (``ClassNotFoundException: ...shaded.org.glassfish.jersey.internal.RuntimeDelegateImpl``);
  without the header the client skips the check.
- Errors are ``RemoteException`` JSON with the Java class the client rethrows
  (404 ``FileNotFoundException``, 403 ``FileAlreadyExistsException``/
  ``AccessControlException``/``IOException``, 400 ``IllegalArgumentException``).

``--private-mount`` mounts a tmpfs over ``--store`` first; started under
``unshare --mount`` (see :func:`start`), only this process sees the table bytes:
the directory stays empty for every other process on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

__all__ = ["RemoteError", "Store", "WebHdfsServer", "can_unshare", "serve", "start"]

PREFIX = "/webhdfs/v1"
BLOCK_SIZE = 128 * 1024 * 1024
BYTES_PER_CRC = 512
LIST_LIMIT = 1000  # dfs.ls.limit: entries per LISTSTATUS_BATCH answer


class RemoteError(Exception):
    """An error the server answers as WebHDFS ``RemoteException`` JSON."""

    def __init__(self, status: int, java_class: str, message: str) -> None:
        super().__init__(message)
        self.status, self.java_class, self.message = status, java_class, message

    def body(self) -> dict[str, Any]:
        return {
            "RemoteException": {
                "exception": self.java_class.rsplit(".", 1)[-1],
                "javaClassName": self.java_class,
                "message": self.message,
            }
        }


def not_found(path: str) -> RemoteError:
    return RemoteError(404, "java.io.FileNotFoundException", f"File does not exist: {path}")


def already_exists(message: str) -> RemoteError:
    return RemoteError(403, "org.apache.hadoop.fs.FileAlreadyExistsException", message)


def io_error(message: str) -> RemoteError:
    return RemoteError(403, "java.io.IOException", message)


def bad_param(name: str, value: str, why: str) -> RemoteError:
    return RemoteError(
        400,
        "java.lang.IllegalArgumentException",
        f'Invalid value for webhdfs parameter "{name}": {value!r}: {why}',
    )


@dataclass
class Store:
    """The namespace: HDFS paths (``/a/b``) over the local directory ``root``."""

    root: Path
    user: str = "root"

    def __post_init__(self) -> None:
        self.lock = threading.RLock()  # the NameNode's namespace lock
        self.root.mkdir(parents=True, exist_ok=True)

    def local(self, path: str) -> Path:
        parts = [p for p in path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise bad_param("path", path, "'.' and '..' are not allowed")
        return self.root.joinpath(*parts)

    def status(self, local: Path, suffix: str) -> dict[str, Any]:
        st = local.lstat()
        is_dir = stat.S_ISDIR(st.st_mode)
        return {
            "accessTime": 0 if is_dir else int(st.st_atime * 1000),
            "blockSize": 0 if is_dir else BLOCK_SIZE,
            "childrenNum": len(os.listdir(local)) if is_dir else 0,
            "fileId": st.st_ino,
            "group": "supergroup",
            "length": 0 if is_dir else st.st_size,
            "modificationTime": int(st.st_mtime * 1000),
            "owner": self.user,
            "pathSuffix": suffix,
            "permission": format(st.st_mode & 0o777, "o"),
            "replication": 0 if is_dir else 1,
            "storagePolicy": 0,
            "type": "DIRECTORY" if is_dir else "FILE",
        }

    def existing(self, path: str) -> Path:
        local = self.local(path)
        if not local.exists():
            raise not_found(path)
        return local

    def listing(self, path: str) -> list[dict[str, Any]]:
        local = self.existing(path)
        if not local.is_dir():
            return [self.status(local, "")]
        return [self.status(local / name, name) for name in sorted(os.listdir(local))]

    def writable(self, directory: Path) -> None:
        """HDFS's permission check for changing a directory's entries: WRITE and
        EXECUTE on it (one user owns every inode here, so the owner bits decide)."""
        mode = directory.stat().st_mode
        if (mode & 0o300) != 0o300:
            rel = "/" + directory.relative_to(self.root).as_posix().lstrip(".")
            perms = stat.filemode(mode)
            raise RemoteError(
                403,
                "org.apache.hadoop.security.AccessControlException",
                f"Permission denied: user={self.user}, access=WRITE, "
                f'inode="{rel.rstrip("/") or "/"}":{self.user}:supergroup:{perms}',
            )

    def check_parents(self, path: str, *, create: bool) -> None:
        """Every ancestor of ``path`` is a directory (made if ``create``)."""
        local = self.root
        parts = [p for p in path.split("/") if p][:-1]
        for k, name in enumerate(parts):
            local = local / name
            if local.exists() and not local.is_dir():
                raise RemoteError(
                    403,
                    "org.apache.hadoop.fs.ParentNotDirectoryException",
                    f"/{'/'.join(parts[: k + 1])} (is not a directory)",
                )
            if not local.exists():
                if not create:
                    raise not_found("/" + "/".join(parts[: k + 1]))
                self.writable(local.parent)
                local.mkdir()

    def mkdirs(self, path: str) -> bool:
        with self.lock:
            local = self.local(path)
            self.check_parents(path + "/x", create=True)
            if not local.is_dir():
                raise already_exists(f"Path is not a directory: {path}")
            return True

    def open_for_create(self, path: str, overwrite: bool) -> Any:
        """The new file's handle; made atomically (``O_EXCL``) under the lock."""
        with self.lock:
            local = self.local(path)
            if local.is_dir():
                raise already_exists(f"{path} already exists as a directory")
            self.check_parents(path, create=True)
            self.writable(local.parent)
            if local.exists():
                if not overwrite:
                    raise already_exists(f"{path} for client 127.0.0.1 already exists")
                local.unlink()
            fd = os.open(local, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            return os.fdopen(fd, "wb")

    def open_for_append(self, path: str) -> Any:
        with self.lock:
            local = self.existing(path)
            if local.is_dir():
                raise io_error(f"Cannot append to directory {path}")
            return open(local, "ab")

    def rename(self, src: str, dst: str) -> bool:
        """HDFS's ``rename(src, dst)``: False where HDFS answers false."""
        with self.lock:
            s, d = self.local(src), self.local(dst)
            if not s.exists() or s == self.root:
                return False
            if d == s:
                return True
            if d.is_dir():
                d = d / s.name
            if d.exists() or d == s or str(d).startswith(str(s) + os.sep):
                return False
            if not d.parent.is_dir():
                return False
            self.writable(s.parent)
            self.writable(d.parent)
            os.rename(s, d)
            return True

    def rename2(self, src: str, dst: str, overwrite: bool) -> None:
        """HDFS's ``rename(src, dst, options)``: errors instead of false."""
        with self.lock:
            s, d = self.local(src), self.local(dst)
            if not s.exists():
                raise not_found(src)
            if str(d).startswith(str(s) + os.sep) or d == s:
                raise io_error(f"Rename destination {dst} is a directory or file under source")
            if d.exists():
                if not overwrite:
                    raise already_exists(f"rename destination {dst} already exists")
                if d.is_dir() != s.is_dir():
                    raise io_error(f"Source {src} and destination {dst} must both be directories")
                if d.is_dir() and os.listdir(d):
                    raise io_error(f"rename destination directory is not empty: {dst}")
            self.check_parents(dst, create=False)
            self.writable(s.parent)
            self.writable(d.parent)
            if d.is_dir():
                d.rmdir()  # an empty directory is replaced (checked above)
            os.replace(s, d)

    def delete(self, path: str, recursive: bool) -> bool:
        with self.lock:
            local = self.local(path)
            if local == self.root or not local.exists():
                return False
            self.writable(local.parent)
            if local.is_dir():
                if os.listdir(local) and not recursive:
                    raise RemoteError(
                        403,
                        "org.apache.hadoop.fs.PathIsNotEmptyDirectoryException",
                        f"`{path} is non empty': Directory is not empty",
                    )
                shutil.rmtree(local)
            else:
                local.unlink()
            return True

    def checksum(self, path: str) -> dict[str, Any]:
        """HDFS's MD5-of-MD5-of-CRC32 file checksum (CRC32 per 512 bytes, MD5 per
        block, MD5 over the block MD5s), as ``DFSClient.getFileChecksum`` gives."""
        local = self.existing(path)
        if local.is_dir():
            raise not_found(path)
        block_md5s = b""
        blocks = 0
        with open(local, "rb") as fh:
            while block := fh.read(BLOCK_SIZE):
                crcs = b"".join(
                    struct.pack(">I", zlib.crc32(block[i : i + BYTES_PER_CRC]))
                    for i in range(0, len(block), BYTES_PER_CRC)
                )
                block_md5s += hashlib.md5(crcs).digest()
                blocks += 1
        # DFSClient reports CRCs per block only for a file of more than one block
        crc_per_block = BLOCK_SIZE // BYTES_PER_CRC if blocks > 1 else 0
        md5 = hashlib.md5(block_md5s).digest()
        raw = struct.pack(">iq", BYTES_PER_CRC, crc_per_block) + md5
        return {
            "FileChecksum": {
                "algorithm": f"MD5-of-{crc_per_block}MD5-of-{BYTES_PER_CRC}CRC32",
                "bytes": raw.hex(),
                "length": len(raw),
            }
        }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: WebHdfsServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ----------------------------------------------------------------
    def _params(self) -> tuple[str, dict[str, str]]:
        parts = urlsplit(self.path)
        if not parts.path.startswith(PREFIX):
            raise RemoteError(404, "java.io.FileNotFoundException", f"no such URL {parts.path}")
        path = unquote(parts.path[len(PREFIX) :]) or "/"
        params = {k.lower(): v[-1] for k, v in parse_qs(parts.query).items()}
        return path, params

    def _body_chunks(self) -> Iterator[bytes]:
        self.body_read = True
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return
                data = self.rfile.read(size)
                if len(data) < size:
                    raise ConnectionError("request body cut short")
                self.rfile.readline()
                yield data
        else:
            left = int(self.headers.get("Content-Length") or 0)
            while left > 0:
                data = self.rfile.read(min(left, 1 << 16))
                if not data:
                    raise ConnectionError("request body cut short")
                left -= len(data)
                yield data

    def _send(
        self,
        status: int,
        body: bytes = b"",
        ctype: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        if ctype:  # JSON goes without one: see the module docstring
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: Any, status: int = 200) -> None:
        self._send(status, json.dumps(obj).encode())

    def _redirect(self, params: dict[str, str]) -> None:
        """The namenode step: point the client at the datanode URL (307)."""
        query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items() if k != "noredirect")
        url = f"http://{self.server.host}:{self.server.port}{urlsplit(self.path).path}"
        url += f"?{query}&datanode=true"
        if params.get("noredirect", "false").lower() == "true":
            self._json({"Location": url})
        else:
            self._send(307, headers={"Location": url})

    def _dispatch(self, method: str) -> None:
        op = "?"
        path = "?"
        self.body_read = False
        try:
            path, params = self._params()
            op = params.get("op", "").upper()
            self.server.record(method, op, path)
            handler = getattr(self, f"_{method}_{op}", None)
            if handler is None:
                raise bad_param(
                    "op", op, f"No enum constant for HTTP {method} (unsupported operation)"
                )
            handler(path, params)
        except RemoteError as e:
            self._drain()
            self._json(e.body(), e.status)
        except (ConnectionError, BrokenPipeError):
            self.close_connection = True
        except Exception as e:  # a bug in this server: tell the client, keep serving
            self._drain()
            err = RemoteError(500, "java.io.IOException", f"{op} {path}: {e!r}")
            self._json(err.body(), 500)

    def _drain(self) -> None:
        """Read an unread request body, so the client gets the answer; after a body
        read in part, the connection cannot be reused."""
        if self.body_read:
            self.close_connection = True
            return
        with contextlib.suppress(Exception):
            for _ in self._body_chunks():
                pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    @staticmethod
    def _flag(params: dict[str, str], name: str, default: bool = False) -> bool:
        value = params.get(name)
        if value is None:
            return default
        if value.lower() not in ("true", "false"):
            raise bad_param(name, value, "expected true or false")
        return value.lower() == "true"

    @staticmethod
    def _int(params: dict[str, str], name: str, default: int | None) -> int | None:
        value = params.get(name)
        if value in (None, "", "null"):
            return default
        try:
            n = int(value)
        except ValueError:
            raise bad_param(name, value, "expected an integer") from None
        if n < 0:
            raise bad_param(name, value, "must be >= 0")
        return n

    # -- GET -----------------------------------------------------------------------
    def _GET_GETFILESTATUS(self, path: str, params: dict[str, str]) -> None:
        store = self.server.store
        with store.lock:
            self._json({"FileStatus": store.status(store.existing(path), "")})

    def _GET_LISTSTATUS(self, path: str, params: dict[str, str]) -> None:
        with self.server.store.lock:
            self._json({"FileStatuses": {"FileStatus": self.server.store.listing(path)}})

    def _GET_LISTSTATUS_BATCH(self, path: str, params: dict[str, str]) -> None:
        after = params.get("startafter", "")
        with self.server.store.lock:
            entries = [e for e in self.server.store.listing(path) if e["pathSuffix"] > after]
        limit = self.server.list_limit
        part, rest = entries[:limit], entries[limit:]
        self._json(
            {
                "DirectoryListing": {
                    "partialListing": {"FileStatuses": {"FileStatus": part}},
                    "remainingEntries": len(rest),
                }
            }
        )

    def _GET_GETFILEBLOCKLOCATIONS(self, path: str, params: dict[str, str]) -> None:
        local = self.server.store.existing(path)
        size = local.stat().st_size if local.is_file() else 0
        offset = self._int(params, "offset", 0) or 0
        length = self._int(params, "length", size)
        end = min(size, offset + (size if length is None else length))
        name = f"{self.server.host}:{self.server.port}"
        blocks = []
        for start in range(0, size, BLOCK_SIZE):
            stop = min(size, start + BLOCK_SIZE)
            if stop > offset and start < max(end, offset + 1):
                blocks.append(
                    {
                        "cachedHosts": [],
                        "corrupt": False,
                        "hosts": [self.server.host],
                        "length": stop - start,
                        "names": [name],
                        "offset": start,
                        "storageTypes": ["DISK"],
                        "topologyPaths": [f"/default-rack/{name}"],
                    }
                )
        self._json({"BlockLocations": {"BlockLocation": blocks}})

    def _GET_GETHOMEDIRECTORY(self, path: str, params: dict[str, str]) -> None:
        self._json({"Path": f"/user/{params.get('user.name', self.server.store.user)}"})

    def _GET_GETSERVERDEFAULTS(self, path: str, params: dict[str, str]) -> None:
        self._json(
            {
                "FsServerDefaults": {
                    "blockSize": BLOCK_SIZE,
                    "bytesPerChecksum": BYTES_PER_CRC,
                    "writePacketSize": 65536,
                    "replication": 1,
                    "fileBufferSize": 4096,
                    "encryptDataTransfer": False,
                    "trashInterval": 0,
                    "checksumType": 1,  # DataChecksum.Type.CRC32
                    "keyProviderUri": "",
                    "defaultStoragePolicyId": 7,
                }
            }
        )

    def _GET_GETCONTENTSUMMARY(self, path: str, params: dict[str, str]) -> None:
        local = self.server.store.existing(path)
        files = dirs = length = 0
        for p in [local, *local.rglob("*")]:
            if p.is_dir():
                dirs += 1
            else:
                files += 1
                length += p.stat().st_size
        self._json(
            {
                "ContentSummary": {
                    "directoryCount": dirs,
                    "fileCount": files,
                    "length": length,
                    "quota": -1,
                    "spaceConsumed": length,
                    "spaceQuota": -1,
                }
            }
        )

    def _GET_GETFILECHECKSUM(self, path: str, params: dict[str, str]) -> None:
        if "datanode" not in params:
            self.server.store.existing(path)
            return self._redirect(params)
        self._json(self.server.store.checksum(path))

    def _GET_OPEN(self, path: str, params: dict[str, str]) -> None:
        store = self.server.store
        local = store.existing(path)
        if local.is_dir():
            raise not_found(path)
        if "datanode" not in params:
            return self._redirect(params)
        offset = self._int(params, "offset", 0) or 0
        length = self._int(params, "length", None)
        with open(local, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if offset > size:
                raise io_error(f"Offset={offset} out of the range [0, {size}); OPEN, path={path}")
            fh.seek(offset)
            data = fh.read(size - offset if length is None else length)
        self._send(200, data, "application/octet-stream")

    # -- PUT / POST ----------------------------------------------------------------
    def _PUT_MKDIRS(self, path: str, params: dict[str, str]) -> None:
        self._json({"boolean": self.server.store.mkdirs(path)})

    def _PUT_CREATE(self, path: str, params: dict[str, str]) -> None:
        overwrite = self._flag(params, "overwrite")
        if "datanode" not in params:
            self.server.store.local(path)
            return self._redirect(params)
        out = self.server.store.open_for_create(path, overwrite)
        self._receive(out, path)
        self._send(201, headers={"Location": f"hdfs://{self.server.host}{quote(path)}"})

    def _POST_APPEND(self, path: str, params: dict[str, str]) -> None:
        if "datanode" not in params:
            self.server.store.existing(path)
            return self._redirect(params)
        self._receive(self.server.store.open_for_append(path), path)
        self._send(200, ctype="application/octet-stream")

    def _receive(self, out: Any, path: str) -> None:
        with out:
            for chunk in self._body_chunks():
                out.write(chunk)
                out.flush()

    def _PUT_RENAME(self, path: str, params: dict[str, str]) -> None:
        dst = params.get("destination")
        if not dst or not dst.startswith("/"):
            raise bad_param("destination", dst or "", "must be an absolute path")
        options = params.get("renameoptions")
        if options is None:
            return self._json({"boolean": self.server.store.rename(path, dst)})
        names = {o.strip().upper() for o in options.split(",") if o.strip()}
        if not names <= {"NONE", "OVERWRITE", "TO_TRASH"}:
            raise bad_param("renameoptions", options, "expected NONE, OVERWRITE or TO_TRASH")
        self.server.store.rename2(path, dst, "OVERWRITE" in names)
        self._send(200, ctype="application/octet-stream")

    def _PUT_SETPERMISSION(self, path: str, params: dict[str, str]) -> None:
        local = self.server.store.existing(path)
        value = params.get("permission", "755")
        try:
            os.chmod(local, int(value, 8))
        except ValueError:
            raise bad_param("permission", value, "expected an octal mode") from None
        self._send(200, ctype="application/octet-stream")

    def _PUT_SETOWNER(self, path: str, params: dict[str, str]) -> None:
        self.server.store.existing(path)  # one user: owner and group are not stored
        self._send(200, ctype="application/octet-stream")

    def _PUT_SETTIMES(self, path: str, params: dict[str, str]) -> None:
        local = self.server.store.existing(path)
        st = local.stat()
        mtime = self._int(params, "modificationtime", None)
        atime = self._int(params, "accesstime", None)
        os.utime(
            local,
            (
                st.st_atime if atime is None else atime / 1000,
                st.st_mtime if mtime is None else mtime / 1000,
            ),
        )
        self._send(200, ctype="application/octet-stream")

    def _PUT_SETREPLICATION(self, path: str, params: dict[str, str]) -> None:
        local = self.server.store.local(path)
        self._json({"boolean": local.is_file()})

    # -- DELETE ----------------------------------------------------------------------
    def _DELETE_DELETE(self, path: str, params: dict[str, str]) -> None:
        recursive = self._flag(params, "recursive")
        self._json({"boolean": self.server.store.delete(path, recursive)})


class WebHdfsServer(ThreadingHTTPServer):
    """The server: ``store`` behind ``http://host:port/webhdfs/v1``; every request's
    (method, op, path) is kept in ``ops`` (and appended to ``log`` if given)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        store: Store,
        host: str = "127.0.0.1",
        port: int = 0,
        log: Any = None,
        list_limit: int = LIST_LIMIT,
    ):
        super().__init__((host, port), Handler)
        self.list_limit = list_limit
        self.store = store
        self.host = host
        self.port = int(self.server_address[1])
        self.ops: list[tuple[str, str, str]] = []
        self._log = log
        self._log_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that died mid-request (the chaos harness kills them) is no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def record(self, method: str, op: str, path: str) -> None:
        with self._log_lock:
            self.ops.append((method, op, path))
            if self._log is not None:
                self._log.write(f"{method} {op} {path}\n")
                self._log.flush()


def serve(
    store: Path, port: int = 0, log: Path | None = None, list_limit: int = LIST_LIMIT
) -> None:
    """Serve ``store`` until killed; print the port when ready."""
    logfile = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115
    server = WebHdfsServer(Store(store), port=port, log=logfile, list_limit=list_limit)
    print(f"webhdfs listening on 127.0.0.1:{server.port}", flush=True)
    server.serve_forever()


@contextlib.contextmanager
def start(
    store: Path,
    *,
    private_mount: bool = False,
    log: Path | None = None,
    list_limit: int = LIST_LIMIT,
    timeout: float = 30.0,
) -> Iterator[str]:
    """Run the server as a child process; yield ``webhdfs://127.0.0.1:<port>``.

    With ``private_mount`` the child runs in its own mount namespace with a tmpfs
    over ``store``, so no other process (driver, workers) can see the table's bytes.
    """
    store.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, __file__, "--store", str(store), "--list-limit", str(list_limit)]
    if log is not None:
        cmd += ["--log", str(log)]
    if private_mount:
        cmd = ["unshare", "--mount", "--propagation", "private", *cmd, "--private-mount"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout
        line = b""
        while time.monotonic() < deadline and not line:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"webhdfs server exited ({proc.returncode}) before listening")
        text = line.decode().strip()
        if not text.startswith("webhdfs listening on "):
            raise RuntimeError(f"webhdfs server: unexpected first line {text!r}")
        yield "webhdfs://" + text.rsplit(" ", 1)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=15)
        if proc.stdout is not None:
            proc.stdout.close()


def can_unshare() -> bool:
    """Whether this process may start a child in its own mount namespace with a tmpfs."""
    try:
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "t", "/mnt"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--list-limit", type=int, default=LIST_LIMIT)
    parser.add_argument("--private-mount", action="store_true")
    opts = parser.parse_args(argv)
    if opts.private_mount:
        opts.store.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4g,mode=0700", "webhdfs-store", str(opts.store)],
            check=True,
        )
    serve(opts.store, opts.port, opts.log, opts.list_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
