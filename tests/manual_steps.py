"""Stepping a ManualExecutor one task at a time, for the contract tests."""

from __future__ import annotations

from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber


def values_after_each_task(
    manual: ManualExecutor, ts: TestSubscriber[int], limit: int = 100
) -> list[int]:
    """Run the tasks one by one (at most ``limit``): the subscriber's value count after each."""
    counts: list[int] = []
    while len(manual):
        assert len(counts) < limit, f"the tasks do not quiesce: {counts[:10]}..."
        manual.run_next()
        counts.append(len(ts.values))
    return counts
