"""The conformance kit's publisher of ``log``."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

from .cells import QUIET

KIT = (KitFactory("log", lambda n: Flow.range(0, n).log("kit", logger=QUIET), fusion=False),)
