"""The observe_on family's kit factories (``operators/_observe_on.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from typing import Any

from stateful.families import KitFactory

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow


def _observe_on(n: int, executor: Any = None) -> Flow[int]:
    return Flow.range(0, n).observe_on(executor or ManualExecutor(), prefetch=8)


KIT: tuple[KitFactory, ...] = (
    KitFactory("limit_rate", lambda n: Flow.range(0, n).limit_rate(4)),
    # the kit passes its own executor: absence is checked deterministically
    KitFactory("observe_on", _observe_on, failed=None, fusion=False, synchronous=False),
)
