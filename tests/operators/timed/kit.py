"""The timed family's kit factories (``operators/_timed.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory.pooled("delay", lambda n: Flow.range(0, n).delay(0.0005)),
)
