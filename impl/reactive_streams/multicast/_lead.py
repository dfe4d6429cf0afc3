"""``publish(lead=N)``: share one subscription to a source; each child at its own pace,
the fastest at most ``N`` elements ahead of the slowest.

The connection holds the elements in a ring of ``N`` slots: element ``i`` (0, 1, ...
since ``connect()``) lives in slot ``i % N`` from its arrival until every active child
has taken it. Each child keeps a *cursor*, the index of the next element it receives,
and takes elements from the ring as it requests them (never more, rule 1.1). ``base``,
the smallest active cursor, is the oldest element held; the source is asked for more only
within the ring, so

    upstream requested - base <= N        (held = received - base <= N)

(``LeadHeldBoundedInv`` in ``spec/MulticastLead.tla``): a slot is written again only
after every active child has taken its element, so each child receives every element
from its arrival on, once, in order (``LeadInOrderInv``). The source is topped up once
half of the ring is free, so the slowest child with demand is never starved, and a
child with demand at most ``N - max(1, N // 2)`` ahead of the slowest is never held back
(``LeadDeliversProp``).

A child arriving while others run starts at the oldest element no child has received
yet (as in lockstep ``publish``: it never sees an element that another child already
had). With no active child, elements are dropped as they arrive. An error (from the
source, or a disconnect with ``on_disconnect="error"``) overtakes the held elements;
completion reaches each child once it has taken every element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .._core.demand import MAX_DEMAND
from ._connection import Child, Connection, Forget, OnDisconnect

if TYPE_CHECKING:
    from ..api import Publisher
    from ..executors import Executor

__all__ = ["LeadConnection"]

T = TypeVar("T")


class LeadConnection(Connection[T]):
    """A connection whose children run at their own pace within a lead of ``lead``."""

    def __init__(
        self,
        forget: Forget,
        source: Publisher[T],
        on_disconnect: OnDisconnect,
        executor: Executor | None,
        batch_size: int,
        lead: int,
    ) -> None:
        super().__init__(forget, source, on_disconnect, executor, batch_size)
        self._lead = lead
        self._ring: list[Any] = [None] * lead
        self._limit = max(1, lead // 2)  # top up once half of the ring is free
        self._stored = 0  # elements written to the ring (the source thread writes it last)
        self._base = 0  # index of the oldest element held (the slowest active cursor)
        self._front = 0  # index of the oldest element no child has received

    @property
    def lead(self) -> int:
        """The ring's size: how far the fastest child may run ahead of the slowest."""
        return self._lead

    @property
    def buffered(self) -> int:
        """Elements held: received, and not yet taken by every active child."""
        return self._stored - self._base

    @property
    def taken(self) -> int:
        """Elements that left the ring: taken by every active child, or dropped."""
        return self._base

    def cursors(self) -> list[int]:
        """The index of the next element of each child still attached (drain-side view)."""
        return [c.cursor for c in self._children if not c.ended]

    def cursor_of(self, subscriber: object) -> int | None:
        """The index of the next element ``subscriber`` receives (None: not attached)."""
        for child in self._children:
            if not child.ended and child._downstream is subscriber:
                return child.cursor
        return None

    def _store(self, item: T) -> None:
        stored = self._stored
        self._ring[stored % self._lead] = item  # free: stored < upstream requested <= base + lead
        self._stored = stored + 1  # after the slot: the drain reads only below it

    def _joined(self, child: Child[T]) -> None:
        child.cursor = max(self._front, self._base)  # nothing another child already had

    def _clear(self) -> None:
        self._release(self._stored)

    def _release(self, upto: int) -> None:
        """Every element before ``upto`` left the ring: free its slot (rule 3.13)."""
        ring, size = self._ring, self._lead
        for i in range(self._base, upto):
            ring[i % size] = None
        if upto > self._base:
            self._base = upto
        if upto > self._front:
            self._front = upto

    def _upstream_demand(self) -> int:
        if self._upstream_requested == MAX_DEMAND:
            return 0
        free = self._lead - (self._upstream_requested - self._base)  # the slowest's room
        return free if free >= self._limit else 0

    def _emit(self) -> None:
        done = self._done  # read before the ring: the terminal comes after the last element
        error = self._error
        stored = self._stored
        if done and (self._cut_ahead or error is not None):
            self._clear()  # an error overtakes the held elements
            self._terminate_all(error)
            return
        children = [c for c in self._children if c.active]
        budget = self._budget  # the task's, shared by the children (fairness)
        ring, size = self._ring, self._lead
        for child in children:
            cursor = child.cursor
            n = min(child.requested, stored - cursor, budget)
            sent = 0
            while sent < n and child.deliver_next(ring[(cursor + sent) % size]):
                sent += 1
            child.cursor = cursor + sent
            child.take(sent)
            budget -= sent
            if cursor + sent > self._front:
                self._front = cursor + sent
            if done and child.cursor == stored and child.active:
                child.deliver_terminal(None)  # completion after its last element
        self._spend(self._budget - budget)
        cursors = [c.cursor for c in children if c.active]
        if cursors:
            self._release(min(cursors))
        elif not self._disconnect_requested:
            # nobody listens: drop, at the source's pace; after a "complete" disconnect
            # the ring waits for a child still joining (as lockstep publish does)
            self._release(stored)
