"""Operators that group or fold: ``buffer`` (lists of ``count``), ``reduce``, ``collect``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.demand import add_demand
from .._core.downstream import DONE
from .._core.relay import SKIP, Relay, SkipMarker
from ._drained import UnboundedUpstream

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["Buffer", "Reduce"]


class Buffer(Relay[T, list[T]]):
    """Lists of ``count`` elements (the last one may be shorter).

    ``request(n)`` asks upstream for ``n * count``: every list emitted corresponds to
    ``count`` requested elements, so the final short list is always within demand (1.1).
    """

    __slots__ = ("_buffer", "_count", "_ending")

    hop = "buffer"

    def __init__(self, downstream: Subscriber[list[T]], count: int) -> None:
        super().__init__(downstream)
        self._count = count
        self._buffer: list[T] = []
        self._ending = False  # the last list is being delivered from on_complete

    def _forward(self, n: Any) -> None:
        if type(n) is int and n > 0:
            n = add_demand(0, n * self._count)  # rule 3.17: saturates
        elif self._ending:
            return  # rule 3.9 is latched; upstream is done
        self._upstream.request(n)

    def _apply(self, item: T) -> list[T] | SkipMarker:
        buffer = self._buffer
        buffer.append(item)
        if len(buffer) < self._count:
            return SKIP
        self._buffer = []
        return buffer

    def on_complete(self) -> None:
        buffer, self._buffer = self._buffer, []
        downstream = self._out  # None after a cancel or rule 3.9: no tail
        if buffer and downstream is not None:
            self._ending = True
            self._send(downstream, buffer)
        self._finish(None)

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._buffer = []


class Reduce(UnboundedUpstream[R]):
    """Folds every element into one value, emitted at completion when demanded.

    Upstream demand is unbounded (the fold consumes everything). Without an initial value
    an empty upstream completes with no element; ``fn`` raising fails the stream.
    """

    __slots__ = ("_acc", "_fn", "_has_value")

    def __init__(
        self, downstream: Subscriber[R], fn: Callable[[R, Any], R], initial: Any, has_initial: bool
    ) -> None:
        super().__init__(downstream, "fold" if has_initial else "reduce")
        self._fn = fn
        self._acc: Any = initial
        self._has_value = has_initial

    def on_next(self, item: Any) -> None:
        if self._done or self._pub in DONE:  # ``_stopped_upstream``, without its call
            self._late()  # rule 2.8: the cancel takes effect now
            return
        if not self._has_value:
            self._acc = item
            self._has_value = True
            return
        try:
            acc = self._fn(self._acc, item)
            if acc is None:
                raise TypeError("rule 2.13: a publisher must not signal on_next(None)")
        except Exception as exc:
            self._fail(exc)
            return
        self._acc = acc

    def _clear(self) -> None:
        self._acc = None
        self._has_value = False

    def _ready_to_complete(self) -> bool:
        return self._done and (not self._has_value or self._error is not None)

    def _emit(self, on_next: Callable[[R], object], requested: int) -> int:
        if self._done and self._error is None and self._has_value and requested > 0:
            value, self._acc = self._acc, None
            self._has_value = False
            on_next(value)
            return 1
        return 0
