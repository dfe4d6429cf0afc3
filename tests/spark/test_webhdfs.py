"""SparkSink on a filesystem reached only over the network: Hadoop's ``webhdfs://``
client against the WebHDFS server in ``webhdfs_server.py``, whose files live in a
tmpfs of its own mount namespace (invisible to this process) when ``unshare`` works.

The first tests check the server's HDFS semantics over plain HTTP (no Spark); the
rest run Spark's Parquet write, the commit log and recovery through Hadoop's client.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.spark.commit_log import CommitLog, CommitRecord
from reactive_streams.spark.hadoop_fs import HadoopFS
from reactive_streams.spark.positions import keep_if, map_value
from reactive_streams.spark.replay import FileSource
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import SparkBatchWriter, read_committed

from . import webhdfs_server
from .webhdfs_server import Store, WebHdfsServer

WAIT = 120.0
PRIVATE = webhdfs_server.can_unshare()


# -- the server over plain HTTP --------------------------------------------------------
@pytest.fixture
def http(tmp_path: Path) -> Iterator[str]:
    import threading

    server = WebHdfsServer(Store(tmp_path / "store"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}/webhdfs/v1"
    server.shutdown()
    server.server_close()


def call(
    base: str, method: str, path: str, op: str, *, data: bytes | None = None, **params: str
) -> tuple[int, Any, dict[str, str]]:
    """(status, parsed JSON or raw bytes, headers); a 307 is returned, not followed."""
    query = "&".join([f"op={op}", "user.name=root", *(f"{k}={v}" for k, v in params.items())])
    url = path if path.startswith("http") else f"{base}{path}?{query}"

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with opener.open(req, timeout=30) as answer:
            status, body, headers = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as e:
        status, body, headers = e.code, e.read(), dict(e.headers)
    if body[:1] == b"{":
        return status, json.loads(body), headers
    return status, body, headers


def create(base: str, path: str, data: bytes, overwrite: str = "false") -> tuple[int, Any]:
    """The two-step CREATE: the namenode's 307, then the bytes to its Location."""
    status, _, headers = call(base, "PUT", path, "CREATE", overwrite=overwrite)
    assert status == 307, status
    status, body, _ = call(base, "PUT", headers["Location"], "", data=data)
    return status, body


def remote(body: Any) -> str:
    return str(body["RemoteException"]["javaClassName"])


def test_create_is_two_step_and_never_overwrites_unless_asked(http: str) -> None:
    assert create(http, "/d/f", b"one")[0] == 201  # parents are made, as HDFS does
    status, body = create(http, "/d/f", b"two")
    assert (status, remote(body)) == (403, "org.apache.hadoop.fs.FileAlreadyExistsException")
    assert call(http, "GET", "/d/f", "OPEN", datanode="true")[1] == b"one"
    assert create(http, "/d/f", b"three", overwrite="true")[0] == 201
    status, _, headers = call(http, "GET", "/d/f", "OPEN", offset="1", length="3")
    assert status == 307
    assert call(http, "GET", headers["Location"], "")[1] == b"hre"
    status, body = create(http, "/d", b"x", overwrite="true")  # a directory stays one
    assert (status, remote(body)) == (403, "org.apache.hadoop.fs.FileAlreadyExistsException")
    status, body = create(http, "/d/f/g", b"x")  # below a file
    assert remote(body) == "org.apache.hadoop.fs.ParentNotDirectoryException"


def test_rename_has_hdfs_semantics(http: str) -> None:
    create(http, "/a/f", b"f")
    create(http, "/a/g", b"g")
    call(http, "PUT", "/b", "MKDIRS")

    def rename(src: str, dst: str) -> Any:
        return call(http, "PUT", src, "RENAME", destination=dst)[1]

    assert rename("/a/f", "/a/g") == {"boolean": False}  # an existing file is kept
    assert rename("/a/missing", "/a/h") == {"boolean": False}
    assert rename("/a/f", "/nowhere/f") == {"boolean": False}  # no parent
    assert rename("/a", "/a/inner") == {"boolean": False}  # into itself
    assert rename("/a/f", "/b") == {"boolean": True}  # into an existing directory
    assert call(http, "GET", "/b/f", "GETFILESTATUS")[1]["FileStatus"]["length"] == 1
    assert rename("/a", "/c") == {"boolean": True}  # a whole directory, atomically
    listed = call(http, "GET", "/c", "LISTSTATUS")[1]["FileStatuses"]["FileStatus"]
    assert [s["pathSuffix"] for s in listed] == ["g"]
    assert call(http, "GET", "/a", "GETFILESTATUS")[0] == 404
    body = call(http, "PUT", "/b/f", "RENAME", destination="/c/g", renameoptions="NONE")[1]
    assert remote(body) == "org.apache.hadoop.fs.FileAlreadyExistsException"
    status, _, _ = call(
        http, "PUT", "/b/f", "RENAME", destination="/c/g", renameoptions="OVERWRITE"
    )
    assert status == 200
    assert call(http, "GET", "/b/f", "GETFILESTATUS")[0] == 404


