"""The CLI exits within its deadline when a failed subject's non-daemon thread keeps
emitting after the checks (issue 22, build item 2), and its report says so."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.tck.gallery.pooled import CancelIgnoringPublisher

HERE = Path(__file__).resolve().parent
CLI = (sys.executable, "-m", "reactive_streams.tck", "publisher")


class _Runaway:
    """Ignores cancel: once requested from, a non-daemon thread emits as demand allows
    and, once cancelled, for ever regardless of demand, swallowing whatever on_next
    raises (even the kit's CheckAborted)."""

    def __init__(self) -> None:
        self.demand = 0
        self.cond = threading.Condition()
        self.started = False
        self.cancelled = False

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(self)
        self.subscriber = subscriber

    def request(self, n: int) -> None:
        with self.cond:
            self.demand += n
            self.cond.notify_all()
            if self.started:
                return
            self.started = True
        threading.Thread(target=self._emit, daemon=False).start()

    def cancel(self) -> None:
        with self.cond:
            self.cancelled = True  # and nothing stops: rule 3.12 broken on purpose
            self.cond.notify_all()

    def _emit(self) -> None:
        i = 0
        while True:
            with self.cond:
                if not self.cond.wait_for(lambda: self.demand > 0 or self.cancelled, 0.05):
                    continue
                self.demand -= 0 if self.cancelled else 1
            with contextlib.suppress(BaseException):
                self.subscriber.on_next(i)
            i += 1


def runaway_publisher(n: int) -> _Runaway:
    return _Runaway()


def _slow_after_cancel(index: int, cancelled: bool) -> None:
    if cancelled:
        time.sleep(0.2)  # keeps emitting after cancel(), slowly, for ever (10**6 elements)


def pooled_runaway(n: int) -> CancelIgnoringPublisher:
    """Emits on a ThreadPoolExecutor worker, which Python's exit joins (daemon or not)."""
    return CancelIgnoringPublisher(n, _slow_after_cancel)


def _cli(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """The CLI on a publisher of this module; a run that does not exit in time fails."""
    try:
        return subprocess.run(
            [*CLI, *args, "--width", "200"],
            capture_output=True,
            text=True,
            cwd=HERE,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the CLI did not exit: {exc.stdout!r}") from None


@pytest.mark.timeout(120)
def test_the_cli_exits_although_a_pool_worker_of_the_subject_keeps_emitting() -> None:
    started = time.monotonic()
    result = _cli("test_cli_exit:pooled_runaway", "--only", "extra_spec312", timeout=30)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    assert "thread(s) of the subject still running after the checks" in result.stdout
    assert time.monotonic() - started < 30


@pytest.mark.timeout(120)
def test_the_cli_exits_although_the_subject_keeps_emitting() -> None:
    result = _cli(
        "test_cli_exit:runaway_publisher",
        "--only",
        "required_spec312",
        "--timeout",
        "1",
        "--check-timeout",
        "3",
        timeout=90,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "thread(s) of the subject still running after the checks" in result.stdout, result.stdout
