"""The flat_map family's kit factories (``operators/_flat_map.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow
from reactive_streams.sources import just

KIT: tuple[KitFactory, ...] = (
    KitFactory("flat_map", lambda n: Flow.range(0, n).flat_map(just)),
    KitFactory("concat_map", lambda n: Flow.range(0, n).concat_map(just)),
    KitFactory("merge", lambda n: Flow.merge(Flow.range(0, n // 2), Flow.range(0, n - n // 2))),
    KitFactory(
        "merge_with",
        lambda n: Flow.range(0, n // 2).merge_with(Flow.range(0, n - n // 2)),
        fusion=False,
    ),
)
