"""The tail family's kit factories (``operators/_tail.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("take_last", lambda n: Flow.range(0, n + 3).take_last(n)),
    KitFactory.single("count", lambda f: f.count()),
    KitFactory.single("all", lambda f: f.all(lambda x: x < 3)),
    KitFactory.single("any", lambda f: f.any(lambda x: x > 2)),
    KitFactory.single("element_at", lambda f: f.element_at(2)),
)
