"""``exhaust_map``: map an element to a Publisher and mirror it; elements that arrive
while it runs are dropped (reactivex's ``exclusive``, RxJS's ``exhaustMap``).

``switch_map``'s hop (:mod:`._switch_map`) with the other choice: a new element while
the current inner has not completed, or still holds elements for downstream, is
dropped (upstream is unbounded, rule 3.17, so nothing is asked to replace it); once
the inner completed and was drained, the next element starts a new one. Errors,
completion and the inner's ``prefetch`` as ``switch_map``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.subscribing import subscribe_or_fail
from ._base import deliver_subscribe_then_error
from ._drained import UnboundedUpstream
from ._switch_map import _SwitchMap

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

R = TypeVar("R")

__all__ = ["ExhaustMapPublisher"]


class _ExhaustMap(_SwitchMap[R]):
    __slots__ = ()

    def __init__(
        self, downstream: Subscriber[R], fn: Callable[[Any], Publisher[R]], prefetch: int
    ) -> None:
        UnboundedUpstream.__init__(self, downstream, "exhaust_map")
        self._fn = fn
        self._prefetch = prefetch
        self._current = None

    def on_next(self, item: Any) -> None:
        current = self._current  # upstream's thread sets it (rule 1.3)
        if current is None or (current.done and not current.queue):
            super().on_next(item)  # idle: this element starts the next inner
        elif not self._stopped_upstream():  # rule 2.8 after a cancel: that one's cancel
            pass  # the current inner runs: this element is dropped


class ExhaustMapPublisher(Generic[R]):
    __slots__ = ("_fn", "_prefetch", "_source")

    def __init__(
        self, source: Publisher[Any], fn: Callable[[Any], Publisher[R]], prefetch: int
    ) -> None:
        self._source = source
        self._fn = fn
        self._prefetch = prefetch

    def __repr__(self) -> str:
        return "<exhaust_map>"

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop: _ExhaustMap[R] = _ExhaustMap(subscriber, self._fn, self._prefetch)
        # rule 1.9: a raising source is on_subscribe then on_error to the hop
        subscribe_or_fail(self._source, hop, partial(deliver_subscribe_then_error, hop))
