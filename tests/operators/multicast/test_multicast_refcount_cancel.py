"""ref_count's last cancel: the subscriber that cancels gets no signal from its own cancel.

The last subscriber's cancel detaches the connection, whose drain then cancels the
source and ends the subscribers still there by ``on_disconnect`` (``DisconnectedError``
for ``"error"``). The cancelling subscriber is not one of them: its cancel is received
before the detach, so a drain that runs in between (on another thread, or here at the
cancel's own scheduling point) finds it cancelled (rules 1.8, 3.12). The interleaving
machine's ``ref_count-replay-cancel`` scenario found the window between the detach and
the cancel's receipt; this test opens it at one point, deterministically.
"""

from __future__ import annotations

from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams._core import schedpoints
from reactive_streams.executors import ManualExecutor
from reactive_streams.multicast import publish, replay
from reactive_streams.multicast._connectable import _Counted
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(60)


def _drain_inside_cancel(make: Any) -> TestSubscriber[int]:
    """Subscribe to ``make(executor)``'s ref_count, request, then cancel; at the cancel's
    entry into the core (``cancel.enter``), the connection's queued drain runs there."""
    ex = ManualExecutor()
    shared = make(ex).ref_count()
    sub = TestSubscriber[int](0)
    shared.subscribe(sub)
    ex.run_all()  # on_subscribe
    sub.request(1)  # the drain task that will serve it waits on the executor
    assert len(ex) > 0
    ran: list[str] = []

    def hook(point: str, obj: object) -> None:
        if point == "cancel.enter" and isinstance(obj, _Counted) and not ran:
            ran.append(point)
            ex.run_all()  # the drain, between the cancel's start and its receipt

    previous = schedpoints.install(hook)
    try:
        sub.cancel()
    finally:
        schedpoints.install(previous)
    assert ran, "the cancel reached the core's cancel.enter point"
    ex.run_all()
    return sub


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda ex: replay(rs.range(0, 8), bound=2, executor=ex), id="replay"),
        pytest.param(lambda ex: publish(rs.range(0, 8), 2, executor=ex), id="publish"),
    ],
)
def test_last_cancel_gets_no_disconnect_error_from_its_own_cancel(make: Any) -> None:
    """Before the fix the drain found the connection detached and the subscriber not yet
    cancelled: ``on_error(DisconnectedError)`` arrived inside its own ``cancel()``."""
    sub = _drain_inside_cancel(make)
    assert sub.errors == [], f"rules 1.8, 3.12: the cancelling subscriber got {sub.errors!r}"
    assert sub.completions == 0


def test_last_cancel_still_cancels_the_source() -> None:
    """The cancel's drain runs after the detach: the source is cancelled, not pumped."""
    cancelled: list[bool] = []
    ex = ManualExecutor()
    source = rs.Flow.range(0, 8).do_on_cancel(lambda: cancelled.append(True))
    shared = replay(source, bound=2, executor=ex).ref_count()
    sub = TestSubscriber[int](1)
    shared.subscribe(sub)
    ex.run_all()
    sub.cancel()
    ex.run_all()
    assert cancelled == [True]
    assert shared.subscriber_count == 0
