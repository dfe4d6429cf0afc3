"""``combine_latest`` and ``with_latest_from``: combine each arriving element with the
latest element of the other sources.

Both are one drained hop over :class:`~reactive_streams.operators._zip.LinkedInner`
inners (the inner subscription of zip): each inner asks for ``prefetch`` and is
replenished at 75 % as the drain consumes its elements. Arrivals wait in one queue, in
arrival order; the drain takes an arrival, updates the latest value of its source and,
when the arrival may emit and every source has a value, emits
``combiner(*latest)`` (a tuple by default) if there is demand, else it waits. An arrival
that cannot emit (a source without a value yet; ``with_latest_from``'s other sources) is
consumed without demand, so the others are never starved.

- ``combine_latest``: every source's arrival emits. Completes when every source has
  completed (and the arrivals are delivered), or at once when a source completes
  without any element (no combination can ever be made).
- ``with_latest_from``: only the main source's arrivals emit; one that comes before
  every other source has a value is dropped. The other sources are subscribed first
  (so a synchronous other is current before the main source emits). Completes with the
  main source.

An error from any source, or ``combiner`` raising (or returning None, rule 2.13),
cancels every source and is signalled at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE, null_element_error, where
from ._zip import LinkedDrain, LinkedInner, subscribe_inners

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

R = TypeVar("R")

__all__ = ["CombinePublisher"]

_NONE: Any = object()  # no value yet


class _Combine(LinkedDrain[R]):
    __slots__ = ("_arrivals", "_combiner", "_emitting", "_hop", "_inners", "_latest", "_prefetch")

    def __init__(
        self,
        downstream: Subscriber[R],
        hop: str,
        count: int,
        prefetch: int,
        combiner: Callable[..., R],
        emitting: int | None,
    ) -> None:
        super().__init__(downstream, hop)
        self._hop = hop
        self._prefetch = prefetch
        self._combiner = combiner
        self._emitting = emitting  # None: every source emits; i: only source i does
        self._inners = [_Arrival(self, prefetch, i) for i in range(count)]
        self._latest: list[Any] = [_NONE] * count
        self._arrivals: deque[tuple[_Arrival, Any]] = deque()

    def _released(self) -> None:
        super()._released()
        self._arrivals.clear()

    def _ready_to_complete(self) -> bool:
        if self._error is not None:
            return True
        if self._emitting is not None:
            main = self._inners[self._emitting]
            return main.done and not self._arrivals
        for inner in self._inners:  # ended without a value: no combination can be made
            empty = inner.done and self._latest[inner.index] is _NONE
            if empty and not any(waiting is inner for waiting, _ in self._arrivals):
                return True
        return all(inner.done for inner in self._inners) and not self._arrivals

    def _emit(self, on_next: Callable[[R], object], requested: int) -> int:
        arrivals = self._arrivals
        latest = self._latest
        emitting = self._emitting
        emitted = 0
        while arrivals and self._error is None and self._pub is ACTIVE:
            inner, item = arrivals[0]
            emits = emitting is None or inner.index == emitting
            if emits and emitted == requested and self._ready(inner.index, latest):
                break  # an emitting arrival waits for demand
            arrivals.popleft()
            if emitting is None or inner.index != emitting:
                latest[inner.index] = item
            inner.consumed_one()
            if not emits or not self._ready(inner.index, latest):
                continue
            values = list(latest)
            values[inner.index] = item
            try:
                value = self._combiner(*values)
                if value is None:
                    raise null_element_error(where(self._hop, self._combiner))  # rule 2.13
            except Exception as exc:
                self._fail(exc)
                break
            emitted += 1
            on_next(value)
        return emitted

    def _ready(self, index: int, latest: list[Any]) -> bool:
        """Every source other than ``index`` has a value."""
        return all(value is not _NONE for i, value in enumerate(latest) if i != index)

    def _fail(self, error: BaseException) -> None:
        self._error = error
        self._done = True
        for inner in self._inners:
            inner.cancel()


class _Arrival(LinkedInner):
    """An inner whose elements join the parent's one arrival queue (arrival order)."""

    __slots__ = ()

    def on_next(self, item: Any) -> None:
        parent = self._parent
        if parent is not None:
            parent._arrivals.append((self, item))
            parent._signal()


def _as_tuple(*values: Any) -> tuple[Any, ...]:
    return values


class CombinePublisher(Generic[R]):
    """``combine_latest`` (``main`` None) or ``with_latest_from`` (``main`` = 0: the
    first source emits, the others are subscribed before it)."""

    __slots__ = ("_combiner", "_hop", "_main", "_prefetch", "_sources")

    def __init__(
        self,
        sources: Sequence[Publisher[Any]],
        combiner: Callable[..., R] | None,
        prefetch: int,
        main: int | None,
    ) -> None:
        self._sources = tuple(sources)
        self._combiner: Callable[..., Any] = _as_tuple if combiner is None else combiner
        self._prefetch = prefetch
        self._main = main
        self._hop = "combine_latest" if main is None else "with_latest_from"

    def __repr__(self) -> str:
        return f"<{self._hop}>"

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        sources = self._sources
        hop: _Combine[R] = _Combine(
            subscriber, self._hop, len(sources), self._prefetch, self._combiner, self._main
        )
        inners: list[LinkedInner] = list(hop._inners)
        order = list(range(len(sources)))
        if self._main is not None:
            order.remove(self._main)
            order.append(self._main)  # the others first: current before the main emits
        subscribe_inners(hop, [sources[i] for i in order], [inners[i] for i in order])
