"""The transform family's kit factories (``operators/_transform.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow
from reactive_streams.operators import HandleSink


def _even(x: int, sink: HandleSink[int]) -> None:
    if x % 2 == 0:
        sink.next(x)


KIT: tuple[KitFactory, ...] = (
    KitFactory("map", lambda n: Flow.range(0, n).map(lambda x: x + 1)),
    KitFactory("filter", lambda n: Flow.range(0, 2 * n).filter(lambda x: x % 2 == 0)),
    KitFactory(
        "map_not_none",
        lambda n: Flow.range(0, 2 * n).map_not_none(lambda x: x // 2 if x % 2 else None),
    ),
    KitFactory("handle", lambda n: Flow.range(0, 2 * n).handle(_even)),
    KitFactory(
        "handle_complete",
        lambda n: Flow.range(0, n + 3).handle(
            lambda x, sink: sink.complete() if x == n else sink.next(x)
        ),
    ),
    KitFactory("scan", lambda n: Flow.range(0, n).scan(lambda a, x: a + x, 0)),
    KitFactory("do_on_next", lambda n: Flow.range(0, n).do_on_next(lambda x: None)),
    KitFactory("do_on_request", lambda n: Flow.range(0, n).do_on_request(lambda k: None)),
    KitFactory("do_on_cancel", lambda n: Flow.range(0, n).do_on_cancel(lambda: None)),
)
