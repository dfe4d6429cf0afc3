"""The zip family's kit factories (``operators/_zip.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("zip", lambda n: Flow.zip(Flow.range(0, n), Flow.range(0, n + 1))),
    # zip's method form: once, not per fusion mode
    KitFactory("zip_with", lambda n: Flow.range(0, n).zip_with(Flow.range(0, n + 1)), fusion=False),
)
