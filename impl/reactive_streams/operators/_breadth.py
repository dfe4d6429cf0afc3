"""Pass-through hops of the everyday kind: ``on_error_complete``, ``do_on_error``,
``do_on_complete``, ``do_finally``, ``distinct``, ``distinct_until_changed``,
``skip_while``, ``ignore_elements``, ``skip_last``.

Each is a :class:`~reactive_streams._core.relay.Relay`. The filtering ones replace every
dropped element by ``request(1)`` upstream unless downstream demand is unbounded (as
``filter``: rule 1.1 stays intact and nothing stalls). A user function that raises
cancels upstream and signals ``on_error`` (rule 2.13's fault path is the subscriber's).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.demand import MAX_DEMAND
from .._core.downstream import ACTIVE
from .._core.relay import SKIP, Relay, SkipMarker
from ._transform import _Dropping

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")

__all__ = [
    "Distinct",
    "DistinctUntilChanged",
    "DoFinally",
    "DoOnComplete",
    "DoOnError",
    "IgnoreElements",
    "OnErrorComplete",
    "SkipLast",
    "SkipWhile",
]

_log = logging.getLogger("reactive_streams")


class OnErrorComplete(Relay[T, T]):
    __slots__ = ()

    hop = "on_error_complete"

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._finish(None)  # dropped; rule 3.9's error still wins (the core's _finish)


class DoOnError(Relay[T, T]):
    """``action(error)`` before passing the error on; if it raises, its error goes on
    (the original as its ``__context__``)."""

    __slots__ = ("_action",)

    hop = "do_on_error"

    def __init__(
        self, downstream: Subscriber[T], action: Callable[[BaseException], object]
    ) -> None:
        super().__init__(downstream)
        self._action = action

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._pub is ACTIVE:
            try:
                self._action(error)
            except Exception as exc:
                exc.__context__ = error
                error = exc
        self._finish(error)


class DoOnComplete(Relay[T, T]):
    """``action()`` before passing the completion on; if it raises, ``on_error`` instead."""

    __slots__ = ("_action",)

    hop = "do_on_complete"

    def __init__(self, downstream: Subscriber[T], action: Callable[[], object]) -> None:
        super().__init__(downstream)
        self._action = action

    def on_complete(self) -> None:
        error: BaseException | None = None
        if self._pub is ACTIVE and self._bad is None:
            try:
                self._action()
            except Exception as exc:
                error = exc
        self._finish(error)


class DoFinally(Relay[T, T]):
    """``action()`` once, after the terminal signal was passed on or after the cancel
    (a raising subscriber's too); its fault is logged (rule 3.15: cancel returns)."""

    __slots__ = ("_action",)

    hop = "do_finally"

    def __init__(self, downstream: Subscriber[T], action: Callable[[], object]) -> None:
        super().__init__(downstream)
        self._action: Callable[[], object] | None = action

    def _run(self) -> None:
        with self._lock:
            action, self._action = self._action, None  # once
        if action is not None:
            try:
                action()
            except Exception:
                _log.exception("do_finally action raised")

    def _finish(self, error: BaseException | None) -> bool:
        ended = super()._finish(error)
        self._run()
        return ended

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None) -> None:
        super()._cancel(fault)
        self._run()


class Distinct(_Dropping[T, T]):
    """Elements whose ``key(item)`` was not seen before (the keys are kept until the end)."""

    __slots__ = ("_key", "_seen")

    hop = "distinct"

    def __init__(self, downstream: Subscriber[T], key: Callable[[T], Hashable] | None) -> None:
        super().__init__(downstream)
        self._key = key
        self._seen: set[Hashable] | None = set()

    def _apply(self, item: T) -> T | SkipMarker:
        try:
            k = item if self._key is None else self._key(item)
            seen = self._seen
            new = seen is not None and k not in seen
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return SKIP
        if new and seen is not None:
            seen.add(k)
            return item
        if not self._unbounded:
            self._upstream.request(1)  # replace the dropped element (rule 1.1 stays intact)
        return SKIP

    def _released(self) -> None:
        super()._released()
        self._seen = None

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._seen = None


class DistinctUntilChanged(_Dropping[T, T]):
    """Elements whose ``key(item)`` differs from the previous element's."""

    __slots__ = ("_has_last", "_key", "_last")

    hop = "distinct_until_changed"

    def __init__(self, downstream: Subscriber[T], key: Callable[[T], object] | None) -> None:
        super().__init__(downstream)
        self._key = key
        self._last: object = None
        self._has_last = False

    def _apply(self, item: T) -> T | SkipMarker:
        try:
            k = item if self._key is None else self._key(item)
            same = self._has_last and k == self._last
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return SKIP
        if same:
            if not self._unbounded:
                self._upstream.request(1)  # replace the dropped element (rule 1.1)
            return SKIP
        self._last = k
        self._has_last = True
        return item


class SkipWhile(_Dropping[T, T]):
    """Drops elements while ``predicate`` holds, then passes every element."""

    __slots__ = ("_predicate",)

    hop = "skip_while"

    def __init__(self, downstream: Subscriber[T], predicate: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._predicate: Callable[[T], object] | None = predicate

    def _apply(self, item: T) -> T | SkipMarker:
        predicate = self._predicate
        if predicate is None:
            return item
        try:
            skip = predicate(item)
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error
            return SKIP
        if skip:
            if not self._unbounded:
                self._upstream.request(1)  # replace the dropped element (rule 1.1)
            return SKIP
        self._predicate = None  # from now on every element passes
        return item


class IgnoreElements(Relay[T, T]):
    """Only the terminal signal: upstream is asked for everything at subscription."""

    __slots__ = ()

    hop = "ignore_elements"

    def _opened(self) -> None:
        self._upstream.request(MAX_DEMAND)  # rule 3.17: effectively unbounded

    def _forward(self, n: Any) -> None:
        if type(n) is not int or n <= 0:
            self._upstream.request(n)  # rule 3.9: upstream signals the error, serially

    def on_next(self, item: T) -> None:
        if self._out is None:
            self._late()  # rule 2.8; after rule 3.9, its error now


class SkipLast(Relay[T, T]):
    """All but the last ``count`` elements: each element is held until ``count`` newer
    ones arrived; upstream is asked for the ``count`` held ones at subscription."""

    __slots__ = ("_count", "_held")

    hop = "skip_last"

    def __init__(self, downstream: Subscriber[T], count: int) -> None:
        super().__init__(downstream)
        self._count = count
        self._held: deque[T] = deque()

    def _opened(self) -> None:
        self._upstream.request(self._count)  # the held ones are ours to ask for

    def _apply(self, item: T) -> T | SkipMarker:
        held = self._held
        held.append(item)
        if len(held) > self._count:
            return held.popleft()
        return SKIP

    def _released(self) -> None:
        super()._released()
        self._held = deque()

    def _receive_cancel(self) -> None:
        super()._receive_cancel()
        self._held = deque()
