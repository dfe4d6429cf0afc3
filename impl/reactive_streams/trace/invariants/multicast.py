"""Python twins of ``spec/Multicast.tla``'s invariants and property (``publish()``), and
of ``spec/MulticastLead.tla``'s (``publish(lead=N)``, ``LEAD_TWINS``).

Each takes the spec's variables for one connection, as ``stateful/test_multicast_machine.py``
reads them off the real objects, and returns True when it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "LEAD_TWINS",
    "NO_TWIN",
    "TWINS",
    "buffer_bounded_inv",
    "lead_delivers_prop",
    "lead_held_bounded_inv",
    "lead_in_order_inv",
    "leave_releases_pressure_prop",
    "spec101_delivered_leq_requested_inv",
    "upstream_leq_min_demand_plus_buffer_inv",
]


def upstream_leq_min_demand_plus_buffer_inv(
    up_req: int, taken: int, min_demand: int, bound: int
) -> bool:
    """Upstream requests never exceed the smallest active demand plus the buffer bound
    (counted from the elements that have left the buffer)."""
    return up_req - taken <= min_demand + bound


def spec101_delivered_leq_requested_inv(delivered: int, requested: int) -> bool:
    """Rule 1.1, for one subscriber: never more elements than it requested."""
    return delivered <= requested


def buffer_bounded_inv(buffered: int, bound: int) -> bool:
    """The buffer holds at most ``bound`` (buffer_size) elements."""
    return buffered <= bound


def leave_releases_pressure_prop(buffered: int, active_demands: Sequence[int]) -> bool:
    """At rest (nothing queued): a non-empty buffer waits only for an active subscriber
    without demand; one that left holds nothing back (the state form of the spec's ~>)."""
    return buffered == 0 or any(d <= 0 for d in active_demands)


def lead_held_bounded_inv(held: int, lead: int) -> bool:
    """``publish(lead=N)``: the ring holds at most ``lead`` elements."""
    return held <= lead


def lead_in_order_inv(values: Sequence[int], first: int) -> bool:
    """``publish(lead=N)``, one subscriber of a source emitting 1, 2, ...: it received
    every element from ``first`` on, once, in order (no overwritten slot was read)."""
    return list(values) == list(range(first, first + len(values)))


def lead_delivers_prop(
    demand: int, cursor: int, slowest: int, stored: int, up_requested: int, lead: int
) -> bool:
    """At rest, one active subscriber of a running ``publish(lead=N)`` connection: with
    demand and at most ``lead - max(1, lead // 2)`` ahead of the slowest, it has taken
    every element received and the source owes more (the state form of the spec's ~>)."""
    if demand <= 0 or cursor - slowest > lead - max(1, lead // 2):
        return True
    return cursor == stored and up_requested > stored


TWINS: dict[str, Callable[..., bool]] = {
    "UpstreamLeqMinDemandPlusBufferInv": upstream_leq_min_demand_plus_buffer_inv,
    "Spec101_DeliveredLeqRequestedInv": spec101_delivered_leq_requested_inv,
    "BufferBoundedInv": buffer_bounded_inv,
    "LeaveReleasesPressure_Prop": leave_releases_pressure_prop,
}

LEAD_TWINS: dict[str, Callable[..., bool]] = {
    "LeadHeldBoundedInv": lead_held_bounded_inv,
    "LeadInOrderInv": lead_in_order_inv,
    "Spec101_DeliveredLeqRequestedInv": spec101_delivered_leq_requested_inv,
    "LeadDeliversProp": lead_delivers_prop,
}

NO_TWIN: dict[str, str] = {
    "PublishDeliversProp": "liveness under the connection's fairness; the multicast "
    "machine's liveness at rest checks the same (a subscriber with demand and elements "
    "left is served, or a sibling without demand holds the lockstep)",
    "PublishTerminatesProp": "liveness under the connection's fairness; the multicast "
    "machine checks at rest that every subscriber of a finished connection terminated",
    "PublishNoLossInv": "the machine keeps no join position per subscriber (joined[s]); "
    "tests/operators/multicast/test_multicast.py checks publish()'s lockstep delivery on "
    "recorded values",
    "PublishLateSubscriberTerminatedInv": "the machine's disconnect_strategy check covers "
    "the disconnect path only; a late subscriber after completion is a unit test "
    "(tests/operators/multicast/test_multicast.py)",
}
