"""Strategies for an upstream that does not slow down: ``on_backpressure_buffer``,
``on_backpressure_drop``, ``on_backpressure_latest``.

Each requests unbounded demand upstream and reconciles it with the downstream demand:
a bounded buffer with an overflow policy, dropping what cannot be delivered now, or
keeping only the latest undelivered element. Nothing is ever buffered without a bound.
"""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.demand import MAX_DEMAND, take
from .._core.downstream import ACTIVE, Downstream
from .._core.relay import SKIP, Relay, SkipMarker
from ._drained import UnboundedUpstream

if TYPE_CHECKING:
    from ..api import Subscriber

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")

__all__ = [
    "OVERFLOW_STRATEGIES",
    "BufferOverflowError",
    "OnBackpressureBuffer",
    "OnBackpressureDrop",
    "OnBackpressureError",
    "OnBackpressureLatest",
]

OVERFLOW_STRATEGIES = ("error", "drop_oldest", "drop_latest")


class BufferOverflowError(RuntimeError):
    """Upstream pushed more than the buffer bound while downstream demand was exhausted."""


def _call_on_drop(on_drop: Callable[[Any], object] | None, item: Any) -> None:
    if on_drop is not None:
        try:
            on_drop(item)
        except Exception:
            _log.exception("on_drop callback raised")


class OnBackpressureBuffer(UnboundedUpstream[T]):
    """Buffers up to ``max_size`` undelivered elements; on overflow: ``"error"`` (cancel
    upstream, signal ``BufferOverflowError`` after the buffered elements), ``"drop_oldest"``
    or ``"drop_latest"`` (the dropped element goes to ``on_drop``)."""

    __slots__ = ("_max_size", "_on_drop", "_overflow", "_queue")

    def __init__(
        self,
        downstream: Subscriber[T],
        max_size: int,
        overflow: str,
        on_drop: Callable[[T], object] | None,
    ) -> None:
        super().__init__(downstream, "on_backpressure_buffer")
        self._queue: deque[T] = deque()
        self._max_size = max_size
        self._overflow = overflow
        self._on_drop = on_drop

    def on_next(self, item: T) -> None:
        if self._stopped_upstream():
            return
        queue = self._queue
        if len(queue) >= self._max_size:
            overflow = self._overflow
            if overflow == "drop_latest":
                _call_on_drop(self._on_drop, item)
                self._signal()
                return
            if overflow == "drop_oldest":
                with contextlib.suppress(IndexError):
                    _call_on_drop(self._on_drop, queue.popleft())
            else:
                self._fail(
                    BufferOverflowError(
                        f"on_backpressure_buffer: more than {self._max_size} elements undelivered"
                    )
                )
                return
        queue.append(item)
        self._signal()

    def _clear(self) -> None:
        self._queue.clear()

    def _ready_to_complete(self) -> bool:
        return self._done and not self._queue

    def _emit(self, on_next: Callable[[T], object], requested: int) -> int:
        queue = self._queue
        emitted = 0
        while emitted != requested and queue:
            emitted += 1
            on_next(queue.popleft())
            if self._pub is not ACTIVE:
                break
        return emitted


class OnBackpressureLatest(UnboundedUpstream[T]):
    """Keeps only the latest undelivered element; older undelivered ones are dropped."""

    __slots__ = ("_latest",)

    _EMPTY: Any = object()

    def __init__(self, downstream: Subscriber[T]) -> None:
        super().__init__(downstream, "on_backpressure_latest")
        self._latest: Any = self._EMPTY

    def on_next(self, item: T) -> None:
        if self._stopped_upstream():
            return
        self._latest = item  # one reference assignment: atomic
        self._signal()

    def _clear(self) -> None:
        self._latest = self._EMPTY

    def _ready_to_complete(self) -> bool:
        return self._done and self._latest is self._EMPTY

    def _emit(self, on_next: Callable[[T], object], requested: int) -> int:
        if requested == 0:
            return 0
        with self._lock:
            item, self._latest = self._latest, self._EMPTY
        if item is self._EMPTY:
            return 0
        on_next(item)
        return 1


class OnBackpressureDrop(Relay[T, T], Generic[T]):
    """Delivers an element if downstream demand allows it now, otherwise drops it.

    Downstream demand is the core's own (``_requested``); upstream's is unbounded."""

    __slots__ = ("_on_drop",)

    hop = "on_backpressure_drop"

    def __init__(self, downstream: Subscriber[T], on_drop: Callable[[T], object] | None) -> None:
        super().__init__(downstream)
        self._on_drop = on_drop

    def _opened(self) -> None:
        self._upstream.request(MAX_DEMAND)  # rule 3.17: effectively unbounded

    def _receive_request(self, n: Any, message: str | None) -> None:
        if message is None:
            Downstream._receive_request(self, n, None)  # local demand (rule 3.17)
        else:
            super()._receive_request(n, message)  # rule 3.9: upstream signals the error too

    def _take_one(self) -> bool:
        """Take one element from the demand; False when there is none."""
        if self._requested == MAX_DEMAND:
            return True  # rule 3.17: unbounded, no lock
        with self._lock:
            if self._requested == 0:
                return False
            self._requested = take(self._requested, 1)
        return True

    def _apply(self, item: T) -> T | SkipMarker:
        if self._take_one():
            return item
        _call_on_drop(self._on_drop, item)
        return SKIP


class OnBackpressureError(OnBackpressureDrop[T]):
    """Delivers an element if downstream demand allows it now; otherwise cancels upstream
    and signals ``BufferOverflowError`` (the element is not delivered)."""

    __slots__ = ()

    hop = "on_backpressure_error"

    def __init__(self, downstream: Subscriber[T]) -> None:
        super().__init__(downstream, None)

    def _apply(self, item: T) -> T | SkipMarker:
        if self._take_one():
            return item
        self._fail(BufferOverflowError("an element arrived without downstream demand"))
        return SKIP
