"""The conformance kit's publishers of ``timestamp`` and ``time_interval`` (on a
``ManualExecutor``'s clock: no timer is armed, the clock is only read)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow

KIT = (
    KitFactory(
        "timestamp", lambda n: Flow.range(0, n).timestamp(scheduler=ManualExecutor()), fusion=False
    ),
    KitFactory(
        "time_interval",
        lambda n: Flow.range(0, n).time_interval(scheduler=ManualExecutor()),
        fusion=False,
    ),
)
