"""The conformance kit's publisher of ``Flow.never()``: it cannot emit ``n`` elements by
itself, so it is the silent other of a ``take_until`` over ``range(n)``."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (KitFactory("never", lambda n: Flow.range(0, n).take_until(Flow.never()), fusion=False),)
