"""The conformance kit's publisher of ``partition``: the first half of ``range(2 n)``
split by parity has ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (KitFactory("partition", lambda n: Flow.range(0, 2 * n).partition(lambda x: x % 2 == 0)[0]),)
