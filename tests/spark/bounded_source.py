"""SparkSource on one big Parquet file with a small driver: only the rows asked for.

``make spark-source-big`` runs it (2,000,000 rows, ``spark.driver.memory=512m``):

1. writes ROWS rows as one Parquet file (one row group, so one input partition);
2. subscribes a ``SparkSource`` over it, requests 10 rows, checks that exactly 10
   arrive (ids 0..9, in order), cancels, and reports the driver JVM's heap and
   peak RSS;
3. reads the same file with ``partition_bytes=None`` (the partition as it is):
   the driver runs out of memory, and the subscriber must get ``on_error``
   (a dead JVM included), never hang.

Exit status 0 when every check holds, 1 otherwise; the figures go to stdout as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from typing import Any

WAIT = 300.0


def _status(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(("VmHWM:", "VmRSS:")):
                    out[line.split(":")[0]] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return out


class Recorder:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self.errors: list[BaseException] = []
        self.done = threading.Event()
        self.cond = threading.Condition()
        self.subscription: Any = None

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription

    def on_next(self, item: Any) -> None:
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def on_error(self, error: BaseException) -> None:
        self.errors.append(error)
        self.done.set()

    def on_complete(self) -> None:
        self.done.set()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--request", type=int, default=10)
    ap.add_argument("--driver-memory", default="512m")
    ap.add_argument("--work", default="build/spark-source-big")
    ap.add_argument("--skip-oom", action="store_true", help="skip step 3")
    args = ap.parse_args(argv)

    from reactive_streams.spark.session import local_session
    from reactive_streams.spark.source import SparkSource, SparkSourceError

    t0 = time.monotonic()
    spark = local_session(
        "local[2]", app_name="bounded-source", fast_start=True, driver_memory=args.driver_memory
    )
    jvm_pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    path = os.path.abspath(os.path.join(args.work, f"rows-{args.rows}.parquet"))
    if not os.path.exists(os.path.join(path, "_SUCCESS")):
        spark.range(args.rows).selectExpr(
            "id",
            "timestamp_seconds(id) AS ts",
            "concat('k', id % 97) AS key",
            "id * 0.5 AS value",
            "substr(sha2(cast(id % 50000 AS string), 256), 1, 32) AS payload",
        ).coalesce(1).write.mode("overwrite").parquet(path)
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    figures: dict[str, Any] = {
        "rows": args.rows,
        "file_mib": round(size / 2**20, 1),
        "driver_memory": args.driver_memory,
        "jvm_heap_max_mib": round(int(runtime.maxMemory()) / 2**20),
        "jvm_before": _status(jvm_pid),
    }
    ok = True

    # 2. bounded: exactly the requested rows
    rec = Recorder()
    source = SparkSource(spark.read.parquet(path))
    t1 = time.monotonic()
    source.subscribe(rec)
    rec.subscription.request(args.request)
    with rec.cond:
        got = rec.cond.wait_for(lambda: len(rec.items) >= args.request or rec.done.is_set(), WAIT)
    figures["first_rows_s"] = round(time.monotonic() - t1, 1)
    figures["jvm_heap_used_mib"] = round(
        (int(runtime.totalMemory()) - int(runtime.freeMemory())) / 2**20
    )
    figures["jvm_after_request"] = _status(jvm_pid)
    rec.subscription.cancel()
    thread = rec.subscription.thread
    thread.join(WAIT)
    figures["partitions_read"] = rec.subscription.partitions
    ids = [r["id"] for r in rec.items]
    figures["bounded_rows_received"] = len(ids)
    if not got or ids != list(range(args.request)) or rec.errors or thread.is_alive():
        print(f"FAIL bounded read: got {len(ids)} rows {ids[:12]}, errors {rec.errors}")
        ok = False

    # 3. unbounded: one partition too big for the driver must end in on_error
    if not args.skip_oom:
        rec2 = Recorder()
        SparkSource(spark.read.parquet(path), partition_bytes=None).subscribe(rec2)
        rec2.subscription.request(args.request)
        t2 = time.monotonic()
        finished = rec2.done.wait(WAIT)
        figures["unbounded_terminal_s"] = round(time.monotonic() - t2, 1)
        figures["unbounded_signal"] = (
            type(rec2.errors[0]).__name__ if rec2.errors else ("complete" if finished else "none")
        )
        figures["unbounded_rows_received"] = len(rec2.items)
        if rec2.errors:
            figures["unbounded_error"] = str(rec2.errors[0])[:160]
        if not finished or not rec2.errors or not isinstance(rec2.errors[0], SparkSourceError):
            if finished and not rec2.errors and len(rec2.items) == args.request:
                figures["unbounded_signal"] = "no OOM (the partition fit)"
            else:
                print(f"FAIL unbounded read: finished={finished} errors={rec2.errors}")
                ok = False
    figures["total_s"] = round(time.monotonic() - t0, 1)
    print(json.dumps(figures, indent=1))
    with contextlib.suppress(Exception):  # the JVM may be gone after step 3
        spark.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
