"""The aggregate family's kit factories (``operators/_aggregate.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("buffer", lambda n: Flow.range(0, 2 * n).buffer(2)),
    KitFactory(
        "window", lambda n: Flow.range(0, 2 * n).window(2).concat_map(lambda w: w.collect())
    ),
    KitFactory.single("reduce", lambda f: f.reduce(lambda a, b: a + b)),
    # buffer's alias: once, not per fusion mode
    KitFactory("batch", lambda n: Flow.range(0, 2 * n).batch(2), fusion=False),
)
