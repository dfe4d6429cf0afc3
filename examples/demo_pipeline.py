"""End-to-end job on embedded local Spark: generate -> transform/filter -> SparkSink -> verify.

1. a deterministic Publisher generates N click-stream events (on a worker thread);
2. ``observe_on`` moves them to a second thread, where ``map``/``filter`` enrich
   them and drop page views (the sink's convert and write lanes are further threads);
3. SparkSink appends them to a Parquet table, exactly once, in large batches;
4. Spark reads the table back; count and per-type sums of ``amount_cents`` must
   equal values computed independently by a plain Python loop;
5. throughput and peak memory (Python driver and Spark JVM) are printed.

With ``--rate R`` the source is paced at R events/s for ``--seconds`` (a slow
stream that never fills a batch): the sink then seals a batch ``max_latency``
seconds after its first record, and the demo prints when each batch became
visible and how long its oldest event waited (exit 1 if an event waited longer
than ``max_latency`` plus ``--write-allowance``).

Exits 1 if the verification fails. Usage: ``python examples/demo_pipeline.py --n 1000000``
or ``python examples/demo_pipeline.py --rate 10``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from typing import Any

from reactive_streams.executors import SingleThreadExecutor
from reactive_streams.flow import Flow
from reactive_streams.spark import SparkSink, local_session

EVENT_TYPES = ("view", "view", "view", "click", "click", "add_to_cart", "purchase")
COUNTRIES = ("DE", "FR", "US", "BR", "IN", "JP", "NG", "GB")
EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SCHEMA = (
    "event_id long, ts timestamp, user_id long, country string, event_type string, "
    "amount_cents long, session string, hour int"
)


def mix(i: int) -> int:
    """splitmix64: a fast, deterministic hash so each event depends only on its index."""
    z = (i * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def make_event(i: int) -> dict[str, Any]:
    h = mix(i)
    etype = EVENT_TYPES[h % 7]
    return {
        "event_id": i,
        "ts": EPOCH + dt.timedelta(seconds=i // 10),
        "user_id": (h >> 8) % 50_000,
        "country": COUNTRIES[(h >> 24) % 8],
        "event_type": etype,
        "amount_cents": (h >> 32) % 20_000 if etype == "purchase" else 0,
        "session": f"{h & 0xFFFFFFFFFFFF:012x}{i % 9973:04d}",
    }


def enrich(e: dict[str, Any]) -> dict[str, Any]:
    e["hour"] = e["ts"].hour
    return e


def keep(e: dict[str, Any]) -> bool:
    return bool(e["event_type"] != "view")


def expected(n: int) -> tuple[int, dict[str, tuple[int, int]]]:
    """Count, and per type (rows, sum of amount_cents), with a plain loop (no streams, no Spark)."""
    count = 0
    per_type: dict[str, tuple[int, int]] = {}
    for i in range(n):
        e = make_event(i)
        if keep(e):
            count += 1
            rows, cents = per_type.get(e["event_type"], (0, 0))
            per_type[e["event_type"]] = (rows + 1, cents + e["amount_cents"])
    return count, per_type


def jvm_peak_rss_mib() -> float:
    """VmHWM of the Spark JVM (a child of this process), in MiB; 0 if not found."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except (OSError, IndexError, ValueError):
            continue
    return 0.0


