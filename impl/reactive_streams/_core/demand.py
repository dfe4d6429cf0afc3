"""Demand arithmetic (rules 3.9 and 3.17), as pure functions with PEP 316 contracts.

Demand is a non-negative int. ``MAX_DEMAND`` (``2**63 - 1``) means "unbounded":
adding to it keeps it there, and delivering from it does not reduce it (rule 3.17).
"""

from __future__ import annotations

MAX_DEMAND = 2**63 - 1


def add_demand(current: int, n: int) -> int:
    """Add ``n`` requested elements to ``current`` demand, saturating at ``MAX_DEMAND``.

    pre: 0 <= current <= 9223372036854775807
    pre: n > 0
    post: current <= __return__ <= 9223372036854775807
    post: __return__ == min(current + n, 9223372036854775807)
    """
    total = current + n
    return total if total < MAX_DEMAND else MAX_DEMAND  # rule 3.17


def check_request(n: object) -> str | None:
    """The rule 3.9 message for an invalid ``request(n)`` argument, or None if ``n`` is valid.

    Valid means an int (not a bool) greater than zero.

    post: (__return__ is None) == (isinstance(n, int) and not isinstance(n, bool) and n > 0)
    post: __return__ is None or __return__.startswith("rule 3.9: ")
    """
    if isinstance(n, bool) or not isinstance(n, int):
        return f"rule 3.9: request(n) requires an int n > 0, got {type(n).__name__} {n!r}"
    if n <= 0:
        return f"rule 3.9: request(n) requires n > 0, got {n}"
    return None


def take(current: int, k: int) -> int:
    """Demand left after delivering ``k`` elements; unbounded demand stays unbounded.

    pre: 0 <= k <= current <= 9223372036854775807
    post: 0 <= __return__ <= current
    post: __return__ == (current if current == 9223372036854775807 else current - k)
    """
    return current if current == MAX_DEMAND else current - k  # rule 3.17
