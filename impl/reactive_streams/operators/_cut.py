"""``buffer_until(p)``, ``buffer_while(p)``, ``buffer_until_changed(key)``: lists cut by a
predicate or a key change (Reactor's ``bufferUntil``/``bufferWhile``/``bufferUntilChanged``).

``buffer_until``: each element joins the current list; one for which ``p`` holds closes
it (the element is its last). ``buffer_while``: elements for which ``p`` holds join the
current list; one for which it fails closes a non-empty list and is dropped. At
completion the list still open follows (empty lists are never emitted).

A pass-through :class:`~reactive_streams._core.relay.Relay` with ``filter``'s demand:
``request(n)`` asks upstream for ``n`` (each list needs at least one element) and every
element that closes no list is replaced by ``request(1)`` unless demand is unbounded, so
each list still owed has one element asked for it: the list open at completion is within
demand (rule 1.1). A raising ``p`` cancels upstream and fails the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.demand import MAX_DEMAND
from .._core.relay import SKIP, Relay, SkipMarker

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")

__all__ = ["BufferUntil", "BufferUntilChanged", "BufferWhile"]


class _Cut(Relay[T, list[T]]):
    __slots__ = ("_ending", "_list", "_predicate", "_unbounded")

    def __init__(self, downstream: Subscriber[list[T]], predicate: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._predicate = predicate
        self._list: list[T] = []  # upstream's thread only (rule 1.3)
        self._unbounded = False
        self._ending = False  # the last list is being delivered from on_complete

    def _forward(self, n: Any) -> None:
        if type(n) is int and n >= MAX_DEMAND:
            self._unbounded = True
        elif self._ending:
            return  # upstream is done
        self._upstream.request(n)

    def _replace(self) -> None:
        if not self._unbounded:
            self._upstream.request(1)  # this element closed no list: one more is asked

    def _cut(self, item: T) -> list[T] | SkipMarker:
        raise NotImplementedError

    def _apply(self, item: T) -> list[T] | SkipMarker:
        try:
            out = self._cut(item)
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return SKIP
        if out is SKIP:
            self._replace()
            return SKIP  # (each ``return`` is inlined: SKIP must be named, _core/inline.py)
        return out

    def on_complete(self) -> None:
        last, self._list = self._list, []
        downstream = self._out  # None after a cancel or rule 3.9: no tail
        if last and downstream is not None:
            self._ending = True
            self._send(downstream, last)
        self._finish(None)

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._list = []


class BufferUntil(_Cut[T]):
    __slots__ = ()

    hop = "buffer_until"

    def _cut(self, item: T) -> list[T] | SkipMarker:
        self._list.append(item)
        if not self._predicate(item):
            return SKIP
        done, self._list = self._list, []
        return done


class BufferWhile(_Cut[T]):
    __slots__ = ()

    hop = "buffer_while"

    def _cut(self, item: T) -> list[T] | SkipMarker:
        if self._predicate(item):
            self._list.append(item)
            return SKIP
        done, self._list = self._list, []
        return done if done else SKIP  # the failing element is dropped


class BufferUntilChanged(_Cut[T]):
    """``buffer_until_changed(key)``: lists of consecutive elements of one key (Reactor's
    ``bufferUntilChanged``); an element of a new key closes the list and opens the next
    (so each list but the first is owed to the element that closed the one before)."""

    __slots__ = ("_key",)

    hop = "buffer_until_changed"
    _key: object  # the open list's key (set with its first element)

    def _cut(self, item: T) -> list[T] | SkipMarker:
        key = self._predicate(item)  # the key function
        if not self._list or key == self._key:
            self._key = key
            self._list.append(item)
            return SKIP
        done, self._list = self._list, [item]
        self._key = key
        return done
