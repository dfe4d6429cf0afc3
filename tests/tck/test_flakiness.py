"""Correct implementations pass every check 100 runs in a row (slow: RS_SLOW=1).

Run: ``RS_SLOW=1 .venv/bin/python -m pytest tests/tck/test_flakiness.py``; it takes a few
minutes on two cores (the time is printed with ``-s``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

import pytest

from reactive_streams import LambdaSubscriber
from reactive_streams.tck import (
    Report,
    run_processor_checks,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck.gallery import GalleryProcessor, GallerySubscriber

from . import factories as f

RUNS = 100

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("RS_SLOW") != "1", reason="100-run flakiness test: set RS_SLOW=1"
    ),
]

SUBJECTS: dict[str, Callable[[], Report]] = {
    "range-sync": lambda: run_publisher_checks(
        f.range_publisher,
        create_failed_publisher=f.failed_publisher,
        create_failing_publisher=f.failing_publisher,
        synchronous=True,
    ),
    "range-executor": lambda: run_publisher_checks(f.range_on, create_failed_publisher=f.failed_on),
    "from_iterable-executor": lambda: run_publisher_checks(f.iterable_on),
    "flow-map-filter-sync": lambda: run_publisher_checks(f.flow_map_filter, synchronous=True),
    "flow-observe_on-executor": lambda: run_publisher_checks(f.flow_observe_on),
    "lambda-subscriber": lambda: run_subscriber_blackbox_checks(
        lambda: LambdaSubscriber(request=1), synchronous=True
    ),
    "gallery-subscriber-whitebox": lambda: run_subscriber_whitebox_checks(
        lambda probe: GallerySubscriber(probe), synchronous=True
    ),
    "gallery-processor": lambda: run_processor_checks(
        lambda size: GalleryProcessor(size), synchronous=True
    ),
}


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_correct_implementations_pass_100_runs_in_a_row(name: str) -> None:
    logging.disable(logging.CRITICAL)
    started = time.monotonic()
    try:
        for run in range(RUNS):
            report = SUBJECTS[name]()
            bad = [f"{r.name}: {r.outcome}: {r.message}" for r in report.failures()]
            assert not bad, f"run {run + 1}: " + "\n".join(bad)
    finally:
        logging.disable(logging.NOTSET)
    print(f"{name}: {RUNS} runs in {time.monotonic() - started:.1f}s")
