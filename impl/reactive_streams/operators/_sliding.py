"""``buffer(count, skip)``: lists of ``count`` elements, a new one started every ``skip``
elements (overlapping when ``skip < count``, with gaps when ``skip > count``), as
reactivex's ``buffer_with_count(count, skip)`` and Reactor's ``buffer(maxSize, skip)``.

A drained hop (:class:`~._drained.UnboundedUpstream`'s signals, its own demand): the
drain asks upstream for exactly the elements that complete the lists downstream asked
for (list ``j`` is complete at element ``j * skip + count``), so ``request(n)`` never
pulls more than ``n`` lists need (rule 1.1; saturated at ``MAX_DEMAND``, rule 3.17).
Full lists wait in a queue for demand; at completion the lists still open follow,
shorter, under demand too; an error drops them and passes at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.demand import MAX_DEMAND
from ._drained import UnboundedUpstream

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = ["SlidingBuffer"]


class SlidingBuffer(UnboundedUpstream[list[Any]]):
    __slots__ = ("_asked", "_count", "_emitted", "_filling", "_index", "_ready", "_skip")

    def __init__(self, downstream: Subscriber[list[Any]], count: int, skip: int) -> None:
        super().__init__(downstream, "buffer")
        self._count = count
        self._skip = skip
        self._filling: deque[list[Any]] = deque()  # upstream's thread only (rule 1.3)
        self._ready: deque[list[Any]] = deque()  # filled upstream, emptied by the drain
        self._index = 0  # elements received
        self._asked = 0  # elements asked of upstream (the drain's thread)
        self._emitted = 0  # lists delivered (the drain's thread)

    def _opened(self) -> None:
        """Nothing is asked before downstream asks (the drain tops up per round)."""

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        if self._index % self._skip == 0:
            self._filling.append([])
        self._index += 1
        opened = self._filling
        for buffer in opened:
            buffer.append(item)
        while opened and len(opened[0]) == self._count:
            self._ready.append(opened.popleft())
        self._signal()

    def on_complete(self) -> None:
        if not self._done:
            self._ready.extend(b for b in self._filling if b)  # the open ones, shorter
            self._filling.clear()
        super().on_complete()

    def _clear(self) -> None:
        self._filling = deque()
        self._ready = deque()

    def _ready_to_complete(self) -> bool:
        return self._done and (not self._ready or self._error is not None)

    def _emit(self, on_next: Callable[[list[Any]], object], requested: int) -> int:
        sent = 0
        if self._error is None:
            ready = self._ready
            while sent < requested and ready:
                on_next(ready.popleft())
                sent += 1
                if self._stopped():
                    return sent  # rule 3.12: cancelled from inside on_next (or 3.9 is due)
        self._emitted += sent
        self._top_up(requested - sent)
        return sent

    def _top_up(self, outstanding: int) -> None:
        """Ask upstream for what completes every list delivered or still demanded."""
        if self._done or outstanding <= 0:
            return
        lists = self._emitted + outstanding  # the ready queue is empty here
        needed = min(MAX_DEMAND, (lists - 1) * self._skip + self._count)
        if needed > self._asked:
            more, self._asked = needed - self._asked, needed  # the drain's own field
            self._upstream.request(more)
