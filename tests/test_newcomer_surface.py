"""Issue 25's newcomer frictions, one test (or a few) per item: what went wrong for a
user coming from reactivex or Reactor, then what happens now.

Subprocess tests run a tiny program in a fresh interpreter, because what they check
(logging as an application that configured none sees it) is global state.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import reactive_streams
from reactive_streams import Flow

pytestmark = pytest.mark.timeout(60)

IMPL = Path(reactive_streams.__file__).resolve().parent.parent


def _run(program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PYTHONPATH": str(IMPL), "PATH": "/usr/bin:/bin"},
        check=False,
    )


# ------------------------------------------------- 1. no silent failure
def test_an_unhandled_error_reaches_stderr_without_logging_configured() -> None:
    done = _run("""
        from reactive_streams import Flow
        sub = Flow.range(3).map(lambda x: 1 / (x - 1)).subscribe(print)
        assert sub.done.wait(5)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "-1.0\n"
    assert "ZeroDivisionError" in done.stderr
    assert "no on_error callback" in done.stderr


def test_an_unhandled_error_from_on_next_reaches_stderr_too() -> None:
    done = _run("""
        from reactive_streams import Flow
        def boom(x):
            raise ValueError("bad element")
        Flow.range(3).subscribe(boom)
        """)
    assert "ValueError: bad element" in done.stderr


def test_an_application_handler_gets_the_record_and_stderr_stays_quiet() -> None:
    done = _run("""
        import logging
        records = []
        class Keep(logging.Handler):
            def emit(self, record):
                records.append(record)
        logging.getLogger().addHandler(Keep())
        from reactive_streams import Flow
        Flow.error(KeyError("k")).subscribe(print)
        assert len(records) == 1 and records[0].levelno == logging.ERROR, records
        """)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_lambda_subscriber_exposes_error_and_completed() -> None:
    failed = Flow.range(3).map(lambda x: 1 // (x - 1)).subscribe(lambda x: None, lambda e: None)
    assert failed.done.wait(5)
    assert isinstance(failed.error, ZeroDivisionError)
    assert not failed.completed
    ok = Flow.range(3).subscribe(lambda x: None)
    assert ok.done.wait(5)
    assert ok.completed
    assert ok.error is None


def test_lambda_subscriber_is_a_context_manager_that_cancels_on_exit() -> None:
    cancelled = threading.Event()
    with Flow.timer(3600.0).do_on_cancel(cancelled.set).subscribe(print) as sub:
        assert not sub.done.is_set()
    assert cancelled.wait(5), "leaving the with block cancels the subscription"
    assert sub.done.is_set()
    assert not sub.completed
