"""Kill-and-resume runs of a filtering pipeline into SparkSink (SIGKILL of the job's
process group at chosen points), then one read-back of the table.

    python tests/spark/chaos.py --rows 2000000 --kills 20 [--master spark://...]
    python tests/spark/chaos.py --cluster --fs webhdfs ...   # see below

With ``--fs webhdfs`` the table lives on a WebHDFS server (``webhdfs_server.py``)
that keeps its files in a tmpfs of its own mount namespace: the driver and the
workers reach it only over HTTP on loopback. With ``--cluster`` too, every worker
runs in its own mount namespace with a private ``/tmp`` and with the input data and
the server's store directory hidden under empty tmpfs mounts, so no worker shares a
directory with the driver or with the table's storage.

The job: :class:`FileSource` over JSON-lines files -> ``Flow.filter`` (drops every
id % 10 == 3) -> ``keep_if`` (skips every id % 10 == 7) -> ``map_value`` -> SparkSink;
each run resumes at ``sink.resume_position``. Exactly-once means the table holds
every kept id once: ``count == distinct == expected`` and the id sum matches.

``--shape`` picks other jobs (issue 26): ``fanout`` (``concat_map(expand(...))`` where
ten inputs expand to 2.5 batches each, more than the sink's capacity, so each is split
across batches), ``log`` (a ``PartitionedLogSource`` over 3 partition files that grow
before every run) and ``landing`` (a ``FileSource`` over a landing directory that gets a
late file sorting before every file already read, and one sorting after, before every
run).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SINK_ID = "chaos"
MODES = ("in_write", "after_commit", "random")
# "two_sinks": a second sink id that SINK_ID prefixes writes the same table in the same
# job, and the first run overwrites SINK_ID's earlier rows (which must not touch the
# other id); "batch_change": every run resumes with another batch size
SHAPES = ("filter", "fanout", "log", "landing", "two_sinks", "batch_change")
OTHER_ID = f"{SINK_ID}-eu"
FAN = 1_000_000  # output id = input id * FAN + output index (more than any input's outputs)


def fan_count(i: int, batch: int, rows: int) -> int:
    """Outputs of input ``i`` in the fanout shape: ten inputs 2.5 batches each (more
    than the sink's capacity of 2 batches), the others 0-2."""
    return batch * 5 // 2 if i % max(1, rows // 10) == 7 else i % 3


class FileLog:
    """A partitioned log in JSON-lines files ``p<k>.jsonl`` (read once, at start)."""

    def __init__(self, directory: Path) -> None:
        files = sorted(directory.glob("p*.jsonl"))
        self._data = [f.read_text(encoding="utf-8").splitlines() for f in files]

    def partitions(self) -> list[int]:
        return list(range(len(self._data)))

    def end_offset(self, partition: int) -> int:
        return len(self._data[partition])

    def fetch(self, partition: int, offset: int, max_records: int) -> list[Any]:
        return [json.loads(x) for x in self._data[partition][offset : offset + max_records]]


def _line(i: int) -> str:
    return f'{{"id": {i}, "key": "k{i % 7}", "value": {i * 0.5}}}\n'


def grow(data: Path, shape: str, run: int, rows: int) -> None:
    """Before run ``run``: append to the log's partitions, or land late files."""
    per = max(1, rows // 20)
    base = rows + run * 10 * per  # ids above the first files' range, unique per run
    if shape == "log":
        for p in range(3):
            with open(data / f"p{p}.jsonl", "a", encoding="utf-8") as fh:
                fh.writelines(_line(i) for i in range(base + p * per, base + (p + 1) * per))
    elif shape == "landing":
        for name, lo in (
            (f"a-late-{run:03d}.jsonl", base),
            (f"z-late-{run:03d}.jsonl", base + per),
        ):
            tmp = data / f"_{name}"  # hidden while written, then renamed in
            tmp.write_text("".join(_line(i) for i in range(lo, lo + per)), encoding="utf-8")
            os.replace(tmp, data / name)


def make_log(directory: Path, rows: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if not any(directory.glob("p*.jsonl")):
        for p in range(3):
            with open(directory / f"p{p}.jsonl", "w", encoding="utf-8") as fh:
                fh.writelines(_line(i) for i in range(rows) if i % 3 == p)


def kept(i: int) -> bool:
    return i % 10 not in (3, 7)


def make_files(directory: Path, rows: int, files: int) -> list[Path]:
    """JSON-lines files holding ids ``0..rows-1`` in order (deterministic replay)."""
    directory.mkdir(parents=True, exist_ok=True)
    per = -(-rows // files)
    paths = []
    for k in range(files):
        path = directory / f"part-{k:03d}.jsonl"
        lo, hi = k * per, min(rows, (k + 1) * per)
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(
                    f'{{"id": {i}, "key": "k{i % 7}", "value": {i * 0.5}}}\n' for i in range(lo, hi)
                )
            os.replace(tmp, path)
        paths.append(path)
    return paths


def expected(
    rows: int, shape: str = "filter", data: Path | None = None, batch: int = 0
) -> tuple[int, int]:
    """(count, sum of ids) of the rows the pipeline keeps."""
    if shape == "fanout":
        outs = [i * FAN + j for i in range(rows) for j in range(fan_count(i, batch, rows))]
        return len(outs), sum(outs)
    if shape in ("log", "landing") and data is not None:
        found = [json.loads(x)["id"] for f in sorted(data.glob("*.jsonl")) for x in f.open()]
        ids = [i for i in found if kept(i)]
        return len(ids), sum(ids)
    ids = [i for i in range(rows) if kept(i)]
    return len(ids), sum(ids)


def job(argv: list[str]) -> int:
    """One run of the job (the process that gets killed)."""
    table, data_dir, master, batch = argv[0], Path(argv[1]), argv[2], int(argv[3])
    shape = argv[4] if len(argv) > 4 else "filter"
    rows = int(argv[5]) if len(argv) > 5 else 0
    run = int(argv[6]) if len(argv) > 6 else 1
    from reactive_streams.flow import Flow
    from reactive_streams.spark.positions import expand, keep_if, map_value
    from reactive_streams.spark.replay import FileSource, PartitionedLogSource
    from reactive_streams.spark.session import local_session
    from reactive_streams.spark.sink import SparkSink

    conf = {}
    if master.startswith("spark://"):  # two 1-core workers with 1g each
        conf = {"spark.executor.memory": "640m", "spark.cores.max": "2"}
    spark = local_session(master, fast_start=True, driver_memory="1g", conf=conf)
    files = sorted(data_dir.glob("part-*.jsonl"))
    if shape == "batch_change":
        batch = batch * (1 + run % 3) // 2 or 1  # 1/2, 1, 3/2 of --batch in turn
    ids = [SINK_ID, OTHER_ID] if shape == "two_sinks" else [SINK_ID]
    sinks = []
    for sink_id in ids:
        overwrite = shape == "two_sinks" and sink_id == SINK_ID and run in (0, 1)
        sink = SparkSink(
            spark,
            table,
            sink_id=sink_id,
            batch_rows=batch,
            schema="id long, key string, value double",
            progress=False,
            mode="overwrite" if overwrite else "append",
        )
        source: Any = FileSource(files, parse=json.loads)
        if shape == "log":
            source = PartitionedLogSource(FileLog(data_dir), fetch_size=1000)
        elif shape == "landing":
            source = FileSource([data_dir], pattern="*.jsonl")
        flow = Flow.from_publisher(source.replay_from(sink.resume_position))
        if shape == "fanout":

            def fan(r: dict[str, Any]) -> list[dict[str, Any]]:
                i = r["id"]
                return [
                    {"id": i * FAN + j, "key": r["key"], "value": r["value"]}
                    for j in range(fan_count(i, batch, rows))
                ]

            flow.concat_map(expand(fan)).subscribe(sink)
        else:
            (
                flow.filter(lambda env: env.value["id"] % 10 != 3)
                .map(keep_if(lambda r: r["id"] % 10 != 7))
                .map(map_value(lambda r: {"id": r["id"], "key": r["key"], "value": r["value"]}))
                .subscribe(sink)
            )
        sinks.append(sink)
    if run == 0:  # the earlier run: two batches of each sink id, closed cleanly
        deadline = time.monotonic() + 600
        while min(s.metrics.batches for s in sinks) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        for sink in sinks:
            sink.close()
    for sink in sinks:
        result = sink.result(3600)
        out = {"sink": sink.sink_id, "status": result.status, "records": result.metrics.records}
        print(json.dumps(out), flush=True)
    spark.stop()
    return 0


def reader(argv: list[str]) -> int:
    """A reader polling ``read_committed`` beside the writer until ``stop`` exists:
    every read must succeed, show no id twice and never fewer rows than before; in the
    ``filter`` shape (ids in order) what it shows is a prefix of the stream: every
    kept id up to the largest it sees, no gap (a batch seen in part would leave one)."""
    table, sink_id, stop, out, shape = argv
    from reactive_streams.spark.session import local_session
    from reactive_streams.spark.writer import read_committed

    spark = local_session("local[1]", fast_start=True, driver_memory="1g")
    stats: dict[str, Any] = {"reads": 0, "errors": [], "not_whole": [], "went_back": 0}
    last = 0
    while not os.path.exists(stop):
        try:
            df = read_committed(spark, table, sink_id=sink_id)
            row = df.selectExpr(
                "count(*) AS c", "count(DISTINCT id) AS d", "max(id) AS m"
            ).collect()[0]
            count, distinct, top = int(row["c"]), int(row["d"]), int(row["m"] or -1)
        except FileNotFoundError:
            continue  # nothing committed yet
        except Exception as e:  # any other failure is a finding
            stats["errors"].append(f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
            continue
        stats["reads"] += 1
        decades = (top + 1) // 10  # the kept ids 0..top: 8 per ten
        prefix = decades * 8 + sum(kept(i) for i in range(decades * 10, top + 1))
        if distinct != count or (shape == "filter" and count != prefix):
            stats["not_whole"].append({"count": count, "distinct": distinct, "max": top})
        stats["went_back"] += count < last
        last = max(last, count)
    spark.stop()
    Path(out).write_text(json.dumps(stats), encoding="utf-8")
    return 0


@dataclass
class Report:
    kills: list[dict[str, Any]] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0
    count: int = 0
    distinct: int = 0
    id_sum: int = 0
    expected_count: int = 0
    expected_sum: int = 0
    reader: dict[str, Any] | None = None  # the polling reader's findings (--reader)

    @property
    def lost(self) -> int:
        return self.expected_count - self.distinct

    @property
    def duplicated(self) -> int:
        return self.count - self.distinct


def _names(table: str, *sub: str) -> list[str]:
    """Entry names of directory ``table/sub`` ([] if absent), read as an outside
    observer: the local directory of a ``file:`` table, or a WebHDFS ``LISTSTATUS``."""
    uri = "/".join([table.rstrip("/"), *sub])
    parts = urlsplit(uri)
    if parts.scheme in ("", "file"):
        local = Path(parts.path)
        return [p.name for p in local.iterdir()] if local.is_dir() else []
    if parts.scheme != "webhdfs":
        raise ValueError(f"{uri}: the chaos harness reads file: and webhdfs: tables only")
    url = f"http://{parts.netloc}/webhdfs/v1{parts.path}?op=LISTSTATUS&user.name=root"
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            listing = json.load(answer)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return []
        raise
    return [str(s["pathSuffix"]) for s in listing["FileStatuses"]["FileStatus"]]


def _commits(table: str) -> int:
    """Commit records of SINK_ID: the next batch id (a compaction holds the early ones)."""
    names = _names(table, "_rs_sink", SINK_ID, "commits")
    ids = [int(n[:12]) for n in names if n.endswith((".json", ".compact")) and n[:12].isdigit()]
    return max(ids) + 1 if ids else 0


def _staging_busy(table: str) -> bool:
    """A batch is in its hidden staging directory: Spark is writing it (or a commit
    has not renamed it yet)."""
    return bool(_names(table, "_rs_sink", SINK_ID, "staging"))


def _tail(fh: Any) -> str:
    fh.flush()
    with open(fh.name, "rb") as f:
        return f.read()[-3000:].decode(errors="replace")


def run_chaos(
    work: Path,
    *,
    rows: int,
    kills: int,
    master: str,
    batch: int,
    files: int = 10,
    table: str | None = None,
    seed: int = 1,
    timeout: float = 3600.0,
    log: Any = None,
    shape: str = "filter",
    poll: bool = False,
) -> Report:
    """Run the job, SIGKILL it ``kills`` times at spread-out commit counts (sometimes
    while Spark is writing a batch, sometimes at a random delay), finish. The table is
    ``table`` (a URI) or ``work/table``."""
    rng = random.Random(seed)
    data = work / "data"
    table = table or (work / "table").absolute().as_uri()
    if shape == "log":
        make_log(data, rows)
    else:
        make_files(data, rows, files)
    outputs = expected(rows, shape, None, batch)[0] if shape == "fanout" else rows
    batches = -(-outputs // batch)
    # spread over all but the last 5 batches: a run must not finish before its kill
    targets = [max(1, (k + 1) * (batches - 5) // (kills + 1)) for k in range(kills)]
    report = Report()
    started = time.monotonic()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, __file__, "--job", table, str(data), master, str(batch), shape]
    cmd.append(str(rows))
    if shape == "two_sinks":  # the earlier run, not killed: SINK_ID rows to overwrite
        subprocess.run([*cmd, "0"], env=env, check=True, stdout=subprocess.DEVNULL, timeout=timeout)
    stop, found = work / "reader.stop", work / "reader.json"
    polling: subprocess.Popen[bytes] | None = None
    if poll:  # a reader beside the writer, for the whole run
        stop.unlink(missing_ok=True)
        polling = subprocess.Popen(
            [sys.executable, __file__, "--reader", table, SINK_ID, str(stop), str(found), shape],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(work / "reader.err", "wb"),  # noqa: SIM115 - the child holds it
        )
    for target in [*targets, None]:
        report.runs += 1
        grow(data, shape, report.runs, rows)
        errfile = open(work / f"run-{report.runs}.err", "wb")  # noqa: SIM115 - closed below
        child = subprocess.Popen(
            [*cmd, str(report.runs)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errfile,
            start_new_session=True,
        )
        try:
            if target is None:
                if child.wait(timeout=timeout) != 0:
                    raise RuntimeError(f"final run failed ({child.returncode}): {_tail(errfile)}")
                break
            mode = rng.choice(MODES)
            target = max(target, _commits(table) + 1)  # every run makes progress first
            deadline = time.monotonic() + timeout
            while _commits(table) < target and child.poll() is None:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no commit {target} within {timeout} s")
                time.sleep(0.02)
            if mode == "in_write":
                t_end = time.monotonic() + 30
                while (
                    not _staging_busy(table) and child.poll() is None and time.monotonic() < t_end
                ):
                    time.sleep(0.005)
            elif mode == "random":
                time.sleep(rng.uniform(0.0, 2.0))
            if child.poll() is not None:
                raise RuntimeError(
                    f"the job ended ({child.returncode}) before kill {len(report.kills) + 1} "
                    f"at {_commits(table)} commits: {_tail(errfile)}"
                )
            commits = _commits(table)
            os.killpg(child.pid, signal.SIGKILL)
            report.kills.append({"mode": mode, "commits": commits, "staging": _staging_busy(table)})
            if log is not None:
                log(f"kill {len(report.kills)}: {mode} at {commits} commits")
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=60)
            errfile.close()
    if polling is not None:
        stop.touch()
        polling.wait(timeout=600)
        report.reader = json.loads(found.read_text(encoding="utf-8"))
    report.seconds = time.monotonic() - started
    report.expected_count, report.expected_sum = expected(rows, shape, data, batch)
    return report


def read_back(spark: Any, table: str | Path, report: Report, sink_id: str = SINK_ID) -> Report:
    from reactive_streams.spark.writer import read_committed

    df = read_committed(spark, str(table), sink_id=sink_id)
    row = df.selectExpr("count(*) AS c", "count(DISTINCT id) AS d", "sum(id) AS s").collect()[0]
    report.count, report.distinct, report.id_sum = int(row["c"]), int(row["d"]), int(row["s"] or 0)
    return report


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--job":
        return job(args[1:])
    if args and args[0] == "--reader":
        return reader(args[1:])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--batch", type=int, default=40_000)
    parser.add_argument("--master", default="local[1]")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--shape", choices=SHAPES, default="filter")
    parser.add_argument(
        "--reader", action="store_true", help="poll read_committed beside the writer"
    )
    parser.add_argument(
        "--cluster", action="store_true", help="start a standalone master + 2 workers on loopback"
    )
    parser.add_argument(
        "--fs",
        choices=("file", "webhdfs"),
        default="file",
        help="where the table lives: a local directory, or a WebHDFS server on loopback",
    )
    opts = parser.parse_args(args)
    sys.path.insert(0, str(Path(__file__).parent))
    work: Path = opts.work.absolute()
    (work / "data").mkdir(parents=True, exist_ok=True)
    private: dict[str, Any] = {}
    with contextlib.ExitStack() as server:
        table = (work / "table").as_uri()
        if opts.fs == "webhdfs":
            webhdfs = importlib.import_module("webhdfs_server")  # tests/spark/webhdfs_server.py
            store = work / "webhdfs-store"
            uri = server.enter_context(
                webhdfs.start(store, private_mount=True, log=work / "webhdfs-ops.log")
            )
            table = f"{uri}/chaos/table"
            print(f"webhdfs up: {uri} (store in its own mount namespace)", flush=True)
        with contextlib.ExitStack() as stack:
            if opts.cluster:
                cluster = importlib.import_module("cluster")  # tests/spark/cluster.py
                hide = [Path("/tmp"), work / "data"]
                if opts.fs == "webhdfs":
                    hide.append(work / "webhdfs-store")
                opts.master = stack.enter_context(
                    cluster.standalone_cluster(
                        work / "cluster",
                        private_dirs=hide if opts.fs == "webhdfs" else (),
                        info=private,
                    )
                )
                print(f"cluster up: {opts.master} {private}", flush=True)
            report = run_chaos(
                work,
                rows=opts.rows,
                kills=opts.kills,
                master=opts.master,
                batch=opts.batch,
                table=table,
                log=lambda m: print(m, flush=True),
                shape=opts.shape,
                poll=opts.reader,
            )
        from reactive_streams.spark.session import local_session

        spark = local_session("local[1]", fast_start=True, driver_memory="1g")
        read_back(spark, table, report)
        other: Report | None = None
        if opts.shape == "two_sinks":  # the other sink id, killed and resumed alongside
            other = dataclasses.replace(report, kills=report.kills)
            read_back(spark, table, other, OTHER_ID)
        spark.stop()
        if opts.fs == "webhdfs":  # the table's bytes were never on this process's disk view
            private["store_entries_seen_by_driver"] = len(list((work / "webhdfs-store").iterdir()))
            private["local_table_dir"] = (work / "table").exists()
    modes = {
        m: sum(k["mode"] == m for k in report.kills) for m in ("in_write", "after_commit", "random")
    }
    print(
        json.dumps(
            {
                "master": opts.master,
                "shape": opts.shape,
                "table": table,
                "private": private,
                "rows_offered": opts.rows,
                "kills": len(report.kills),
                "kill_modes": modes,
                "runs": report.runs,
                "seconds": round(report.seconds, 1),
                "expected": report.expected_count,
                "count": report.count,
                "distinct": report.distinct,
                "lost": report.lost,
                "duplicated": report.duplicated,
                "sum_ok": report.id_sum == report.expected_sum,
                **({} if report.reader is None else {"reader": _reader_summary(report.reader)}),
                **(
                    {}
                    if other is None
                    else {
                        f"{OTHER_ID}_count": other.count,
                        f"{OTHER_ID}_distinct": other.distinct,
                        f"{OTHER_ID}_lost": other.lost,
                        f"{OTHER_ID}_duplicated": other.duplicated,
                    }
                ),
            }
        ),
        flush=True,
    )
    exact = report.lost == 0 and report.duplicated == 0 and report.id_sum == report.expected_sum
    if report.reader is not None:
        seen = report.reader
        exact = exact and not seen["errors"] and not seen["not_whole"] and not seen["went_back"]
    if other is not None:
        exact = exact and other.lost == 0 and other.duplicated == 0
        exact = exact and other.id_sum == other.expected_sum
    # the storage-apart checks hold where they were set up (--fs webhdfs): a file:
    # table on a cluster needs workers that share the filesystem, as loopback ones do
    hidden = bool(private.get("worker_private_dirs"))
    apart = (
        private.get("store_entries_seen_by_driver", 0) == 0
        and not private.get("local_table_dir", False)
        and (not hidden or all(private.get("workers_own_mount_ns", [True])))
    )
    return 0 if exact and apart else 1


def _reader_summary(seen: dict[str, Any]) -> dict[str, Any]:
    return {
        "reads": seen["reads"],
        "errors": len(seen["errors"]),
        "first_errors": seen["errors"][:3],
        "not_whole": len(seen["not_whole"]),
        "went_back": seen["went_back"],
    }


if __name__ == "__main__":
    sys.exit(main())