def test_noredirect_answers_the_location_in_json(http: str) -> None:
    status, body, _ = call(http, "PUT", "/n/f", "CREATE", noredirect="true")
    assert status == 200
    assert "datanode=true" in body["Location"]
    assert "noredirect" not in body["Location"]
    assert call(http, "PUT", body["Location"], "", data=b"abc")[0] == 201
    status, body, _ = call(http, "GET", "/n/f", "OPEN", noredirect="true")
    assert call(http, "GET", body["Location"], "")[1] == b"abc"


def test_delete_listing_and_errors(http: str) -> None:
    for k in range(5):
        create(http, f"/l/f{k}", b"x")
    status, body, _ = call(http, "DELETE", "/l", "DELETE")
    assert (status, remote(body)) == (403, "org.apache.hadoop.fs.PathIsNotEmptyDirectoryException")
    batch = call(http, "GET", "/l", "LISTSTATUS_BATCH", startAfter="f2")[1]["DirectoryListing"]
    names = [s["pathSuffix"] for s in batch["partialListing"]["FileStatuses"]["FileStatus"]]
    assert (names, batch["remainingEntries"]) == (["f3", "f4"], 0)
    status, body, _ = call(http, "GET", "/nope", "GETFILESTATUS")
    assert (status, remote(body)) == (404, "java.io.FileNotFoundException")
    assert "/nope" in body["RemoteException"]["message"]  # errors name their path
    status, body, _ = call(http, "GET", "/l", "NOSUCHOP")
    assert (status, remote(body)) == (400, "java.lang.IllegalArgumentException")
    assert call(http, "DELETE", "/l", "DELETE", recursive="true")[1] == {"boolean": True}
    assert call(http, "DELETE", "/l", "DELETE", recursive="true")[1] == {"boolean": False}


# -- Spark through Hadoop's webhdfs:// client --------------------------------------------
@pytest.fixture(scope="module")
def webhdfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    """(``webhdfs://127.0.0.1:<port>``, the store directory, the server's op log)."""
    work = tmp_path_factory.mktemp("webhdfs")
    store, log = work / "store", work / "ops.log"
    # 3 entries per LISTSTATUS_BATCH answer, so the client's paging is exercised
    with webhdfs_server.start(store, private_mount=PRIVATE, log=log, list_limit=3) as uri:
        yield uri, store, log


