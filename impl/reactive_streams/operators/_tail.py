"""Operators whose elements are known only at the end (or at a deciding element):
``count``, ``all``, ``any``, ``element_at``, ``take_last``.

Each consumes upstream without bound (:class:`~._drained.UnboundedUpstream`) and keeps
its result in a queue that the drain emits under downstream demand (rule 1.1), then
completes. A deciding element (``any`` true, ``all`` false, the ``element_at`` index)
cancels upstream at once (rule 3.12: nothing more is needed). An error drops the queue.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.downstream import DONE
from ._drained import UnboundedUpstream

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")

__all__ = ["MISSING", "All", "Any_", "Count", "ElementAt", "TakeLast"]

MISSING: Any = object()  # element_at without a default


class _Tail(UnboundedUpstream[Any]):
    """``_queue`` is emitted after the end; subclasses fill it (``_at_end``, ``_decide``)."""

    __slots__ = ("_queue",)

    def __init__(self, downstream: Subscriber[Any], hop: str) -> None:
        super().__init__(downstream, hop)
        self._queue: deque[Any] = deque()

    def _at_end(self) -> None:
        """Upstream completed: put the result in ``_queue`` (on upstream's thread)."""

    def _decide(self, value: Any) -> None:
        """The result is known before the end: keep it, cancel upstream, emit it."""
        self._queue.append(value)
        self._done = True
        self._upstream.cancel()  # rule 3.12: nothing more is needed
        self._signal()

    def on_complete(self) -> None:
        if self._done:
            return
        try:
            self._at_end()
        except Exception as exc:
            self._error = exc
        super().on_complete()

    def _clear(self) -> None:
        self._queue = deque()

    def _ready_to_complete(self) -> bool:
        return self._done and (not self._queue or self._error is not None)

    def _emit(self, on_next: Callable[[Any], object], requested: int) -> int:
        if not self._done or self._error is not None:
            return 0
        queue = self._queue
        sent = 0
        while sent < requested and queue:
            on_next(queue.popleft())
            sent += 1
            if self._stopped():
                break  # rule 3.12: cancelled from inside on_next (or rule 3.9's error is due)
        return sent


class Count(_Tail):
    __slots__ = ("_n",)

    def __init__(self, downstream: Subscriber[int]) -> None:
        super().__init__(downstream, "count")
        self._n = 0

    def on_next(self, item: Any) -> None:
        if self._done or self._pub in DONE:  # ``_stopped_upstream``, without its call
            self._late()  # rule 2.8: the cancel takes effect now
            return
        self._n += 1

    def _at_end(self) -> None:
        self._queue.append(self._n)


class All(_Tail):
    """True if ``predicate`` holds for every element (the first failure decides)."""

    __slots__ = ("_predicate",)

    hop_name = "all"

    def __init__(self, downstream: Subscriber[bool], predicate: Callable[[Any], object]) -> None:
        super().__init__(downstream, self.hop_name)
        self._predicate = predicate

    def on_next(self, item: Any) -> None:
        if self._done or self._pub in DONE:  # ``_stopped_upstream``, without its call
            self._late()  # rule 2.8: the cancel takes effect now
            return
        try:
            decides = not self._predicate(item)  # True: this element decides
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return
        if decides:
            self._decide(False)

    def _at_end(self) -> None:
        self._queue.append(self.hop_name == "all")


class Any_(All):
    """True if ``predicate`` holds for some element (the first success decides)."""

    __slots__ = ()

    hop_name = "any"

    def on_next(self, item: Any) -> None:
        if self._done or self._pub in DONE:  # ``_stopped_upstream``, without its call
            self._late()  # rule 2.8: the cancel takes effect now
            return
        try:
            decides = self._predicate(item)  # truthy: this element decides
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return
        if decides:
            self._decide(True)


class ElementAt(_Tail):
    """The element at ``index``; at an earlier end ``default``, or ``IndexError``."""

    __slots__ = ("_default", "_left")

    def __init__(self, downstream: Subscriber[Any], index: int, default: Any) -> None:
        super().__init__(downstream, "element_at")
        self._left = index
        self._default = default

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        if self._left == 0:
            self._decide(item)
        else:
            self._left -= 1

    def _at_end(self) -> None:
        if self._default is MISSING:
            raise IndexError(f"element_at: the flow completed {self._left} element(s) short")
        self._queue.append(self._default)


class TakeLast(_Tail):
    """The last ``count`` elements, emitted after the completion."""

    __slots__ = ()

    def __init__(self, downstream: Subscriber[Any], count: int) -> None:
        super().__init__(downstream, "take_last")
        self._queue = deque(maxlen=count)

    def on_next(self, item: Any) -> None:
        if not self._stopped_upstream():
            self._queue.append(item)

    def _clear(self) -> None:
        self._queue.clear()
