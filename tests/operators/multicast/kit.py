"""The multicast family's kit factories (``reactive_streams/multicast/``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory

from reactive_streams.flow import Flow

KIT: tuple[KitFactory, ...] = (
    # ref_count connects at the first subscriber: each publisher the kit builds is its own
    KitFactory("publish", lambda n: Flow.range(0, n).publish().ref_count(), fusion=False),
    KitFactory("replay", lambda n: Flow.range(0, n).replay().ref_count(), fusion=False),
    KitFactory("share", lambda n: Flow.range(0, n).share(), fusion=False),
    KitFactory("auto_connect", lambda n: Flow.range(0, n).publish().auto_connect(1), fusion=False),
)
