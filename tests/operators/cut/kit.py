"""The conformance kit's publishers of ``buffer_until`` and ``buffer_while``: lists of
one (every element closes a list; ``buffer_while`` over ``n`` pairs ``x, -1``), and of
two (``buffer_until_changed`` over ``n`` pairs ``x, x``)."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow


def _pairs(n: int) -> Flow[int]:
    return Flow.range(0, n).concat_map(lambda x: [x, -1])


KIT = (
    KitFactory(
        "buffer_until", lambda n: Flow.range(0, n).buffer_until(lambda x: True), fusion=False
    ),
    KitFactory("buffer_while", lambda n: _pairs(n).buffer_while(lambda x: x >= 0), fusion=False),
    KitFactory(
        "buffer_until_changed",
        lambda n: Flow.range(0, n).concat_map(lambda x: [x, x]).buffer_until_changed(),
        fusion=False,
    ),
)
