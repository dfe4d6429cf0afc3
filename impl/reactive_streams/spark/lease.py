"""One writer per ``(table, sink_id)``: a lease with an epoch, taken by create-if-absent.

Layout beside the commit records (``_rs_sink/<sink>/lease/``)::

    <epoch:012d>.json       who took epoch ``epoch`` (holder, host, pid, time)
    <epoch:012d>.beat       the holder's last heartbeat (a wall-clock time)
    <epoch:012d>.released   the holder ended cleanly

A writer takes epoch ``e + 1`` by *creating* ``<e+1>.json`` if absent (Hadoop
``create(overwrite=false)``: atomic at the NameNode; over Spark Connect, adding a
candidate and winning only if it is the only one), so of two writers that start
together at most one wins and the other gets :class:`LeaseHeld` naming the
winner. A live holder (heartbeat younger than ``ttl_s``, its process alive when
on this host) is never taken over unless ``takeover=True``. The lease alone
fences nothing: the commit log's *fence record* does (see ``CommitLog.acquire``),
so a zombie whose lease was taken over cannot commit.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from reactive_streams.spark.hadoop_fs import join

__all__ = ["Lease", "LeaseHeld", "LeaseInfo", "LeaseLost"]

log = logging.getLogger("reactive_streams.spark")

_LEASE_NAME = re.compile(r"([0-9]{12})\.json", re.ASCII)


class LeaseHeld(RuntimeError):
    """Another writer holds the sink id (one writer per (path, sink_id))."""


class LeaseLost(RuntimeError):
    """This writer's lease was taken over: its commits are refused (it is fenced)."""


@dataclass(frozen=True)
class LeaseInfo:
    epoch: int
    holder: str
    host: str
    pid: int
    taken: float

    def describe(self) -> str:
        return f"{self.holder} (host {self.host}, pid {self.pid}, epoch {self.epoch})"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


class Lease:
    """The lease files of one sink id (``fs`` as in ``commit_log.FileSystem``)."""

    def __init__(
        self,
        fs: Any,
        sink_dir: str,
        *,
        ttl_s: float = 30.0,
        host: str | None = None,
        pid: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not ttl_s > 0:
            raise ValueError(f"lease_ttl_s must be > 0 seconds, got {ttl_s!r}")
        self.fs = fs
        self.dir = join(sink_dir, "lease")
        self.ttl_s = ttl_s
        self.host = host if host is not None else socket.gethostname()
        self.pid = pid if pid is not None else os.getpid()
        self.clock = clock
        self.mine: LeaseInfo | None = None
        self.newest = -1  # the newest epoch taken, readable or not (``latest``)
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None

    def _uri(self, epoch: int, ext: str) -> str:
        return join(self.dir, f"{epoch:012d}.{ext}")

    def latest(self) -> tuple[LeaseInfo | None, bool]:
        """The newest readable lease and whether its holder released it."""
        names = [e.name for e in self.fs.list(self.dir)]
        epochs = sorted(int(m.group(1)) for n in names if (m := _LEASE_NAME.fullmatch(n)))
        self.newest = epochs[-1] if epochs else -1
        for epoch in reversed(epochs):
            try:
                info = self._read(epoch)
            except (ValueError, TypeError, KeyError):
                continue  # a create cut short (a full disk, a kill): it never started
            return info, f"{epoch:012d}.released" in names
        return None, False

    def _read(self, epoch: int) -> LeaseInfo:
        # over Spark Connect a lease may hold several candidates, one a line: the first
        text = self.fs.read(self._uri(epoch, "json")).decode("utf-8").split("\n")[0]
        return LeaseInfo(**json.loads(text))

    def live(self, info: LeaseInfo) -> bool:
        """Is ``info``'s holder still writing? Its heartbeat is younger than ``ttl_s``
        and, on this host, its process exists (this process's own earlier writer is
        not live: a restart in-process takes over, and fencing stops the old one)."""
        if info.host == self.host and (info.pid == self.pid or not _pid_alive(info.pid)):
            return False
        beat = info.taken
        with contextlib.suppress(OSError, ValueError):  # no heartbeat yet: take time
            beat = float(self.fs.read(self._uri(info.epoch, "beat")).decode("utf-8"))
        return self.clock() - beat < self.ttl_s

    def take(self, epoch: int) -> LeaseInfo:
        """Create lease ``epoch``; :class:`LeaseHeld` naming the winner if another
        writer created it first."""
        holder = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        info = LeaseInfo(epoch, holder, self.host, self.pid, self.clock())
        data = json.dumps(asdict(info), sort_keys=True).encode("utf-8")
        if not self.fs.create_exclusive(self._uri(epoch, "json"), data):
            other = self._read(epoch)
            raise LeaseHeld(
                f"lease {self._uri(epoch, 'json')} was just taken by {other.describe()}: "
                "one writer per (path, sink_id)"
            )
        self.mine = info
        for entry in self.fs.list(self.dir):  # keep the directory small: two epochs
            head = entry.name.partition(".")[0]
            if head.isdigit() and int(head) < epoch - 1:
                self.fs.delete(join(self.dir, entry.name), False)
        return info

    def beat(self) -> None:
        assert self.mine is not None
        uri = self._uri(self.mine.epoch, "beat")
        self.fs.delete(uri, False)  # a heartbeat may be rewritten; only the lease is atomic
        self.fs.create_exclusive(uri, repr(self.clock()).encode("utf-8"))

    def start_heartbeat(self) -> None:
        self.beat()

        def run() -> None:
            while not self._stop.wait(self.ttl_s / 3):
                try:
                    self.beat()
                except Exception as e:  # the next beat tries again; fencing keeps it safe
                    log.warning("lease heartbeat %s failed: %r", self.dir, e)

        self._beater = threading.Thread(target=run, name="spark-sink-lease", daemon=True)
        self._beater.start()

    def abandon(self) -> None:
        """Stop the heartbeat and wait for its thread to end; the lease stays as it is
        (what a writer that dies leaves: the next one fences it). Every end of a writer
        comes here, so no heartbeat outlives its writer and keeps the lease live."""
        self._stop.set()
        beater, self._beater = self._beater, None
        if beater is not None and beater is not threading.current_thread():
            beater.join(self.ttl_s)  # at most one beat in progress

    def release(self) -> None:
        """Stop the heartbeat and mark the lease released (if it is still ours)."""
        self.abandon()
        if self.mine is None:
            return
        newest, _ = self.latest()
        if newest is not None and newest.epoch == self.mine.epoch:
            self.fs.create_exclusive(self._uri(self.mine.epoch, "released"), b"")
        self.mine = None
