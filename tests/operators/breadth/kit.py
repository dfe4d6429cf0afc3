"""The breadth family's kit factories (``operators/_breadth.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory, ends_in_error

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("on_error_complete", lambda n: ends_in_error(n, 0).on_error_complete()),
    KitFactory("do_on_error", lambda n: Flow.range(0, n).do_on_error(lambda e: None)),
    KitFactory("do_on_complete", lambda n: Flow.range(0, n).do_on_complete(lambda: None)),
    KitFactory("do_finally", lambda n: Flow.range(0, n).do_finally(lambda: None)),
    KitFactory("distinct", lambda n: Flow.range(0, 2 * n).map(lambda x: x // 2).distinct()),
    KitFactory(
        "distinct_until_changed",
        lambda n: Flow.range(0, 2 * n).map(lambda x: x // 2).distinct_until_changed(),
    ),
    KitFactory("skip_while", lambda n: Flow.range(0, n + 3).skip_while(lambda x: x < 3)),
    KitFactory(
        "ignore_elements",
        lambda n: Flow.range(0, 5).ignore_elements().concat_with(Flow.range(0, n)),
    ),
    KitFactory("skip_last", lambda n: Flow.range(0, n + 3).skip_last(3)),
)
