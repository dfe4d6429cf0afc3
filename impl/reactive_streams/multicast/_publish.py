"""``publish``: share one subscription to a source, children in lockstep.

Request coordination is *lockstep*: an element leaves the buffer only when every
child has demand for it, and then goes to all of them at once. The source is asked
for at most ``buffer_size`` elements ahead of what has left the buffer, topped up
when a quarter of the buffer has drained, so

    upstream requested - elements taken from the buffer <= buffer_size
                                                        <= min child demand + buffer_size

(``UpstreamLeqMinDemandPlusBufferInv`` in ``spec/Multicast.tla``). Consequences:

* no child receives more than it requested (rule 1.1), and the buffer never holds
  more than ``buffer_size`` elements;
* a child that never requests holds the others back; one that cancels releases its
  pressure at once (the drain removes it before the next element);
* with no children at all, elements are dropped as they arrive, so a child that
  subscribes later sees only later elements;
* an error from the source overtakes buffered elements; completion waits until the
  buffer has drained;
* after the source has ended, a new child receives the terminal signal at once;
  ``connect()`` then starts a new connection.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, TypeVar

from .._core.demand import MAX_DEMAND
from ..executors import Executor, ExecutorLike, as_executor
from ._connectable import _Hub
from ._connection import DISCONNECT_STRATEGIES, Connection, Forget, OnDisconnect
from ._lead import LeadConnection

if TYPE_CHECKING:
    from ..api import Publisher

__all__ = ["DEFAULT_BUFFER_SIZE", "PublishConnection", "publish_hub"]

T = TypeVar("T")

DEFAULT_BUFFER_SIZE = 256


class PublishConnection(Connection[T]):
    """A connection with a bounded buffer drained in lockstep."""

    def __init__(
        self,
        forget: Forget,
        source: Publisher[T],
        on_disconnect: OnDisconnect,
        executor: Executor | None,
        batch_size: int,
        buffer_size: int,
    ) -> None:
        super().__init__(forget, source, on_disconnect, executor, batch_size)
        self._queue: deque[T] = deque()
        self._buffer_size = buffer_size
        self._limit = max(1, buffer_size - (buffer_size >> 2))  # top up after 3/4 drained
        self._taken = 0  # elements that left the buffer (delivered to all, or dropped)
        self._terminated = False

    @property
    def buffered(self) -> int:
        """Elements received from the source and not yet taken from the buffer."""
        return len(self._queue)

    @property
    def taken(self) -> int:
        """Elements that left the buffer: delivered to every child, or dropped."""
        return self._taken

    def _store(self, item: T) -> None:
        self._queue.append(item)

    def _clear(self) -> None:
        self._taken += len(self._queue)
        self._queue.clear()

    def _upstream_demand(self) -> int:
        if self._upstream_requested == MAX_DEMAND:
            return 0
        free = self._buffer_size - (self._upstream_requested - self._taken)
        return free if free >= self._limit else 0

    def _emit(self) -> None:
        queue = self._queue
        if self._terminated:
            self._terminate_all(self._error)  # late children: the terminal signal at once
            return
        if self._done and (self._cut_ahead or self._error is not None):
            self._clear()  # an error overtakes the buffer
            self._finish()
            return
        children = [c for c in self._children if c.active]
        if not children:
            if queue and not self._disconnect_requested:
                # nobody listens: drop, at the source's pace; after a "complete" disconnect
                # the buffer waits for a child still joining (Multicast.tla: Drop needs disc = "no")
                self._clear()
        elif queue:
            demand = min(c.requested for c in children)  # lockstep: the slowest child
            n = min(demand, len(queue), self._budget)  # the task's budget (fairness)
            self._spend(n)
            for _ in range(n):
                item = queue.popleft()
                for child in children:
                    child.deliver_next(item)
                self._taken += 1
            for child in children:
                child.take(n)
        if self._done and not queue:
            self._finish()

    def _finish(self) -> None:
        self._terminated = True
        self._terminate_all(self._error)


def publish_hub(
    source: Publisher[T],
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    on_disconnect: OnDisconnect = "error",
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = 256,
    lead: int | None = None,
) -> _Hub[T]:
    """The connectable publisher of :func:`reactive_streams.multicast.publish` (validated):
    lockstep, or each subscriber at its own pace within ``lead`` (``_lead.py``)."""
    if type(buffer_size) is not int or buffer_size < 1:
        raise ValueError(f"publish: buffer_size must be an int >= 1, got {buffer_size!r}")
    if on_disconnect not in DISCONNECT_STRATEGIES:
        raise ValueError(f"publish: on_disconnect must be one of {DISCONNECT_STRATEGIES}")
    if lead is not None:
        if type(lead) is not int or lead < 1:
            raise ValueError(f"publish: lead must be an int >= 1 or None, got {lead!r}")
        if buffer_size != DEFAULT_BUFFER_SIZE:
            raise ValueError(
                "publish: give buffer_size or lead, not both (with lead=N the connection "
                f"holds at most N elements), got buffer_size={buffer_size}, lead={lead}"
            )

    hop = as_executor(executor) if executor is not None else None

    def new_connection(forget: Forget) -> Connection[T]:
        if lead is not None:
            return LeadConnection(forget, source, on_disconnect, hop, batch_size, lead)
        return PublishConnection(forget, source, on_disconnect, hop, batch_size, buffer_size)

    return _Hub(new_connection, "publish")
