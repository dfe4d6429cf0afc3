"""Flakiness under load (``make kit-load``; not in CI): each correct asynchronous subject
runs the whole kit RUNS times (default 100, ``RS_LOAD_RUNS``) while one CPU-burning
process per core, started and stopped here, saturates the machine. Every run must give
the expected verdicts; the figures (runs, failures, seconds) are printed (``-s``).

``test_absence_verdicts_do_not_flip_under_load``: an asynchronous publisher that ignores
cancel() (gallery P51) and its correct control, ``ABSENCE_RUNS`` (20) times each under
4 CPU burners per core: the broken one must fail every run on rule 3.12 or 1.8 (a
starved emitter must not pass for a stopped one), the correct one pass every run.
``tests/tck/test_settle_under_load.py`` runs a 3-run version in the normal suite."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest

from reactive_streams.tck import (
    Report,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
)
from reactive_streams.tck.gallery.publishers import ThreadedPublisher
from reactive_streams.tck.gallery.rules_3_subscription import CancelIgnoredAsync

from . import factories as f
from .reference import async_iterable_publisher as ai
from .reference import async_subscriber as asub
from .reference import verdicts as v
from .test_reference import compare

RUNS = int(os.environ.get("RS_LOAD_RUNS", "100"))
ABSENCE_RUNS = int(os.environ.get("RS_LOAD_ABSENCE_RUNS", "20"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("RS_LOAD") != "1", reason="load test: make kit-load"),
]

ABSENCE_CHECKS = (
    "extra_spec312_cancel_stops_emission_with_outstanding_demand",
    "extra_spec108_signals_stop_once_cancel_is_called_from_a_signal",
    "required_spec312_cancel_must_make_the_publisher_to_eventually_stop_signaling",
)
"""The checks that conclude "nothing more will come" after a cancel."""


@contextmanager
def burning(count: int) -> Iterator[int]:
    """``count`` busy-looping processes for the duration of the block."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield count
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait(10)


def absence_run(bug: str | None, max_elements: int) -> Report:
    """One run of ``ABSENCE_CHECKS`` on a ThreadedPublisher (``bug``: P51 or None)."""
    return run_publisher_checks(
        lambda n: (CancelIgnoredAsync if bug else ThreadedPublisher)(n),
        only=lambda c: c.name in ABSENCE_CHECKS,
        max_elements=max_elements,
        label=f"threaded publisher {bug or 'correct'}",
    )


def absence_table(runs: int, burners: int, max_elements: int) -> list[tuple[str, int, int, str]]:
    """(subject, runs, runs with the expected verdict, what the others gave), printed."""
    rows: list[tuple[str, int, int, str]] = []
    logging.disable(logging.CRITICAL)
    try:
        for bug in ("P51", None):
            good = 0
            wrong: list[str] = []
            for run in range(runs):
                report = absence_run(bug, max_elements)
                violated = {r.violated for r in report.failures()}
                expected = bool(violated & {"3.12", "1.8"}) if bug else report.ok
                good += expected
                if not expected:
                    wrong.append(f"run {run + 1}: " + "; ".join(_clean(report)) or "passed")
            rows.append((f"ThreadedPublisher {bug or 'correct'}", runs, good, " | ".join(wrong)))
    finally:
        logging.disable(logging.NOTSET)
    cores = os.cpu_count()
    print(f"\n| subject ({burners} CPU burners, {cores} cores) | runs | expected verdict |")
    print("|---|---|---|")
    for name, n, good, _ in rows:
        print(f"| {name} | {n} | {good} of {n} |")
    return rows


Subject = Callable[[Any], list[str]]


def _clean(report: Report) -> list[str]:
    return [f"{r.name}: {r.outcome}: {r.message}" for r in report.failures()]


SUBJECTS: dict[str, Subject] = {
    "NumberIterablePublisher (reference, 4-thread pool)": lambda e: compare(
        run_publisher_checks(
            ai.number_factory(e),
            create_failed_publisher=lambda: ai.failed(e),
            max_elements=2**31 - 1,
        ),
        v.ITERABLE,
    ),
    "InfiniteIncrementNumberPublisher (reference, 4-thread pool)": lambda e: compare(
        run_publisher_checks(
            ai.infinite_factory(e),
            create_failed_publisher=lambda: ai.failed(e),
            cannot_complete=True,
        ),
        v.INFINITE,
    ),
    "AsyncSubscriber (reference, 4-thread pool)": lambda e: compare(
        run_subscriber_blackbox_checks(lambda: asub.Accepting(e)), v.ASYNC_SUBSCRIBER_BLACKBOX
    ),
    "sources.range (executor mode)": lambda _e: _clean(
        run_publisher_checks(
            f.range_on,
            create_failed_publisher=f.failed_on,
            create_failing_publisher=f.failing_publisher,
        )
    ),
    "sources.from_iterable (executor mode)": lambda _e: _clean(
        run_publisher_checks(f.iterable_on, create_failed_publisher=f.failed_on)
    ),
    "Flow.range.observe_on.map (executor mode)": lambda _e: _clean(
        run_publisher_checks(f.flow_observe_on)
    ),
}


def _progress(name: str, runs: int, failed: int, seconds: float, wrong: list[str]) -> None:
    """One line per run to ``RS_LOAD_LOG`` (if set), so an interrupted run still counts;
    a failed run adds its mismatches."""
    log = os.environ.get("RS_LOAD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{name}\t{runs}\t{failed}\t{seconds:.1f}\n")
            out.writelines(f"  {line}\n" for line in wrong)


@pytest.fixture(scope="module")
def burners() -> Iterator[int]:
    """One busy-looping process per core for the whole module (``RS_LOAD_BURNERS`` to
    change the count, e.g. when several subjects run in parallel processes); stopped at
    the end."""
    with burning(int(os.environ.get("RS_LOAD_BURNERS", "0")) or os.cpu_count() or 2) as count:
        yield count


@pytest.mark.timeout(6 * 3600)
@pytest.mark.parametrize("name", list(SUBJECTS))
def test_correct_subjects_pass_every_run_under_load(name: str, burners: int) -> None:
    logging.disable(logging.CRITICAL)
    failures: list[str] = []
    started = time.monotonic()
    with ThreadPoolExecutor(4, thread_name_prefix="load") as pool:
        try:
            for run in range(RUNS):
                wrong = SUBJECTS[name](pool)
                if wrong:
                    failures.append(f"run {run + 1}: " + "; ".join(wrong))
                _progress(name, run + 1, len(failures), time.monotonic() - started, wrong)
        finally:
            logging.disable(logging.NOTSET)
    seconds = time.monotonic() - started
    print(f"\n{name}: {RUNS} runs, {len(failures)} failed, {seconds:.0f}s ({burners} CPU burners)")
    assert not failures, "\n".join(failures)


@pytest.mark.timeout(3 * 3600)
def test_absence_verdicts_do_not_flip_under_load() -> None:
    burners = max(8, 4 * (os.cpu_count() or 2))
    started = time.monotonic()
    with burning(burners):
        rows = absence_table(ABSENCE_RUNS, burners, 100_000)
    print(f"{time.monotonic() - started:.0f}s in all")
    assert all(good == n for _, n, good, _ in rows), rows
