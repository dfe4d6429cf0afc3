"""The conformance kit's publishers of ``materialize`` (``n - 1`` elements and the
completion notification) and ``dematerialize`` (of a materialized flow)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (
    KitFactory("materialize", lambda n: Flow.range(0, max(0, n - 1)).materialize().take(n)),
    KitFactory("dematerialize", lambda n: Flow.range(0, n).materialize().dematerialize()),
)
