"""The switch_map family's kit factories (``operators/_switch_map.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("switch_map", lambda n: Flow.just(0).switch_map(lambda _: Flow.range(0, n))),
    KitFactory(
        "switch_map_each",
        lambda n: Flow.range(0, n).concat_map(
            lambda x: Flow.just(x).switch_map(lambda y: Flow.just(y))
        ),
    ),
)
