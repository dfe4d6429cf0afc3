"""The conformance kit's publisher of ``buffer(count, skip)``: lists of 2 sliding by 1
over ``n`` elements are ``n`` lists (the last one, open at completion, shorter)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT = (KitFactory("buffer_skip", lambda n: Flow.range(0, n).buffer(2, 1), fusion=False),)
