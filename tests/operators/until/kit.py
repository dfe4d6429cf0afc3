"""The conformance kit's publishers of ``take_until`` (the other never fires) and
``skip_until`` (the other completes at once: the gate is open from the start)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory("take_until", lambda n: Flow.range(0, n).take_until(Flow.never()), fusion=False),
    KitFactory("skip_until", lambda n: Flow.range(0, n).skip_until(Flow.empty()), fusion=False),
)
