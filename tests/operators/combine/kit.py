"""The combine family's kit factories (``operators/_combine.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("combine_latest", lambda n: Flow.combine_latest(Flow.just(0), Flow.range(0, n))),
    KitFactory("with_latest_from", lambda n: Flow.range(0, n).with_latest_from(Flow.just(1))),
    KitFactory(
        "combine_latest_with",
        lambda n: Flow.just(0).combine_latest_with(Flow.range(0, n)),
        fusion=False,
    ),
)