class DiesBeforeCommit(SparkBatchWriter):
    """Spark writes batches through Hadoop; after ``commits`` commit records the
    'driver dies': the next batch is written but never committed."""

    def __init__(self, *args: Any, commits: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.left = commits

    def commit(self, record: CommitRecord) -> None:
        if self.left <= 0:
            raise OSError(f"injected: died before the commit record of batch {record.batch_id}")
        self.left -= 1
        super().commit(record)


def jsonl(directory: Path, files: int, per: int) -> list[Path]:
    out = []
    for k in range(files):
        path = directory / f"part-{k}.jsonl"
        ids = range(k * per, (k + 1) * per)
        path.write_text("".join(json.dumps({"id": i, "key": f"k{i % 5}"}) + "\n" for i in ids))
        out.append(path)
    return out


@pytest.mark.spark
@pytest.mark.skipif(
    os.environ.get("RS_SLOW") != "1",
    reason="a killed and resumed job over WebHDFS (20 s): RS_SLOW=1; make spark-chaos-webhdfs",
)
def test_filtering_sink_dies_and_resumes_by_position_on_webhdfs(
    spark: Any, tmp_path: Path, webhdfs: tuple[str, Path, Path]
) -> None:
    uri, _, log = webhdfs
    token = f"rs-{uuid.uuid4().hex[:12]}"
    table = f"{uri}/{token}/table"
    files = jsonl(tmp_path, files=3, per=1_000)
    source = FileSource(files, parse=json.loads)
    removed: list[tuple[str, ...]] = []
    for commits in (2, 3, None):  # two runs die mid-stream, the third completes
        writer = DiesBeforeCommit(
            spark,
            table,
            "wh",
            schema="id long, key string",
            commits=10**9 if commits is None else commits,
        )
        sink = SparkSink(
            writer=writer,
            sink_id="wh",
            batch_rows=300,
            max_attempts=1,
            max_latency=None,
            progress=False,
        )
        removed.append(sink.recovery.removed_staging)
        (
            Flow.from_publisher(source.replay_from(sink.resume_position))
            .filter(lambda env: env.value["id"] % 10 != 3)
            .map(keep_if(lambda r: r["id"] % 10 != 7))
            .map(map_value(lambda r: {"id": r["id"], "key": r["key"]}))
            .subscribe(sink)
        )
        if commits is None:
            assert sink.result(WAIT).status == "completed"
        else:
            with pytest.raises(SparkSinkError, match="injected: died before the commit record"):
                sink.result(WAIT)
    # each restart deleted, over HTTP, the batch the dead run wrote but never committed
    assert [len(r) for r in removed] == [0, 1, 1]
    expected = [i for i in range(3_000) if i % 10 not in (3, 7)]
    got = [int(r["id"]) for r in read_committed(spark, table, sink_id="wh").select("id").collect()]
    assert len(got) == len(expected), "lost or duplicated rows"
    assert sorted(got) == expected
    plain = spark.read.parquet(table).select("id").collect()  # a plain directory read too
    assert sorted(int(r["id"]) for r in plain) == expected
    records = CommitLog(HadoopFS(spark), table, "wh").records()
    done = ["part-0.jsonl", "part-1.jsonl"]
    assert records[-1].position == {"done": done, "file": "part-2.jsonl", "row": 1_000}
    ops = {line.split()[1] for line in log.read_text().splitlines() if token in line}
    assert {"CREATE", "RENAME", "DELETE", "LISTSTATUS", "OPEN"} <= ops, ops


@pytest.mark.spark
def test_the_local_disk_never_holds_the_table(
    spark: Any, tmp_path: Path, webhdfs: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    uri, store, _ = webhdfs
    monkeypatch.chdir(tmp_path)
    token = f"rs-{uuid.uuid4().hex[:12]}"
    table = f"{uri}/{token}/t"
    sink = SparkSink(spark, table, sink_id="loc", batch_rows=50, max_latency=None, progress=False)
    Flow.from_iterable([{"id": i} for i in range(120)]).subscribe(sink)
    assert sink.result(WAIT).metrics.batches == 3
    fs = HadoopFS(spark)
    assert len([e for e in fs.files(table) if e.name.endswith(".parquet")]) == 3
    # no local folder named after the scheme, the host or the table, anywhere Spark writes
    for root in (tmp_path, Path.cwd(), Path("/tmp"), Path("/")):
        assert not (root / token).exists()
        assert not (root / "webhdfs:").exists()
    assert not list(tmp_path.iterdir())
    if PRIVATE:  # the server's tmpfs is in its own mount namespace: empty from here
        assert list(store.iterdir()) == []


@pytest.mark.spark
def test_create_if_absent_loses_a_race_without_overwriting(
    spark: Any, webhdfs: tuple[str, Path, Path]
) -> None:
    """Past the ``exists`` check, WebHDFS reports the existing file only at close (its
    datanode step): the commit log's create-if-absent still answers False, and the
    first writer's bytes stay."""
    uri, _, _ = webhdfs
    record = f"{uri}/rs-{uuid.uuid4().hex[:12]}/commits/000000000000.json"
    fs = HadoopFS(spark)
    assert fs.create_exclusive(record, b'{"first": true}')
    jfs, path = fs._path(record)
    assert HadoopFS.create_new(jfs, path, b'{"second": true}') is False
    assert fs.read(record) == b'{"first": true}'


@pytest.mark.spark
def test_hadoop_client_reads_checksums_defaults_and_paged_listings(
    spark: Any, webhdfs: tuple[str, Path, Path]
) -> None:
    """The server's answers parse in Hadoop's client: ``getFileChecksum`` (an HDFS
    MD5-of-MD5-of-CRC32 checksum: equal for equal bytes only), ``getServerDefaults``
    and ``listStatusIterator`` paging through ``LISTSTATUS_BATCH``."""
    uri, _, log = webhdfs
    token = f"rs-{uuid.uuid4().hex[:12]}"
    base = f"{uri}/{token}"
    fs = HadoopFS(spark)
    for name, data in (("a", b"x" * 2000), ("b", b"x" * 2000), ("c", b"y" * 2000)):
        assert fs.create_exclusive(f"{base}/{name}", data)
    sums = {}
    for name in "abc":
        jfs, path = fs._path(f"{base}/{name}")
        checksum = jfs.getFileChecksum(path)
        assert str(checksum.getAlgorithmName()) == "MD5-of-0MD5-of-512CRC32"
        sums[name] = bytes(checksum.getBytes())
    assert sums["a"] == sums["b"] != sums["c"]
    assert jfs.getServerDefaults(path).getBytesPerChecksum() == 512
    for k in range(7):
        assert fs.create_exclusive(f"{base}/many/f{k}", b"")
    jfs, path = fs._path(f"{base}/many")
    found = jfs.listStatusIterator(path)
    names = []
    while found.hasNext():
        names.append(str(found.next().getPath().getName()))
    assert names == [f"f{k}" for k in range(7)]
    pages = [ln for ln in log.read_text().splitlines() if f"LISTSTATUS_BATCH /{token}/many" in ln]
    assert len(pages) == 3  # 3 + 3 + 1 entries


@pytest.mark.spark
def test_io_errors_name_their_path(
    spark: Any, tmp_path: Path, webhdfs: tuple[str, Path, Path]
) -> None:
    uri, _, _ = webhdfs
    blocker = f"{uri}/rs-{uuid.uuid4().hex[:12]}"
    fs = HadoopFS(spark)
    assert fs.create_exclusive(blocker, b"a regular file")
    with pytest.raises(OSError, match="ParentNotDirectoryException") as caught:
        SparkSink(spark, f"{blocker}/t", sink_id="perm", progress=False)  # parent: a file
    assert f"{blocker}/t" in str(caught.value)
    local = tmp_path / "file"
    local.write_text("x")
    with pytest.raises(OSError, match=r"ParentNotDirectoryException|FileAlreadyExists") as caught:
        SparkSink(spark, str(local / "t"), sink_id="perm", progress=False)
    assert str(local / "t") in str(caught.value)


@pytest.mark.spark
def test_permission_denied_names_the_path(spark: Any, webhdfs: tuple[str, Path, Path]) -> None:
    """HDFS permissions: a table below a read-only directory, and a table made read-only
    while the sink runs; both errors name the path Hadoop refused."""
    uri, _, _ = webhdfs
    base = f"rs-{uuid.uuid4().hex[:12]}"
    fs = HadoopFS(spark)
    fs.mkdirs(f"{uri}/{base}/ro")
    http = f"http://{uri.split('://', 1)[1]}/webhdfs/v1"
    assert call(http, "PUT", f"/{base}/ro", "SETPERMISSION", permission="555")[0] == 200
    with pytest.raises(OSError, match="AccessControlException") as caught:
        SparkSink(spark, f"{uri}/{base}/ro/t", sink_id="perm", progress=False)
    assert f"{uri}/{base}/ro/t" in str(caught.value)
    assert f'inode="/{base}/ro"' in str(caught.value)

    table = f"{uri}/{base}/rw"
    sink = SparkSink(
        spark,
        table,
        sink_id="perm",
        batch_rows=10,
        max_attempts=2,
        max_latency=None,
        progress=False,
    )
    assert call(http, "PUT", f"/{base}/rw", "SETPERMISSION", permission="555")[0] == 200
    Flow.from_iterable([{"id": i} for i in range(10)]).subscribe(sink)
    with pytest.raises(SparkSinkError) as failed:
        sink.result(WAIT)
    text = f"{failed.value} {failed.value.__cause__}"
    assert "AccessControlException" in text
    assert f"{table}/rs_batch=perm-000000000000" in text
