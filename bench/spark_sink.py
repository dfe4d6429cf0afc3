"""SparkSink benchmark (not a test): streaming vs one bulk write, batch sizes, memory.

    python -m bench.spark_sink                 # N=1M comparison + sweep, RSS at 1M and 10M
    python -m bench.spark_sink --n 200000 --rss-n 200000,1000000 --sizes 65536

Three parts:

* same session, same run: a bulk write of N rows (generate all, one Arrow table,
  one ``createDataFrame(...).coalesce(1).write``) against the sink streaming the
  same N rows from a Publisher; reported as the ratio sink/bulk (target >= 0.8);
* rows/s of the sink for each batch size tried (same session);
* peak RSS (Python driver and Spark JVM) of the sink at each N of ``--rss-n``, each
  in a fresh process (growth from the smallest to the largest N; target <= 10 %).

Generation of the records is included in both paths (same generator).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SCHEMA = "id long, ts timestamp, key string, value double, payload string"
PAYLOAD = "0123456789abcdef0123456789abcdef"


def make(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "ts": EPOCH + dt.timedelta(milliseconds=i),
        "key": f"k{i % 1000}",
        "value": i * 0.25,
        "payload": PAYLOAD,
    }


def records(n: int) -> Iterator[dict[str, Any]]:
    return (make(i) for i in range(n))


def jvm_pid() -> int | None:
    """The Spark JVM: the child process of this Python driver."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if int(fh.read().rsplit(")", 1)[1].split()[1]) == me:
                    return int(pid)
        except (OSError, IndexError, ValueError):
            continue
    return None


