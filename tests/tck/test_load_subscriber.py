"""The AsyncSubscriber-shaped subscriber (signals queued to a worker thread, every request
made from it) passes the whitebox and blackbox checks RUNS times (default 100,
``RS_LOAD_RUNS``) with every core busy: at least 4 CPU-burning processes, 4 per core
(``RS_LOAD_BURNERS``), started and stopped here. ``make kit-load``; not in CI."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from .test_load import burning
from .test_subscriber_fixture import run_async_subscriber_once

RUNS = int(os.environ.get("RS_LOAD_RUNS", "100"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("RS_LOAD") != "1", reason="load test: make kit-load"),
]


@pytest.fixture(scope="module")
def burners() -> Iterator[int]:
    count = int(os.environ.get("RS_LOAD_BURNERS", "0")) or max(4, 4 * (os.cpu_count() or 1))
    with burning(count):
        yield count


@pytest.mark.timeout(6 * 3600)
def test_an_async_whitebox_subscriber_passes_every_run_under_load(burners: int) -> None:
    failures: list[str] = []
    started = time.monotonic()
    for run in range(RUNS):
        failures.extend(f"run {run + 1}: {f}" for f in run_async_subscriber_once())
    seconds = time.monotonic() - started
    print(f"\nAsyncSubscriber: {RUNS} runs, {len(failures)} failed, {seconds:.0f}s")
    print(f"({burners} CPU burners)")
    assert not failures, "\n".join(failures)
