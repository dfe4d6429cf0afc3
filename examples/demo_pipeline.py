"""End-to-end job on embedded local Spark: generate -> transform/filter -> SparkSink -> verify.

1. a deterministic Publisher generates N click-stream events (on a worker thread);
2. ``observe_on`` moves them to a second thread, where ``map``/``filter`` enrich
   them and drop page views (the sink's convert and write lanes are further threads);
3. SparkSink appends them to a Parquet table, exactly once, in large batches;
4. Spark reads the table back; count and per-type sums of ``amount_cents`` must
   equal values computed independently by a plain Python loop;
5. throughput and peak memory (Python driver and Spark JVM) are printed.

Exits 1 if the verification fails. Usage: ``python examples/demo_pipeline.py --n 1000000``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import shutil
import sys
import tempfile
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="events to generate")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "rs-demo-events"))
    ap.add_argument("--batch-rows", type=int, default=131_072)
    ap.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    from pyspark.sql import functions as F

    spark = local_session(args.master, app_name="reactive-streams-demo")
    print(f"spark session ready in {time.monotonic() - t0:.1f} s", flush=True)
    shutil.rmtree(args.out, ignore_errors=True)

    source_thread = SingleThreadExecutor(name="demo-source")
    operator_thread = SingleThreadExecutor(name="demo-operators")
    pipeline = (
        Flow.range(0, args.n)
        .map(make_event)
        .subscribe_on(source_thread)  # events are generated on one thread ...
        .observe_on(operator_thread, prefetch=8192)  # ... enriched and filtered on another
        .map(enrich)
        .filter(keep)
    )
    sink = SparkSink(
        spark, args.out, sink_id="demo", schema=SCHEMA, batch_rows=args.batch_rows, progress=None
    )
    t1 = time.monotonic()
    pipeline.subscribe(sink)
    result = sink.result(timeout=3600)
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
