"""A starved emitter is silent, not stopped: absence is judged in the subject's CPU time.

The cancel-ignoring publisher (gallery ``CancelIgnoringPublisher``, rules 1.8/3.12) is
starved on purpose, the same way every run: at its first element after ``cancel()`` its
emitting thread moves itself to ``SCHED_IDLE`` on a core where a pinned busy loop runs, so
it stays runnable but gets well under 1% of a core (each element then costs it about a
second of wall time), while the kit's threads run on the other core. Wall-clock quiet
windows see silence and pass it; windows in the subject's CPU time do not count while its
thread is runnable without the CPU, so the check ends on its rule.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from reactive_streams.tck import run_publisher_checks
from reactive_streams.tck.gallery.pooled import CancelIgnoringPublisher

pytestmark = pytest.mark.skipif(
    not hasattr(os, "SCHED_IDLE") or len(os.sched_getaffinity(0)) < 2,
    reason="needs Linux SCHED_IDLE and two cores",
)

_DATA = b"x" * 1_000_000  # hashing it costs the emitter about a millisecond of CPU


@pytest.fixture
def burner() -> Iterator[int]:
    """A busy loop pinned to one core: the core the starved emitter will wait for."""
    core = min(os.sched_getaffinity(0))
    proc = subprocess.Popen(
        [sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True: pass"]
    )
    try:
        yield core
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.timeout(120)
def test_a_starved_emitter_that_ignores_cancel_fails_on_its_rule(burner: int) -> None:
    stop = threading.Event()
    cores = os.sched_getaffinity(0)
    starved: list[int] = []

    def hook(index: int, cancelled: bool) -> None:
        if stop.is_set():  # the test is over: leave the pool worker as it was
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            os.sched_setaffinity(0, cores)
            raise SystemExit  # ends the emitting task (the pool keeps its worker)
        if cancelled and not starved:
            starved.append(index)
            os.sched_setaffinity(0, {burner})
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        for _ in range(10 if cancelled else 1):  # the subject's own work per element
            hashlib.sha256(_DATA).digest()

    try:
        report = run_publisher_checks(
            lambda n: CancelIgnoringPublisher(n, hook),
            only=lambda c: c.name == CancelIgnoringPublisher.check,
            timeout=3.0,
            check_timeout=5.0,
            label="starved cancel-ignoring publisher",
        )
    finally:
        stop.set()
    (result,) = report.results
    assert starved, "the emitter was never starved: the subject did not run as planned"
    assert result.failed, f"passed on {result.evidence}: {result.message}"
    assert result.violated in ("3.12", "1.8"), result.message
