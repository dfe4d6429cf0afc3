"""subscribe_on: what the mutation run (tools/mutation.py) showed untested.

A request the executor refuses after the subscription ends the stream with the refusal
and stops the source (rule 3.12's cancel reaches it)."""

from __future__ import annotations

from typing import Any

from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber

from ._util import Probe


class _RefusingLater(ManualExecutor):
    """A ManualExecutor that refuses every task once ``refuse`` is set (a pool shut down)."""

    refuse = False

    def execute(self, task: Any, label: str | None = None) -> None:
        if self.refuse:
            raise RuntimeError("refused")
        super().execute(task, label)


def test_spec109_a_refused_request_cancels_the_subscribed_source() -> None:
    executor = _RefusingLater()
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(0)
    probe.source(range(10)).subscribe_on(executor).subscribe(ts)
    executor.run_all()
    ts.assert_values().assert_no_terminal()
    executor.refuse = True
    ts.request(2)  # the request message is refused: on_error, and the source is stopped
    ts.assert_values().assert_error(RuntimeError, "refused").assert_no_violations()
    assert probe.requests == []
    assert probe.cancelled == 1


def test_spec109_a_refused_subscribe_signals_on_subscribe_then_the_error() -> None:
    executor = _RefusingLater()
    executor.refuse = True
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(1)
    probe.source(range(10)).subscribe_on(executor).subscribe(ts)
    ts.assert_values().assert_error(RuntimeError, "refused").assert_no_violations()
    assert ts.subscription is not None  # rule 1.9: on_subscribe first
    assert probe.requests == []  # never subscribed
    assert probe.cancelled == 0
