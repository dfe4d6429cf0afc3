"""Rule 2.4 is judged without timing (issue 22, item 4): an AsyncSubscriber-shaped
subscriber (it requests 2 up front, then one more after handling each element) gets the
same verdict whether handling an element takes 1 ms or lasts until a terminal signal
has arrived (longer than any quiet period); a subscriber that requests after
on_complete still fails on 2.4."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from reactive_streams.tck import Report, run_subscriber_blackbox_checks
from reactive_streams.tck.gallery import AsyncSubscriber, by_id, run

CHECK = "extra_spec204_blackbox_no_subscription_calls_after_a_terminal_signal"


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


class _OutlastsTheTerminal(AsyncSubscriber):
    """Handling an element ends only once on_complete or on_error has been called."""

    def __init__(self) -> None:
        self.terminal = threading.Event()
        super().__init__(batch=2, handling=lambda _: self.terminal.wait(30))

    def on_complete(self) -> None:
        self.terminal.set()
        super().on_complete()

    def on_error(self, error: BaseException) -> None:
        self.terminal.set()
        super().on_error(error)


def _run(factory: Callable[[], object]) -> Report:
    return run_subscriber_blackbox_checks(factory, only=lambda c: c.name == CHECK)


def _verdict(report: Report) -> tuple[str, str | None]:
    (result,) = report.results
    return result.outcome, result.violated


@pytest.mark.timeout(120)
def test_the_2_4_verdict_does_not_depend_on_the_handling_time() -> None:
    fast = _run(lambda: AsyncSubscriber(batch=2, handling=lambda _: time.sleep(0.001)))
    slow = _run(_OutlastsTheTerminal)
    assert _verdict(fast) == _verdict(slow) == ("passed", None), fast.table() + slow.table()


@pytest.mark.timeout(120)
def test_a_request_after_on_complete_still_fails_2_4() -> None:
    report = run(by_id("S16"), only=lambda c: c.name == CHECK)
    assert _verdict(report) == ("failed", "2.4"), report.table()
