"""The timed_window family's kit factories (``operators/_timed_window.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory.pooled("timeout", lambda n: Flow.range(0, n).timeout(30.0)),
    KitFactory.pooled(
        "timeout_fallback", lambda n: Flow.timer(30.0).timeout(0.001, Flow.range(0, n))
    ),
    KitFactory.pooled(
        "debounce",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).debounce(0.0001)),
        sampled=True,
    ),
    KitFactory.pooled(
        "sample", lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).sample(30.0))
    ),
    KitFactory.pooled(
        "throttle_first",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).throttle_first(30.0)),
    ),
    KitFactory.pooled("buffer_timeout", lambda n: Flow.range(0, 2 * n).buffer_timeout(2, 30.0)),
    KitFactory.pooled("window_timeout", lambda n: Flow.range(0, 2 * n).window_timeout(2, 30.0)),
    # sample's alias
    KitFactory.pooled(
        "throttle_latest",
        lambda n: Flow.range(0, n).concat_map(lambda x: Flow.just(x).throttle_latest(30.0)),
    ),
)
