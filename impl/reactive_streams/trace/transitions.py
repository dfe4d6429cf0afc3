"""Pure transition functions of the publisher's per-subscription state, with contracts.

These are the arithmetic and state-machine cores of ``spec/ReactiveStreams.tla``
(``SatAdd``, ``Take``, the ``pub`` variable) as plain functions, so CrossHair can
check their PEP 316 contracts (``make crosshair``) and the trace replay
(:mod:`reactive_streams.trace.model`) can reuse them.

Publisher states (the spec's ``pub``): ``idle`` (no subscribe yet), ``subscribed``,
``active`` (onSubscribe committed), and the final ``completed``, ``failed``,
``cancelled``.
"""

from __future__ import annotations

from .._core.demand import MAX_DEMAND

__all__ = [
    "DONE",
    "MAX_DEMAND",
    "PUB_STATES",
    "after_signal",
    "is_valid_n",
    "sat_add",
    "signal_refusal",
    "take_one",
]

PUB_STATES = ("idle", "subscribed", "active", "completed", "failed", "cancelled")
DONE = ("completed", "failed", "cancelled")


def is_valid_n(n: int | None) -> bool:
    """Rule 3.9: only an int n > 0 is a valid request (None stands for a non-int).

    post: __return__ == (n is not None and n > 0)
    """
    return n is not None and n > 0


def sat_add(demand: int, n: int) -> int:
    """Rule 3.17: add ``n`` to ``demand``, saturating at ``MAX_DEMAND`` (the spec's SatAdd).

    pre: 0 <= demand <= 9223372036854775807
    pre: n > 0
    post: demand <= __return__ <= 9223372036854775807
    post: __return__ == min(demand + n, 9223372036854775807)
    post: demand != 9223372036854775807 or __return__ == 9223372036854775807
    """
    if demand == MAX_DEMAND or n >= MAX_DEMAND - demand:
        return MAX_DEMAND
    return demand + n


def take_one(demand: int) -> int:
    """Demand after one onNext: unbounded demand stays unbounded (the spec's Take).

    pre: 0 < demand <= 9223372036854775807
    post: 0 <= __return__ < demand or __return__ == demand == 9223372036854775807
    """
    return demand if demand == MAX_DEMAND else demand - 1


def signal_refusal(pub: str, sig: str) -> str | None:
    """Why the publisher may not commit ``sig`` in state ``pub`` (None: it may).

    ``sig`` is ``onSubscribe``, ``onNext``, ``onComplete`` or ``onError``. This is
    the state part of the spec's SendOn* guards; demand and rule 3.9 are checked
    by the caller.

    pre: pub in PUB_STATES
    pre: sig in ("onSubscribe", "onNext", "onComplete", "onError")
    post: (__return__ is None) == (pub == ("subscribed" if sig == "onSubscribe" else "active"))
    post: __return__ is None or __return__.startswith("rule ")
    """
    if pub == "idle":
        return f"rule 1.9: {sig} before subscribe"
    if pub in ("completed", "failed"):
        return f"rule 1.7: {sig} after the terminal signal"
    if pub == "cancelled":
        return f"rule 3.12: {sig} after the cancel was observed (rule 1.8: signals must stop)"
    if sig == "onSubscribe":
        if pub == "active":
            return "rule 2.12: onSubscribe signalled twice"
        return None
    if pub == "subscribed":
        return f"rule 1.9: {sig} before onSubscribe"
    return None


def after_signal(pub: str, sig: str) -> str:
    """The publisher state after committing ``sig`` (allowed by ``signal_refusal``).

    pre: pub in ("subscribed", "active")
    pre: sig in ("onSubscribe", "onNext", "onComplete", "onError")
    pre: signal_refusal(pub, sig) is None
    post: __return__ in PUB_STATES
    post: (__return__ in DONE) == (sig in ("onComplete", "onError"))
    """
    if sig == "onComplete":
        return "completed"
    if sig == "onError":
        return "failed"
    return "active"
