"""SparkSink and SparkSource over Spark Connect: a server from the pyspark
distribution on loopback, the client with no JVM and no py4j."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import _SKIP, RecordSource
from .connect_server import connect_jar, connect_server
from .test_source import WAIT, Recorder

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600)]

SCHEMA = "id long, key string, value double"


def _skip_reason() -> str | None:
    if _SKIP is not None:
        return _SKIP
    if connect_jar() is None:
        return "the installed pyspark ships no spark-connect jar to start a server from"
    missing = [m for m in ("grpc", "grpc_status", "google.rpc", "zstandard") if not _found(m)]
    if missing:
        return f"Spark Connect client packages missing ({missing}): pip install -e '.[connect]'"
    return None


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    reason = _skip_reason()
    if reason is not None:
        pytest.skip(reason)
    from reactive_streams.spark.session import is_connect, local_session

    with connect_server(tmp_path_factory.mktemp("connect"), master="local[1]") as url:
        session = local_session(url, app_name="reactive-streams-connect-tests")
        assert is_connect(session)
        assert not hasattr(session, "_jsc")  # no py4j anywhere on the client
        try:
            yield session
        finally:
            session.stop()


@pytest.mark.skipif(
    os.environ.get("RS_SLOW") != "1",
    reason="sink then source over Connect (17 s): make slow-checks",
)
def test_sink_then_source_over_connect(remote: Any, spark: Any, tmp_path: Path) -> None:
    from reactive_streams.spark import SparkSink, SparkSource, read_committed

    path = str(tmp_path / "events")
    sink = SparkSink(remote, path, sink_id="remote", schema=SCHEMA, batch_rows=1_500)
    RecordSource(0, 4_000).subscribe(sink)
    result = sink.result(WAIT)
    assert result.status == "completed"
    assert result.metrics.records == 4_000
    assert result.metrics.batches == 3

    back = read_committed(remote, path, sink_id="remote")
    assert back.count() == 4_000
    assert back.selectExpr("count(DISTINCT id) AS n", "sum(id) AS s").collect()[0].asDict() == {
        "n": 4_000,
        "s": sum(range(4_000)),
    }
    # the classic session reads the same commit log (records are directories here)
    assert read_committed(spark, path, sink_id="remote").count() == 4_000

    # a restart resumes after the committed rows and appends the rest once
    again = SparkSink(remote, path, sink_id="remote", schema=SCHEMA, batch_rows=1_500)
    assert again.resume_offset == 4_000
    RecordSource(again.resume_offset, 5_000).subscribe(again)
    assert again.result(WAIT).metrics.records == 1_000
    assert read_committed(remote, path, sink_id="remote").count() == 5_000

    # the source: exactly the rows requested, then the rest in order
    df = read_committed(remote, path, sink_id="remote").orderBy("id")
    rec = Recorder()
    SparkSource(df).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(10)
    rec.wait_for(10)
    assert [r["id"] for r in rec.items] == list(range(10))
    rec.subscription.request(2**63 - 1)
    assert rec.completed.wait(WAIT)
    assert not rec.errors
    assert [r["id"] for r in rec.items] == list(range(5_000))


def test_connect_source_failure_is_on_error(remote: Any) -> None:
    from reactive_streams.spark import SparkSource, SparkSourceError

    df = remote.range(0, 100, numPartitions=2).selectExpr(
        "CASE WHEN id = 60 THEN raise_error('boom at 60') ELSE id END AS id"
    )
    rec = Recorder()
    SparkSource(df).subscribe(rec)
    assert rec.subscription is not None
    rec.subscription.request(1_000)
    assert rec.completed.wait(WAIT), "the subscriber got no terminal signal"
    assert len(rec.errors) == 1
    assert isinstance(rec.errors[0], SparkSourceError)
    assert "boom at 60" in str(rec.errors[0])


def test_a_killed_clients_late_server_side_commit_never_lands(remote: Any, tmp_path: Path) -> None:
    # issue 26.2: a zombie's commit job that the server runs after the takeover (the
    # client checked, sent the job and died) must not replace the heir's fence
    import threading

    from reactive_streams.spark.commit_log import CommitLog, CommitRecord, LeaseLost
    from reactive_streams.spark.connect_fs import ConnectFS

    path = str(tmp_path / "t")
    zfs = ConnectFS(remote)
    zombie = CommitLog(zfs, path, "ev")
    zombie.acquire(host="node-a", pid=1, heartbeat=False)
    zombie.commit(CommitRecord("ev", 0, 1, 0, 10))
    sent, go = threading.Event(), threading.Event()
    write = zfs._write

    def late_write(uri: str, *args: Any) -> None:
        if "000000000001.json" in uri:
            sent.set()  # the client sent the job; the server runs it after the takeover
            assert go.wait(WAIT)
        write(uri, *args)

    zfs._write = late_write  # type: ignore[method-assign, assignment]
    errors: list[BaseException] = []

    def commit() -> None:
        try:
            zombie.commit(CommitRecord("ev", 1, 1, 10, 20))
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=commit)
    thread.start()
    assert sent.wait(WAIT)
    heir = CommitLog(ConnectFS(remote), path, "ev")
    mine = heir.acquire(host="node-b", pid=1, takeover=True, heartbeat=False)
    go.set()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert [type(e) for e in errors] == [LeaseLost]
    records = heir.recover().committed
    assert [(r.batch_id, r.holder, r.offset_after) for r in records] == [
        (0, zombie.lease.mine.holder, 10),  # type: ignore[union-attr]
        (1, mine.holder, 10),  # the fence, not the zombie's rows 10..19
    ]


def test_a_batch_staged_over_connect_is_invisible_until_committed(
    remote: Any, tmp_path: Path
) -> None:
    # issue 26.4 over Connect: no batch is written in place where plain readers look
    from reactive_streams.spark import SparkSink
    from reactive_streams.spark.connect_fs import ConnectFS
    from reactive_streams.spark.writer import SparkBatchWriter

    from .conftest import event

    path = str(tmp_path / "t")
    zombie = SparkBatchWriter(remote, path, "ev", schema=SCHEMA, table="rs_connect_t")
    zombie.recover()
    zombie.stage(0, 1, zombie.convert([event(i) for i in range(5)], 0))  # then it dies
    visible = [e.name for e in ConnectFS(remote).list(zombie.path) if e.name[0] not in "_."]
    assert visible == []
    sink = SparkSink(
        remote, path, sink_id="ev", schema=SCHEMA, batch_rows=6, takeover=True, table="rs_connect_t"
    )
    assert sink.resume_offset == 0
    RecordSource(0, 6).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    # the catalog table shows exactly the committed rows (the fence and the zombie's none)
    rows = remote.table("rs_connect_t").select("id").collect()
    assert sorted(r["id"] for r in rows) == list(range(6))
    zombie.release()  # its heartbeat thread stops


def test_table_with_partition_by_over_connect_shows_the_committed_rows(
    remote: Any, tmp_path: Path
) -> None:
    # the batches stay in staging over Connect: each value directory is added to the
    # catalog table with its LOCATION
    from reactive_streams.spark import SparkSink

    sink = SparkSink(
        remote,
        str(tmp_path / "t"),
        sink_id="ev",
        schema=SCHEMA,
        batch_rows=5,
        table="rs_connect_p",
        partition_by=["key"],
    )
    RecordSource(0, 12).subscribe(sink)
    assert sink.result(WAIT).status == "completed"
    rows = remote.table("rs_connect_p").select("id", "key").collect()
    assert sorted((r["id"], r["key"]) for r in rows) == [(i, f"k{i % 7}") for i in range(12)]
