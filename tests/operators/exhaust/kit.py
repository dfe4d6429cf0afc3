"""The conformance kit's publisher of ``exhaust_map``: one upstream element whose inner
has the ``n`` elements (elements are dropped only while an inner runs)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory(
        "exhaust_map", lambda n: Flow.just(n).exhaust_map(lambda k: Flow.range(0, k)), fusion=False
    ),
)
