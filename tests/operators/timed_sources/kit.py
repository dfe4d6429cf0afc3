"""The timed_sources family's kit factories (``operators/_timed_sources.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory.pooled("interval", lambda n: Flow.interval(0.0005).on_backpressure_drop().take(n)),
    KitFactory.pooled(
        "timer",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.timer(0.0001).map(lambda _: x)),
    ),
)
