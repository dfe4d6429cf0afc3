"""The conformance kit's publishers of ``amb`` and ``amb_with``: the flow against
``never()``."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory("amb", lambda n: Flow.amb(Flow.never(), Flow.range(0, n)), fusion=False),
    KitFactory("amb_with", lambda n: Flow.range(0, n).amb_with(Flow.never()), fusion=False),
)
