"""The group_by family's kit factories (``operators/_group_by.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    KitFactory("group_by", lambda n: Flow.range(0, n).group_by(lambda x: x)),
    KitFactory(
        "group_by_flat",
        lambda n: (
            Flow.range(0, n)
            .group_by(lambda x: x % 4, max_groups=4)
            .flat_map(lambda g: g, max_concurrency=4)
        ),
    ),
)
