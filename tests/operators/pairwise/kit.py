"""The conformance kit's publisher of ``pairwise``: ``n + 1`` elements make ``n`` pairs."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (KitFactory("pairwise", lambda n: Flow.range(0, n + 1).pairwise(), fusion=False),)
