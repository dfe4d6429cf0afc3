"""The backpressure family's kit factories (``operators/_backpressure.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory(
        "on_backpressure_buffer", lambda n: Flow.range(0, n).on_backpressure_buffer(max(1, n))
    ),
    # one element per inner, requested before it comes: nothing is dropped
    KitFactory(
        "on_backpressure_drop",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).on_backpressure_drop()),
    ),
    KitFactory(
        "on_backpressure_latest",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).on_backpressure_latest()),
    ),
)