def report_latency(
    landed: list[tuple[float, int]],
    emitted: dict[int, float],
    args: argparse.Namespace,
    start: float,
) -> bool:
    """Print when each batch became visible and how long its oldest event waited;
    False if an event waited longer than max_latency + write allowance."""
    kept = [i for i in range(args.n) if keep(make_event(i))]  # the sink's k-th row
    worst = 0.0
    before = 0
    for when, committed in landed:
        waited = [when - emitted[kept[k]] for k in range(before, committed)]
        worst = max(worst, *waited)
        print(
            f"  t={when - start:5.1f} s: rows {before + 1}..{committed} visible, "
            f"oldest waited {max(waited):.2f} s, newest {min(waited):.2f} s"
        )
        before = committed
    bound = float(args.max_latency + args.write_allowance)
    print(
        f"latency: worst {worst:.2f} s for {args.rate:g} events/s "
        f"(max_latency {args.max_latency:g} s + one write; allowed {bound:g} s)"
    )
    return worst <= bound


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="events to generate")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "rs-demo-events"))
    ap.add_argument("--batch-rows", type=int, default=262_144)
    ap.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    ap.add_argument("--rate", type=float, default=None, help="pace the source: events/s")
    ap.add_argument("--seconds", type=float, default=20.0, help="with --rate: stream duration")
    ap.add_argument("--max-latency", type=float, default=2.0, help="the sink's max_latency (s)")
    ap.add_argument("--write-allowance", type=float, default=10.0)
    args = ap.parse_args(argv)
    paced = args.rate is not None
    if paced:
        args.n = max(1, round(args.rate * args.seconds))
    emitted: dict[int, float] = {}  # event id -> when the source sent it (paced mode)

    t0 = time.monotonic()
    from pyspark.sql import functions as F

    spark = local_session(args.master, app_name="reactive-streams-demo")
    print(f"spark session ready in {time.monotonic() - t0:.1f} s", flush=True)
    shutil.rmtree(args.out, ignore_errors=True)

    source_thread = SingleThreadExecutor(name="demo-source")
    operator_thread = SingleThreadExecutor(name="demo-operators")
    if paced:  # a fresh JVM's first writes take seconds (class loading, JIT): warm up
        warm = args.out + "-warmup"
        for k in range(3):
            shutil.rmtree(warm, ignore_errors=True)
            t_warm = time.monotonic()
            warm_sink = SparkSink(spark, warm, sink_id="warm", schema=SCHEMA, progress=False)
            Flow.range(0, 50).map(make_event).map(enrich).subscribe(warm_sink)
            warm_sink.result(timeout=600)
            print(f"warm-up write {k + 1}: {time.monotonic() - t_warm:.1f} s", flush=True)
        shutil.rmtree(warm, ignore_errors=True)
    start = time.monotonic()

    def pace(i: int) -> int:
        if paced:  # the i-th event leaves the source at start + i / rate
            time.sleep(max(0.0, start + i / args.rate - time.monotonic()))
            emitted[i] = time.monotonic()
        return i

    pipeline = (
        Flow.range(0, args.n)
        .map(pace)
        .map(make_event)
        .subscribe_on(source_thread)  # events are generated on one thread ...
        .observe_on(operator_thread, prefetch=8192)  # ... enriched and filtered on another
        .map(enrich)
        .filter(keep)
    )
    sink = SparkSink(
        spark,
        args.out,
        sink_id="demo",
        schema=SCHEMA,
        batch_rows=args.batch_rows,
        max_latency=args.max_latency,
        progress=None if not paced else False,
    )
    landed: list[tuple[float, int]] = []  # (when, rows committed so far)
    watching = threading.Event()

    def watch() -> None:  # polls the sink's committed row count
        seen = 0
        while not watching.is_set():
            committed = sink.metrics.records
            if committed != seen:
                seen = committed
                landed.append((time.monotonic(), committed))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    if paced:
        watcher.start()
    t1 = time.monotonic()
    start = t1
    pipeline.subscribe(sink)
    result = sink.result(timeout=3600)
    watching.set()
    late = False
    if paced:
        watcher.join()
        late = not report_latency(landed, emitted, args, start)
    elapsed = time.monotonic() - t1
    source_thread.close()
    operator_thread.close()
    m = result.metrics
    print(
        f"streamed {args.n:,} events, wrote {m.records:,} in {m.batches} batches "
        f"({m.bytes / 2**20:.1f} MiB Parquet) in {elapsed:.1f} s: "
        f"{args.n / elapsed:,.0f} events/s in, {m.records / elapsed:,.0f} rows/s written, "
        f"{m.retries} retries"
    )

    df = spark.read.parquet(args.out)
    got_count = df.count()
    got_sums = {
        r["event_type"]: (int(r["rows"]), int(r["cents"]))
        for r in df.groupBy("event_type")
        .agg(F.count("*").alias("rows"), F.sum("amount_cents").alias("cents"))
        .collect()
    }
    want_count, want_sums = expected(args.n)
    ok = got_count == want_count and got_sums == want_sums and m.records == want_count
    ok = ok and not late
    print(f"verify: count {got_count:,} (expected {want_count:,})")
    print(f"        per type (rows, cents) {dict(sorted(got_sums.items()))}")
    print(f"        expected               {dict(sorted(want_sums.items()))}")
    print(f"        {'OK' if ok else 'MISMATCH'}")
    py_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # started by exec
    print(f"peak RSS: python driver {py_peak:.0f} MiB, Spark JVM {jvm_peak_rss_mib():.0f} MiB")
    spark.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
