"""The conformance kit's publishers of ``merge_sequential`` (two halves of ``range(n)``)
and ``flat_map_sequential`` (one inner of one element per element)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory(
        "merge_sequential",
        lambda n: Flow.merge_sequential(Flow.range(0, n // 2), Flow.range(n // 2, n)),
        fusion=False,
    ),
    KitFactory(
        "flat_map_sequential",
        lambda n: Flow.range(0, n).flat_map_sequential(lambda x: Flow.just(x), max_concurrency=4),
        fusion=False,
    ),
)
