"""Subscribing to a source on a subscriber's behalf, where ``subscribe`` may raise.

Rule 1.9 asks ``subscribe`` to return normally; a source that raises anyway (or an
argument that is no Publisher) must not strand the subscriber that waits for the
source's signals. Every operator that subscribes to a source other than its own
upstream (an inner of flat_map, zip or switch_map, the arbiter's next upstream: retry,
concat, on_error_resume, switch_if_empty, defer; timeout's fallback, delay_subscription's
and subscribe_on's source) calls :func:`subscribe_or_fail` with ``fail``: the hop's way
to signal ``on_error`` to whoever waits (after ``on_subscribe``, rule 1.9, and
cancelling what was subscribed, 3.13), from where the hop's counters stay consistent
(inside a drain: as the source's own ``on_error`` event, never an exception through it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

__all__ = ["subscribe_or_fail"]


def subscribe_or_fail(
    source: Publisher[Any], subscriber: Subscriber[Any], fail: Callable[[Exception], object]
) -> bool:
    """``source.subscribe(subscriber)``; an exception it raises goes to ``fail`` (rules
    1.9, 1.4: the waiting subscriber hears it as ``on_error``). False after a failure."""
    try:
        source.subscribe(subscriber)
    except Exception as exc:  # rule 1.9: subscribe raised, or ``source`` is no Publisher
        fail(exc)
        return False
    return True
