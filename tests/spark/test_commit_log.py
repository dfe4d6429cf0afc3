"""The commit log's rules on an in-memory filesystem (no Spark): URIs, create-if-absent,
torn records, uncommitted batch directories, foreign files, reset."""

from __future__ import annotations

import pytest

from reactive_streams.spark.commit_log import CommitLog, CommitRecord
from reactive_streams.spark.hadoop_fs import Entry, table_uri


class DictFS:
    """Files as ``uri -> bytes``; directories implied by their contents or made by mkdirs."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = set()

    def exists(self, uri: str) -> bool:
        return (
            uri in self.files
            or uri in self.dirs
            or any(p.startswith(uri + "/") for p in self.files)
        )

    def mkdirs(self, uri: str) -> None:
        while uri.count("/") > 3:
            self.dirs.add(uri)
            uri = uri.rsplit("/", 1)[0]

    def list(self, uri: str) -> list[Entry]:
        prefix = uri.rstrip("/") + "/"
        names: dict[str, Entry] = {}
        for path in [*self.files, *self.dirs]:
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                name = rest.split("/", 1)[0]
                is_dir = "/" in rest or path in self.dirs
                size = len(self.files.get(path, b""))
                names[name] = Entry(
                    name, is_dir or names.get(name, Entry("", False, 0)).is_dir, size
                )
        return list(names.values())

    def read(self, uri: str) -> bytes:
        if uri not in self.files:
            raise OSError(f"read {uri}: not found")
        return self.files[uri]

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        if uri in self.files:
            return False
        self.files[uri] = data
        return True

    def rename(self, src: str, dst: str) -> None:
        assert not self.exists(dst), dst
        for path in [p for p in self.files if p.startswith(src + "/")]:
            self.files[dst + path[len(src) :]] = self.files.pop(path)

    def delete(self, uri: str, recursive: bool = True) -> None:
        assert type(recursive) is bool, recursive  # py4j passes no None to a boolean
        prefix = uri.rstrip("/") + "/"
        for path in [p for p in self.files if p == uri or p.startswith(prefix)]:
            del self.files[path]
        self.dirs = {d for d in self.dirs if d != uri and not d.startswith(prefix)}


T = "file:///data/t"


def record(batch: int, position: object = None) -> CommitRecord:
    name = f"rs_batch=s-{batch:012d}"
    return CommitRecord(
        "s",
        batch,
        1,
        batch * 10,
        batch * 10 + 10,
        name,
        (("part-0", f"{name}/part-0"),),
        5,
        position,
    )


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("/tmp/x", "file:///tmp/x"),
        ("file:/tmp/y/", "file:///tmp/y"),
        ("hdfs:/x", "hdfs:/x"),
        ("s3:/bucket/y", "s3:/bucket/y"),
        ("s3a://b/t/", "s3a://b/t"),
    ],
)
def test_paths_are_parsed_as_uris(path: str, uri: str) -> None:
    assert table_uri(path) == uri


def test_root_of_a_remote_filesystem_is_refused() -> None:
    with pytest.raises(ValueError, match="below the filesystem root"):
        table_uri("hdfs://nn:8020/")


def test_commit_is_create_if_absent_and_idempotent() -> None:
    fs = DictFS()
    log = CommitLog(fs, T, "s")
    log.commit(record(0, {"row": 10}))
    log.commit(record(0, {"row": 10}))  # a replayed commit of the same batch
    with pytest.raises(RuntimeError, match=r"already committed .* different content"):
        log.commit(record(0, {"row": 11}))
    assert [r.position for r in log.records()] == [{"row": 10}]


def test_recover_repairs_a_torn_last_record_and_drops_uncommitted_batches() -> None:
    fs = DictFS()
    log = CommitLog(fs, T, "s")
    for b in range(3):
        fs.files[f"{T}/rs_batch=s-{b:012d}/part-0"] = b"data"
    fs.files[f"{T}/rs_batch=other-{0:012d}/part-0"] = b"another sink"
    log.commit(record(0))
    log.commit(record(1))
    torn = f"{log.commits_dir}/{1:012d}.json"
    fs.files[torn] = fs.files[torn][:30]
    recovery = CommitLog(fs, T, "s").recover()
    assert [r.batch_id for r in recovery.committed] == [0]
    assert recovery.removed_staging == ("rs_batch=s-000000000001", "rs_batch=s-000000000002")
    assert torn not in fs.files
    assert f"{T}/rs_batch=other-{0:012d}/part-0" in fs.files  # not this sink's


def test_a_torn_record_that_is_not_the_last_is_an_error() -> None:
    fs = DictFS()
    log = CommitLog(fs, T, "s")
    log.commit(record(0))
    log.commit(record(1))
    fs.files[f"{log.commits_dir}/{0:012d}.json"] = b"{"
    with pytest.raises(RuntimeError, match=r"000000000000\.json is unreadable"):
        log.recover()


def test_foreign_files_are_named() -> None:
    fs = DictFS()
    fs.files[f"{T}/notes.csv"] = b"a,b"
    fs.files[f"{T}/_SUCCESS"] = b""
    with pytest.raises(
        RuntimeError, match=r"holds 1 file\(s\) no sink wrote \(file:///data/t/notes"
    ):
        CommitLog(fs, T, "s").recover()


def test_reset_forgets_only_this_sink() -> None:
    fs = DictFS()
    log = CommitLog(fs, T, "s")
    fs.files[f"{T}/rs_batch=s-{0:012d}/part-0"] = b"data"
    fs.files[f"{T}/rs_batch=other-{0:012d}/part-0"] = b"keep"
    log.commit(record(0))
    assert log.reset() == ["rs_batch=s-000000000000"]
    assert log.records() == []
    assert list(fs.files) == [f"{T}/rs_batch=other-{0:012d}/part-0"]


def sink_record(sink: str, batch: int) -> CommitRecord:
    name = f"rs_batch={sink}-{batch:012d}"
    return CommitRecord(sink, batch, 1, batch * 10, batch * 10 + 10, name, (("p", f"{name}/p"),))


def test_overwrite_of_one_sink_id_keeps_a_sink_id_it_prefixes() -> None:
    # issue 26 item 1: "ev" is a prefix of "ev-eu"; batch names match the exact sink id
    fs = DictFS()
    ev, eu = CommitLog(fs, T, "ev"), CommitLog(fs, T, "ev-eu")
    for log in (ev, eu):
        for b in range(2):
            fs.files[f"{log.batch_dir(b)}/p"] = log.sink_id.encode()
            log.commit(sink_record(log.sink_id, b))
    kept = sorted(p for p in fs.files if "rs_batch=ev-eu-" in p)
    assert CommitLog(fs, T, "ev").reset() == [ev.batch_dir_name(0), ev.batch_dir_name(1)]
    assert sorted(p for p in fs.files if "rs_batch=ev-eu-" in p) == kept
    recovery = CommitLog(fs, T, "ev-eu").recover()
    assert (recovery.last_batch_id, recovery.resume_offset) == (1, 20)
    assert CommitLog(fs, T, "ev").recover().committed == ()


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "a b", "é", "x" * 65, "a.b", "-x"])
def test_sink_ids_that_are_not_safe_path_components_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match=r"^sink_id must"):
        CommitLog(DictFS(), T, bad)
