"""``replay``: share one subscription to a source and replay what it sent to late children.

The buffer is a singly linked list of nodes, each holding one element and its index
(1, 2, ...). ``head`` is a sentinel: a child that arrives *pins* it and receives
``head.next``, ``head.next.next``, ... as it requests them. An unbounded replay never
moves ``head``; ``replay(source, bound)`` moves it so that at most ``bound`` elements
are replayed to newcomers. A child that lags keeps its own node, so it never skips an
element; nodes nobody references any more are freed by the garbage collector.

Request coordination is *max-requesting*: each child can go as far as index
``pin + total requested``; the source is asked for the furthest such index. Each child
receives elements at its own pace (never more than it requested, rule 1.1); a child
that requests ``2**63 - 1`` makes the source unbounded. A source error or completion is
stored after the last element and reaches each child after its replay; a disconnect
with ``on_disconnect="error"`` overtakes the buffer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .._core.demand import MAX_DEMAND, take
from ..executors import Executor
from ._connectable import _Hub
from ._connection import DISCONNECT_STRATEGIES, Child, Connection, Forget, OnDisconnect

if TYPE_CHECKING:
    from ..api import Publisher

__all__ = ["ReplayConnection", "replay_hub"]

T = TypeVar("T")


class _Node:
    __slots__ = ("index", "next", "value")

    def __init__(self, value: Any, index: int) -> None:
        self.value = value
        self.index = index
        self.next: _Node | None = None


class ReplayConnection(Connection[T]):
    """A connection that keeps the last ``bound`` elements (all of them for None)."""

    def __init__(
        self,
        forget: Forget,
        source: Publisher[T],
        on_disconnect: OnDisconnect,
        executor: Executor | None,
        batch_size: int,
        bound: int | None,
    ) -> None:
        super().__init__(forget, source, on_disconnect, executor, batch_size)
        self._bound = bound
        self._head = _Node(None, 0)
        self._tail = self._head
        self._size = 0

    @property
    def replayable(self) -> list[T]:
        """The elements a child arriving now would be replayed (oldest first)."""
        out: list[T] = []
        node = self._head.next
        while node is not None:
            out.append(node.value)
            node = node.next
        return out

    def _store(self, item: T) -> None:
        node = _Node(item, self._tail.index + 1)
        self._tail.next = node
        self._tail = node
        if self._bound is None:
            return
        if self._size < self._bound:
            self._size += 1
        else:
            head = self._head.next
            if head is not None:
                self._head = head  # forget the oldest element for newcomers

    def _joined(self, child: Child[T]) -> None:
        head = self._head
        child.node = head
        with self._lock:
            child.pin = head.index  # as if it had been there and taken everything before
            # so far child.total counts only requests made before on_subscribe: none

    def _clear(self) -> None:
        self._tail.next = None
        self._head = self._tail
        self._size = 0

    def _upstream_demand(self) -> int:
        requested = self._upstream_requested
        if requested == MAX_DEMAND:
            return 0
        target = requested
        for child in self._children:
            if child.active:
                if child.total == MAX_DEMAND:
                    return MAX_DEMAND  # rule 3.17: unbounded from now on
                target = max(target, child.pin + child.total)
        return target - requested

    def _emit(self) -> None:
        done = self._done  # read before the buffer: the terminal comes after the last node
        error = self._error
        cut_ahead = self._cut_ahead
        budget = self._budget  # the task's, shared by the children (fairness)
        for child in self._children:
            if not child.active:
                continue
            if done and cut_ahead:
                child.deliver_terminal(error)
                continue
            node = child.node
            requested = child.requested
            sent = 0
            while requested != 0 and node is not None:
                nxt = node.next
                if nxt is None:
                    break
                if sent == budget:
                    break
                if not child.deliver_next(nxt.value):
                    break
                node = nxt
                sent += 1
                requested = take(requested, 1)  # rule 3.17
            if child.node is not None:
                child.node = node
            child.take(sent)
            budget -= sent
            if done and node is not None and node.next is None and child.active:
                child.deliver_terminal(error)
        self._spend(self._budget - budget)


def replay_hub(
    source: Publisher[T],
    bound: int | None = None,
    on_disconnect: OnDisconnect = "error",
    *,
    executor: Executor | None = None,
    batch_size: int = 256,
) -> _Hub[T]:
    """The connectable publisher of :func:`reactive_streams.multicast.replay` (validated)."""
    if bound is not None and bound < 0:
        raise ValueError(f"replay: bound must be >= 0 or None, got {bound}")
    if on_disconnect not in DISCONNECT_STRATEGIES:
        raise ValueError(f"replay: on_disconnect must be one of {DISCONNECT_STRATEGIES}")

    def new_connection(forget: Forget) -> Connection[T]:
        return ReplayConnection(forget, source, on_disconnect, executor, batch_size, bound)

    return _Hub(new_connection, "replay")
