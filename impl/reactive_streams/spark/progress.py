"""Sink metrics and progress reporting (tqdm on a terminal, else a log line)."""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["Progress", "SinkMetrics"]

log = logging.getLogger("reactive_streams.spark")


@dataclass(frozen=True)
class SinkMetrics:
    """A snapshot of what the sink has durably written in this run."""

    records: int
    batches: int
    bytes: int
    retries: int
    elapsed_s: float
    committed_offset: int
    last_committed_batch_id: int
    # issue 26.8: what a Structured Streaming user reads off a query's progress
    pending: int = 0  # records received and not yet committed
    lag_s: float = 0.0  # how long the oldest of them has waited
    flush_s: float = 0.0  # time spent writing and committing batches (all of them)

    @property
    def rows_per_s(self) -> float:
        return self.records / self.elapsed_s if self.elapsed_s > 0 else 0.0


class Progress:
    """Reports committed records: a tqdm bar on a TTY, otherwise a log line every ``every_s``."""

    def __init__(self, name: str, enabled: bool | None, every_s: float = 10.0) -> None:
        self.name = name
        self.every_s = every_s
        self._bar: Any = None
        self._last_log = time.monotonic()
        self._enabled = enabled if enabled is not None else True
        if enabled is None:
            enabled = sys.stderr.isatty()
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(desc=name, unit="rows", unit_scale=True, leave=True)
            except ImportError:  # pragma: no cover - tqdm ships with the [spark] extra
                self._bar = None

    def update(self, rows: int, metrics: SinkMetrics) -> None:
        if self._bar is not None:
            self._bar.set_postfix(
                batches=metrics.batches,
                lag=f"{metrics.lag_s:.1f}s",
                flush=f"{metrics.flush_s:.1f}s",
                refresh=False,
            )
            self._bar.update(rows)
            return
        now = time.monotonic()
        if self._enabled and now - self._last_log >= self.every_s:
            self._last_log = now
            log.info(
                "%s: %d records in %d batches, %.0f rows/s, batch %d committed, "
                "%d pending, lag %.1f s, %.1f s in flush",
                self.name,
                metrics.records,
                metrics.batches,
                metrics.rows_per_s,
                metrics.last_committed_batch_id,
                metrics.pending,
                metrics.lag_s,
                metrics.flush_s,
            )

    def close(self, metrics: SinkMetrics, status: str) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._enabled:
            log.info(
                "%s %s: %d records, %d batches, %d bytes, %d retries, %.0f rows/s",
                self.name,
                status,
                metrics.records,
                metrics.batches,
                metrics.bytes,
                metrics.retries,
                metrics.rows_per_s,
            )
