"""subscribe_on: what the mutation run (tools/mutation.py) showed untested.

A request the executor refuses after the subscription ends the stream with the refusal
and stops the source; a cancel reaches an idle source as a message (rule 3.12);
subscribe(None) names rule 1.9."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import Probe


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


def test_spec312_a_cancel_reaches_an_idle_source_on_the_executor(manual: ManualExecutor) -> None:
    # an idle source emits no element to find the hop cancelled: the queued cancel stops it
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(0)
    probe.source(range(10)).subscribe_on(manual).subscribe(ts)
    manual.run_all()
    ts.cancel()
    assert probe.cancelled == 0  # a message on the executor, like every call upstream
    manual.run_all()
    assert probe.cancelled == 1
    assert probe.requests == []  # the cancel is not a request
    ts.assert_values().assert_no_terminal().assert_no_violations()


def test_spec109_subscribe_on_refuses_a_none_subscriber_by_name(manual: ManualExecutor) -> None:
    flow = Flow.range(0, 3).subscribe_on(manual)
    with pytest.raises(TypeError) as raised:
        flow.source.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert len(manual) == 0  # nothing was scheduled