def jvm_peak_mib() -> float:
    pid = jvm_pid()
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds() -> tuple[float, float]:
    """(Python driver, Spark JVM) CPU seconds so far: load-independent cost."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    jvm = 0.0
    pid = jvm_pid()
    if pid is not None:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        jvm = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return ru.ru_utime + ru.ru_stime, jvm


def measured(fn: Any, *args: Any) -> dict[str, float]:
    py0, jvm0 = cpu_seconds()
    rate = fn(*args)
    py1, jvm1 = cpu_seconds()
    return {"rows_per_s": rate, "py_cpu_s": py1 - py0, "jvm_cpu_s": jvm1 - jvm0}


def run_bulk(spark: Any, n: int, path: str) -> float:
    from reactive_streams.spark.records import RecordConverter

    shutil.rmtree(path, ignore_errors=True)
    t0 = time.perf_counter()
    table = RecordConverter(SCHEMA).convert(list(records(n)))
    spark.createDataFrame(table).coalesce(1).write.mode("overwrite").parquet(path)
    return n / (time.perf_counter() - t0)


def run_sink(spark: Any, n: int, path: str, batch_rows: int) -> float:
    from reactive_streams import sources
    from reactive_streams.executors import ThreadPoolExecutor
    from reactive_streams.spark import SparkSink

    shutil.rmtree(path, ignore_errors=True)
    pool = ThreadPoolExecutor(1, name="bench-source")
    try:
        t0 = time.perf_counter()
        sink = SparkSink(
            spark, path, sink_id="bench", schema=SCHEMA, batch_rows=batch_rows, progress=False
        )
        sources.from_iterable(records(n), executor=pool, batch_size=8192).subscribe(sink)
        result = sink.result(timeout=3600)
        elapsed = time.perf_counter() - t0
    finally:
        pool.close()
    assert result.metrics.records == n, result
    return n / elapsed


def session(warm_n: int = 200_000, batch_rows: int = 65_536, rounds: int = 1) -> Any:
    from reactive_streams.spark import local_session

    spark = local_session(app_name="bench-spark-sink")
    warm = os.path.join(tempfile.gettempdir(), "rs-bench-warm")
    run_bulk(spark, 3_000, warm)  # class loading
    for _ in range(rounds):  # JIT warm-up of both write paths
        run_sink(spark, warm_n, warm, batch_rows)
        if warm_n > 3_000:
            run_bulk(spark, warm_n, warm)
    return spark


def compare(args: argparse.Namespace) -> dict[str, Any]:
    # warm both paths at the measured size: the sink runs more, smaller Spark jobs,
    # whose code the JIT compiles later than the one bulk job's
    spark = session(args.n, args.batch_rows, args.warm_rounds)
    out = os.path.join(tempfile.gettempdir(), "rs-bench-spark-sink")
    sizes = [int(s) for s in args.sizes.split(",")]
    default = args.batch_rows
    sizes = sorted({*sizes, default})
    bulk, sink = [], []
    for _ in range(args.repeat):  # interleaved, so load changes hit both alike
        bulk.append(measured(run_bulk, spark, args.n, out + "-bulk"))
        sink.append(measured(run_sink, spark, args.n, out + "-sink", default))
    sweep = {}
    for size in sizes:
        if size != default:
            sweep[size] = measured(run_sink, spark, args.n, out, size)
    spark.stop()

    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    cpu_bulk = med(bulk, "py_cpu_s") + med(bulk, "jvm_cpu_s")
    cpu_sink = med(sink, "py_cpu_s") + med(sink, "jvm_cpu_s")
    sweep[default] = {k: med(sink, k) for k in sink[0]}
    return {
        "n": args.n,
        "bulk": bulk,
        "sink": sink,
        "ratio_rows_per_s_median": med(sink, "rows_per_s") / med(bulk, "rows_per_s"),
        "ratio_best": max(r["rows_per_s"] for r in sink) / max(r["rows_per_s"] for r in bulk),
        "cpu_s_bulk_median": cpu_bulk,
        "cpu_s_sink_median": cpu_sink,
        "sink_batch_rows": default,
        "sweep": dict(sorted(sweep.items())),
    }


def vm_hwm_mib() -> float:
    """This process's peak RSS (VmHWM). Unlike ru_maxrss it starts afresh at exec,
    so a worker does not inherit the peak of the process that forked it."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def rss_worker(n: int, batch_rows: int) -> dict[str, Any]:
    spark = session(warm_n=3_000)  # no bulk warm-up: it would set the peak
    path = os.path.join(tempfile.gettempdir(), f"rs-bench-rss-{n}")
    before = vm_hwm_mib()
    rate = run_sink(spark, n, path, batch_rows)
    py = vm_hwm_mib()
    jvm = jvm_peak_mib()
    spark.stop()
    shutil.rmtree(path, ignore_errors=True)
    return {
        "n": n,
        "rows_per_s": rate,
        "python_peak_mib": py,
        "python_peak_before_run_mib": before,
        "jvm_peak_mib": jvm,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="SparkSink benchmark")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--sizes", default="16384,65536,131072,262144")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--rss-n", default="1000000,10000000")
    ap.add_argument("--rss-worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--batch-rows", type=int, default=262_144)
    ap.add_argument("--warm-rounds", type=int, default=2)
    ap.add_argument("--skip-compare", action="store_true")
    args = ap.parse_args(argv)
    if args.rss_worker is not None:
        print(json.dumps(rss_worker(args.rss_worker, args.batch_rows)))
        return 0
    report: dict[str, Any] = {}
    if not args.skip_compare:
        report["compare"] = compare(args)
        print(json.dumps(report["compare"], indent=1), flush=True)
    rss = []
    for n in [int(x) for x in args.rss_n.split(",") if x]:
        proc = subprocess.run(
            [sys.executable, "-m", "bench.spark_sink", "--rss-worker", str(n),
             "--batch-rows", str(args.batch_rows)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        rss.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(rss[-1]), flush=True)
    if len(rss) >= 2:
        growth = rss[-1]["python_peak_mib"] / rss[0]["python_peak_mib"] - 1
        report["rss"] = {"runs": rss, "python_growth": growth}
        print(f"python peak RSS growth {rss[0]['n']:,} -> {rss[-1]['n']:,}: {growth:+.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
