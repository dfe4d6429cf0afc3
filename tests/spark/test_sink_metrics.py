"""Sink metrics a Structured Streaming user reads (issue 26.8): rows, batches,
pending records, lag and time in flush, from code and on the progress line."""

from __future__ import annotations

import logging
import time
from typing import Any

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.progress import Progress
from reactive_streams.spark.sink import SparkSink

from .test_sink_unit import FakeSubscription


class SlowWriter(MemoryBatchWriter):
    """Each commit takes a measurable time (a monotonic clock that must advance)."""

    def commit(self, record: Any) -> None:
        start = time.monotonic()
        while time.monotonic() == start:
            pass
        super().commit(record)


def test_metrics_count_rows_batches_pending_lag_and_flush_time() -> None:
    ex = ManualExecutor()
    sink = SparkSink(
        writer=SlowWriter(MemoryStorage(), "m"),
        sink_id="m",
        batch_rows=4,
        max_latency=None,
        executor=ex,
        progress=False,
    )
    sink.on_subscribe(FakeSubscription())
    for i in range(6):
        sink.on_next((i, "x"))
    before = sink.metrics
    assert (before.records, before.batches, before.pending) == (0, 0, 6)
    assert before.lag_s > 0  # the first record is still waiting
    ex.run_all()  # batch 0 (4 rows) written and committed
    after = sink.metrics
    assert (after.records, after.batches, after.pending) == (4, 1, 2)
    assert after.flush_s > 0
    sink.on_complete()
    ex.run_all()
    final = sink.result(0).metrics
    assert (final.records, final.batches, final.pending, final.lag_s) == (6, 2, 0, 0.0)


def test_the_progress_line_shows_lag_and_flush_time() -> None:
    from reactive_streams.spark.progress import SinkMetrics

    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Lines()
    logger = logging.getLogger("reactive_streams.spark")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        progress = Progress("sink p", False)
        progress._enabled = True  # a log line, not a bar
        progress.every_s = 0.0
        metrics = SinkMetrics(10, 2, 100, 0, 1.0, 10, 1, pending=5, lag_s=1.5, flush_s=0.5)
        progress.update(10, metrics)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert any("5 pending, lag 1.5 s, 0.5 s in flush" in line for line in lines), lines
