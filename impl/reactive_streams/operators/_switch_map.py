"""``switch_map``: map each element to a Publisher and mirror the latest one only.

A new upstream element cancels the current inner (rule 3.12; its elements not yet
delivered are dropped) and subscribes to ``fn(element)``. The inner is the shared
:class:`~reactive_streams.operators._zip.LinkedInner` (zip's and combine_latest's): it
asks for ``prefetch`` and is replenished at 75 % as the drain delivers its elements, so
the drain never holds more than ``prefetch`` of them. Upstream is unbounded (rule 3.17:
every element only switches, as Reactor's ``switchMap``). One drain emits (rule 1.3).

Completes when upstream has completed and the current inner has completed with nothing
left; an error from upstream or from the current inner, or ``fn`` raising, cancels
everything and is signalled at once. A cancelled inner's late signals are ignored (2.8).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE
from .._core.subscribing import subscribe_or_fail
from ._base import deliver_subscribe_then_error
from ._drained import UnboundedUpstream
from ._zip import LinkedInner

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["SwitchMapPublisher"]


class _SwitchMap(UnboundedUpstream[R]):
    __slots__ = ("_current", "_fn", "_prefetch")

    def __init__(
        self, downstream: Subscriber[R], fn: Callable[[Any], Publisher[R]], prefetch: int
    ) -> None:
        super().__init__(downstream, "switch_map")
        self._fn = fn
        self._prefetch = prefetch
        self._current: LinkedInner | None = None

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        try:
            publisher = self._fn(item)
        except Exception as exc:
            self._fail(exc)
            return
        previous, self._current = self._current, LinkedInner(self, self._prefetch)
        if previous is not None:
            previous.cancel()  # rule 3.12: the former inner stops; its queue is dropped
        inner = self._current
        subscribe_or_fail(publisher, inner, inner.failed)  # rule 1.9: on_error instead
        self._signal()

    def _inner_failed(self, inner: LinkedInner, error: BaseException) -> None:
        if inner is self._current:
            self._fail(error)  # upstream cancelled; the inner too, by _released

    def _released(self) -> None:
        super()._released()
        current, self._current = self._current, None
        if current is not None:
            current.cancel()  # rules 3.12, 3.13

    def _ready_to_complete(self) -> bool:
        if self._error is not None:
            return True
        current = self._current
        return self._done and (current is None or (current.done and not current.queue))

    def _emit(self, on_next: Callable[[R], object], requested: int) -> int:
        emitted = 0
        while emitted != requested and self._error is None and self._pub is ACTIVE:
            inner = self._current
            if inner is None:
                break
            try:
                item = inner.queue.popleft()
            except IndexError:
                break
            inner.consumed_one()
            emitted += 1
            on_next(item)
        return emitted


class SwitchMapPublisher(Generic[T, R]):
    __slots__ = ("_fn", "_prefetch", "_source")

    def __init__(
        self, source: Publisher[T], fn: Callable[[T], Publisher[R]], prefetch: int
    ) -> None:
        self._source = source
        self._fn = fn
        self._prefetch = prefetch

    def __repr__(self) -> str:
        return "<switch_map>"

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop = _SwitchMap(subscriber, self._fn, self._prefetch)
        # rule 1.9: a raising source is on_subscribe then on_error to the hop
        subscribe_or_fail(self._source, hop, partial(deliver_subscribe_then_error, hop))
