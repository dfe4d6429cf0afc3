"""Counts per hop: how many Subscriptions and events of each Publisher side a batch of
traces held (the ``hop`` field of ``subscribe`` events; ``"?"`` when a trace does not
name it), and at which hops the verdicts found violations."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .format import Event

__all__ = ["UNNAMED", "HopCount", "count_hops", "hop_table", "merge_hops"]

#: the hop of a Subscription whose trace does not name it
UNNAMED = "?"


@dataclass(frozen=True)
class HopCount:
    """Subscriptions and events of one hop; ``rejected``: violations found at it."""

    hop: str
    subscriptions: int = 0
    events: int = 0
    rejected: int = 0


def count_hops(events: Iterable[Event], rejected_at: Event | None = None) -> tuple[HopCount, ...]:
    """Per hop, the Subscriptions and events of one trace (in order of first appearance).

    ``rejected_at``: the event of the trace's violation, counted at its Subscription's hop."""
    hop_of: dict[int, str] = {}
    per_sub: dict[int, int] = {}
    for e in events:
        if e.sig == "subscribe" and e.sub not in hop_of:
            hop_of[e.sub] = e.hop or UNNAMED
        per_sub[e.sub] = per_sub.get(e.sub, 0) + 1
    out: dict[str, HopCount] = {}
    for sub, n in per_sub.items():
        hop = hop_of.get(sub, UNNAMED)
        old = out.get(hop, HopCount(hop))
        out[hop] = HopCount(hop, old.subscriptions + 1, old.events + n)
    if rejected_at is not None:
        hop = hop_of.get(rejected_at.sub, UNNAMED)
        old = out.get(hop, HopCount(hop))
        out[hop] = HopCount(hop, old.subscriptions, old.events, old.rejected + 1)
    return tuple(out.values())


def merge_hops(counts: Iterable[Sequence[HopCount]]) -> list[HopCount]:
    """The sum over traces, by hop name (sorted, ``"?"`` last)."""
    total: dict[str, HopCount] = {}
    for trace in counts:
        for c in trace:
            old = total.get(c.hop, HopCount(c.hop))
            total[c.hop] = HopCount(
                c.hop,
                old.subscriptions + c.subscriptions,
                old.events + c.events,
                old.rejected + c.rejected,
            )
    return sorted(total.values(), key=lambda c: (c.hop == UNNAMED, c.hop))


def hop_table(counts: Sequence[HopCount]) -> str:
    """A compact text table: hop, subscriptions, events, rejected."""
    width = max([3, *(len(c.hop) for c in counts)])
    lines = [f"{'hop':<{width}}  {'subs':>7}  {'events':>9}  {'rejected':>8}"]
    for c in counts:
        lines.append(f"{c.hop:<{width}}  {c.subscriptions:>7}  {c.events:>9}  {c.rejected:>8}")
    return "\n".join(lines)
