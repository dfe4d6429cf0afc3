"""The conformance kit's publisher of ``merge_sequential``: two halves of ``range(n)``."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory(
        "merge_sequential",
        lambda n: Flow.merge_sequential(Flow.range(0, n // 2), Flow.range(n // 2, n)),
    ),
)
