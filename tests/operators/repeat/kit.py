"""The conformance kit's publishers of ``repeat`` and ``repeat_when``: ``n`` elements as
one element repeated ``n - 1`` times (``empty()`` repeated for none)."""

from __future__ import annotations

from typing import Any

from stateful.families import KitFactory

from reactive_streams.flow import Flow


def _repeat(n: int) -> Flow[Any]:
    return Flow.empty().repeat(2) if n == 0 else Flow.just(1).repeat(n - 1)


def _repeat_when(n: int) -> Flow[Any]:
    if n == 0:
        return Flow.empty().repeat_when(lambda c: c < 3)
    return Flow.just(1).repeat_when(lambda c: c < n)


KIT = (
    KitFactory("repeat", _repeat, fusion=False),
    KitFactory("repeat_when", _repeat_when, fusion=False),
)
