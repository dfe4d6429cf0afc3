"""One-shot sources: an iterator (a generator, a file) or an async iterator (an async
generator) can be iterated once, but a Flow is cold and subscribes again per subscriber.
The first subscriber takes the iterator; a later one gets ``on_error`` with a message
naming ``Flow.defer`` (what makes a fresh source per subscriber), never a silent ``[]``.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import Generic, TypeVar

__all__ = ["OneShot", "OneShotAsync"]

T = TypeVar("T")


def _spent(source: str, make: str) -> RuntimeError:
    return RuntimeError(
        f"{source}: this source is a one-shot iterator (a generator, a file...) and an "
        "earlier subscriber took it; for one per subscriber build it in "
        f"Flow.defer(lambda: Flow.{source}({make}))"
    )


class _Once(Generic[T]):
    __slots__ = ("_it", "_lock")

    def __init__(self, it: T) -> None:
        self._it: T | None = it
        self._lock = threading.Lock()

    def _take(self) -> T | None:
        with self._lock:
            it, self._it = self._it, None
        return it


class OneShot(_Once[Iterator[T]]):
    """The factory of ``from_iterable(iterator)``: the iterator, to the first caller only."""

    __slots__ = ()

    def __call__(self) -> Iterator[T]:
        it = self._take()
        if it is None:
            raise _spent("from_iterable", "make_iterator()")
        return it


class OneShotAsync(_Once[AsyncIterator[T]]):
    """The async iterable of ``from_async_iterable(async_iterator)``: the iterator, to the
    first ``__aiter__`` only."""

    __slots__ = ()

    def __aiter__(self) -> AsyncIterator[T]:
        it = self._take()
        if it is None:
            raise _spent("from_async_iterable", "make_async_iterator()")
        return it

    def unclaimed(self) -> AsyncIterator[T] | None:
        """The iterator if no ``__aiter__`` took it yet (then it is taken): a subscription
        cancelled before its first pull closes it (rule 3.12)."""
        return self._take()
