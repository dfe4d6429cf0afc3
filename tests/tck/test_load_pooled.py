"""The pool-threaded gallery subjects under load (``make kit-load``; not in CI): each runs
``RS_LOAD_POOLED_RUNS`` (20) times while ``RS_LOAD_BURNERS`` (8) busy-looping processes
saturate the machine, the series side by side, each in its own process (separate kit
runs): the broken ones must fail every run on their rule, the correct ones pass every
run. The figures are printed (``-s``).

* ``CancelIgnoringPublisher`` (1.8/3.12): ``extra_spec312`` and ``extra_spec108``;
* ``DoubleCompletingPublisher`` (1.7): the end-of-stream race check;
* ``PrefetchingProcessor`` (correct; its error overtakes what it holds): ``extra_spec104``
  and the processor's own 4.2 checks;
* ``PooledPublisher`` (correct control) on the publisher checks above.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reactive_streams.tck import Report, run_processor_checks, run_publisher_checks
from reactive_streams.tck.gallery.pooled import (
    CancelIgnoringPublisher,
    DoubleCompletingPublisher,
    PooledPublisher,
    PrefetchingProcessor,
)

from .test_load import burning
from .test_load import pytestmark as pytestmark  # slow; RS_LOAD=1 only (make kit-load)

RUNS = int(os.environ.get("RS_LOAD_POOLED_RUNS", "20"))
BURNERS = int(os.environ.get("RS_LOAD_BURNERS", "8"))

CANCEL = (
    CancelIgnoringPublisher.check,
    "extra_spec108_signals_stop_once_cancel_is_called_from_a_signal",
)
END = (DoubleCompletingPublisher.check,)
SETTINGS = {"max_elements": 20_000, "timeout": 10.0}


@dataclass
class Subject:
    name: str
    run: Callable[[], Report]
    rules: tuple[str, ...] | None
    """The rules every failure must cite (None: a correct subject, every check passes)."""


def _publisher(
    cls: type[PooledPublisher] | type[DoubleCompletingPublisher], checks: tuple[str, ...]
) -> Callable[[], Report]:
    def run() -> Report:
        return run_publisher_checks(
            cls,
            only=lambda c: c.name in checks,
            label=cls.__name__,
            **SETTINGS,  # type: ignore[arg-type]
        )

    return run


def _processor() -> Report:
    return run_processor_checks(
        PrefetchingProcessor,
        only=lambda c: c.name == PrefetchingProcessor.check or "spec402" in c.name,
        max_subscribers=1,
        label="PrefetchingProcessor",
        **SETTINGS,  # type: ignore[arg-type]
    )


SUBJECTS = (
    Subject(
        "CancelIgnoringPublisher", _publisher(CancelIgnoringPublisher, CANCEL), ("3.12", "1.8")
    ),
    Subject("DoubleCompletingPublisher", _publisher(DoubleCompletingPublisher, END), ("1.7",)),
    Subject("PrefetchingProcessor", _processor, None),
    Subject("PooledPublisher", _publisher(PooledPublisher, CANCEL + END), None),
)


def _expected(subject: Subject, report: Report) -> str:
    """ "" when the run gave the subject's verdict, else what it gave."""
    if subject.rules is None:
        bad = [r for r in report.results if r.outcome not in ("passed", "skipped")]
        return "; ".join(f"{r.name}: {r.outcome} {r.violated} {r.message[:120]}" for r in bad)
    wrong = [r for r in report.results if not (r.failed and r.violated in subject.rules)]
    return "; ".join(f"{r.name}: {r.outcome} {r.violated} {r.message[:120]}" for r in wrong)


def _series(subject: Subject) -> tuple[str, int, list[str], float]:
    started = time.monotonic()
    misses = [why for why in (_expected(subject, subject.run()) for _ in range(RUNS)) if why]
    return subject.name, RUNS - len(misses), misses, time.monotonic() - started


def _run_series(name: str) -> None:
    """``python -m tck.test_load_pooled NAME`` (from ``tests/``): one series, one JSON line."""
    logging.disable(logging.CRITICAL)
    print(json.dumps(_series({s.name: s for s in SUBJECTS}[name])))


@pytest.mark.timeout(3600)
def test_pooled_subjects_give_their_verdicts_under_load() -> None:
    """Each series in its own process, as separate kit runs on one machine are (in one
    process the kit watches every thread, and the other runs' threads would be its)."""
    here = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-m", "tck.test_load_pooled"]
    with burning(BURNERS):
        procs = [
            subprocess.Popen([*command, s.name], cwd=here, stdout=subprocess.PIPE, text=True)
            for s in SUBJECTS
        ]
        rows = [json.loads(proc.communicate(timeout=3000)[0].splitlines()[-1]) for proc in procs]
    print(f"\n{RUNS} runs each, {BURNERS} burners on {os.cpu_count()} cores, side by side:")
    for name, good, misses, seconds in rows:
        print(f"  {name}: {good}/{RUNS} as expected, {seconds:.0f}s; {misses[:2]}")
    assert all(good == RUNS for _, good, _, _ in rows), rows


if __name__ == "__main__":
    _run_series(sys.argv[1])
