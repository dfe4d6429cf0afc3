"""The conformance kit's publisher of ``using``: the resource is the element count."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory(
        "using", lambda n: Flow.using(lambda: n, lambda r: Flow.range(0, r), repr), fusion=False
    ),
)
