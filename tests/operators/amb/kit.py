"""The conformance kit's publisher of ``amb``: the flow against ``never()``."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (KitFactory("amb", lambda n: Flow.amb(Flow.never(), Flow.range(0, n))),)
