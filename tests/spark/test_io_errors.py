"""I/O errors name the path and the cause: a full disk, permission denied (issue 26)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark import ioerrors
from reactive_streams.spark.commit_log import CommitLog
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.quarantine import LocalFS
from reactive_streams.spark.sink import SparkSink, SparkSinkError


class FullDisk(LocalFS):
    """The first record create fails like Hadoop's on a full disk, after the create
    made a 0-byte file; then the disk stays full."""

    def exists(self, uri: str) -> bool:
        return os.path.exists(self._local(uri))

    def delete(self, uri: str, recursive: bool = True) -> None:
        os.remove(self._local(uri))

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        path = self._local(uri)
        if os.path.exists(path):
            return False
        open(path, "wb").close()
        try:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as e:  # as hadoop_fs wraps a Java IOException: path, then message
            raise OSError(f"create {uri}: java.io.IOException: No space left on device") from e


class LogWriter(MemoryBatchWriter):
    """The memory writer committing through the real CommitLog on ``fs``."""

    def __init__(self, storage: MemoryStorage, log: CommitLog) -> None:
        super().__init__(storage, "d")
        self.log = log

    def commit(self, record: Any) -> None:
        self.log.commit(record)


def test_a_full_disk_names_the_record_path_and_enospc(tmp_path: Path) -> None:
    log = CommitLog(FullDisk(), str(tmp_path / "t"), "d")
    sink = SparkSink(
        writer=LogWriter(MemoryStorage(), log),
        sink_id="d",
        batch_rows=5,
        max_attempts=3,
        max_latency=None,
        progress=False,
        sleep=lambda _s: None,
    )
    Flow.from_iterable([(i, "x") for i in range(5)]).subscribe(sink)
    with pytest.raises(SparkSinkError) as info:
        sink.result(30)
    text = str(info.value)
    # the retries fail on the 0-byte record; the first attempt's error says why
    assert "no space left on device (ENOSPC)" in text
    assert f"{log.commits_dir}/000000000000.json" in text


def test_a_read_only_directory_says_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    if os.geteuid() == 0:  # root writes anywhere: emulate what any other user gets
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, m: False if str(p) == str(ro) else real(p, m))
    try:
        why = ioerrors.local_cause(f"file://{ro}/table/_rs_sink")
        assert why == f"permission denied (EACCES): {ro} is not writable"
        assert ioerrors.local_cause(str(tmp_path / "new" / "t")) is None
        assert ioerrors.local_cause("hdfs://nn/x") is None
    finally:
        ro.chmod(0o755)
    denied = OSError("mkdirs hdfs:/t: org.apache.hadoop.security.AccessControlException: no")
    assert ioerrors.io_cause(RuntimeError("x"), denied) == "permission denied (EACCES)"
    assert ioerrors.io_cause(PermissionError(errno.EACCES, "x")) == "permission denied (EACCES)"


class _Stream:
    def write(self, data: bytearray) -> None:
        raise OSError("java.io.IOException: No space left on device")

    def hsync(self) -> None: ...

    def close(self) -> None: ...


class _HadoopLike:
    """Hadoop's ``FileSystem.create``: the file exists (0 bytes) once create returns."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def create(self, path: str, overwrite: bool) -> _Stream:
        assert not overwrite
        assert path not in self.files
        self.files[path] = b""
        return _Stream()

    def delete(self, path: str, recursive: bool) -> None:
        del self.files[path]


def test_a_create_cut_short_by_a_full_disk_leaves_no_record() -> None:
    from reactive_streams.spark.hadoop_fs import HadoopFS

    fs = _HadoopLike()
    with pytest.raises(OSError, match="No space left on device"):
        HadoopFS.create_new(fs, "t/_rs_sink/d/commits/000000000000.json", b"{}")
    assert fs.files == {}  # a retry creates the record, instead of failing on 0 bytes


def test_a_zero_byte_record_or_lease_left_by_a_kill_counts_as_absent() -> None:
    from reactive_streams.spark.commit_log import CommitRecord

    from .test_commit_log import DictFS

    fs = DictFS()
    log = CommitLog(fs, "file:///data/t", "d")
    log.acquire(host="a", pid=1, heartbeat=False)
    log.commit(CommitRecord("d", 0, 1, 0, 10))
    fs.files[f"{log.commits_dir}/000000000001.json"] = b""  # killed inside the create
    fs.files[f"{log.sink_dir}/lease/000000000001.json"] = b""  # likewise
    again = CommitLog(fs, "file:///data/t", "d")
    mine = again.acquire(host="b", pid=2, heartbeat=False, takeover=True)
    assert mine.epoch == 2
    assert [r.batch_id for r in again.recover().committed] == [0, 1]  # 1: the fence
    assert again.records()[1].holder == mine.holder
