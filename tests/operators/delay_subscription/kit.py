"""The delay_subscription family's kit factories (``operators/_delay_subscription.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory.pooled("delay_subscription", lambda n: Flow.range(0, n).delay_subscription(0.001)),
)
