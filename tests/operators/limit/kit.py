"""The limit family's kit factories (``operators/_limit.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("take", lambda n: Flow.range(0, n + 5).take(n)),
    KitFactory("skip", lambda n: Flow.range(0, n + 3).skip(3)),
    KitFactory("take_while", lambda n: Flow.range(0, n + 5).take_while(lambda x: x < n)),
)
