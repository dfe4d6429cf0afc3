"""The subscribe_on family's kit factories (``operators/_subscribe_on.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from typing import Any

from stateful.families import KitFactory

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow


def _subscribe_on(n: int, executor: Any = None) -> Flow[int]:
    return Flow.range(0, n).subscribe_on(executor or ManualExecutor())


KIT: tuple[KitFactory, ...] = (
    # the kit passes its own executor: absence is checked deterministically
    KitFactory("subscribe_on", _subscribe_on, failed=None, fusion=False, synchronous=False),
)
