"""Element-wise operators: ``map``, ``filter``, ``map_not_none``, ``handle``, ``scan``,
``do_on_next``, ``do_on_request``, ``do_on_cancel``. One upstream element in, at most
one out.

Each is a :class:`~reactive_streams._core.relay.Relay` and defines only its step,
``_apply``: the element to send, or ``SKIP``; the relay's ``on_next`` sends it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.demand import MAX_DEMAND
from .._core.downstream import DONE, null_element_error, where
from .._core.relay import SKIP, Relay, SkipMarker

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "DoOnCancel",
    "DoOnNext",
    "DoOnRequest",
    "Filter",
    "Handle",
    "HandleSink",
    "Map",
    "MapNotNone",
    "Scan",
]


class Map(Relay[T, R]):
    __slots__ = ("_fn",)

    hop = "map"

    def __init__(self, downstream: Subscriber[R], fn: Callable[[T], R]) -> None:
        super().__init__(downstream)
        self._fn = fn

    def _apply(self, item: T) -> R | SkipMarker:
        try:
            value = self._fn(item)
        except Exception as exc:  # the user function failed: cancel upstream, on_error
            self._fail(exc)
            return SKIP
        if value is None:
            self._fail(null_element_error(where("map", self._fn)))  # rule 2.13
            return SKIP
        return value


class _Dropping(Relay[T, R]):
    """A hop that may drop an element: each drop is replaced by ``request(1)`` upstream,
    unless downstream demand is unbounded (rule 3.17: nothing to replace)."""

    __slots__ = ("_unbounded",)

    def __init__(self, downstream: Subscriber[R]) -> None:
        super().__init__(downstream)
        self._unbounded = False

    def _forward(self, n: Any) -> None:
        if type(n) is int and n >= MAX_DEMAND:
            self._unbounded = True
        self._upstream.request(n)


class Filter(_Dropping[T, T]):
    """Drops elements failing ``predicate`` (each drop replaced upstream, ``_Dropping``)."""

    __slots__ = ("_predicate",)

    hop = "filter"

    def __init__(self, downstream: Subscriber[T], predicate: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._predicate = predicate

    def _apply(self, item: T) -> T | SkipMarker:
        try:
            keep = self._predicate(item)
        except Exception as exc:
            self._fail(exc)
            return SKIP
        if keep:
            return item
        if not self._unbounded:
            self._upstream.request(1)  # replace the dropped element (rule 1.1 stays intact)
        return SKIP


class MapNotNone(_Dropping[T, R]):
    """``fn(item)``, dropped when None (Reactor's ``mapNotNull``): the one-hop form of
    ``map`` + ``filter`` for a mapper that skips (a None never reaches downstream, 2.13)."""

    __slots__ = ("_fn",)

    hop = "map_not_none"

    def __init__(self, downstream: Subscriber[R], fn: Callable[[T], R | None]) -> None:
        super().__init__(downstream)
        self._fn = fn

    def _apply(self, item: T) -> R | SkipMarker:
        try:
            value = self._fn(item)
        except Exception as exc:
            self._fail(exc)
            return SKIP
        if value is None:
            if not self._unbounded:
                self._upstream.request(1)  # replace the dropped element (rule 1.1)
            return SKIP
        return value


class HandleSink(Generic[R]):
    """What a ``handle`` function emits through, during its call for one element:
    ``next(value)`` at most once, then optionally ``complete()`` (the stream ends after
    this element) or ``error(exc)`` (the stream fails with ``exc``)."""

    __slots__ = ("_done", "_error", "_value", "_where")

    def __init__(self, name: str) -> None:
        self._where = name
        self._value: R | None = None  # this element's output, if any
        self._done = False  # complete() or error() was called
        self._error: BaseException | None = None

    def next(self, value: R) -> None:
        """Emit ``value`` for this element (not None: rule 2.13; once per element)."""
        if value is None:
            raise TypeError(f"rule 2.13: {self._where}: sink.next(None)")
        if self._value is not None or self._done:
            raise RuntimeError(
                f"{self._where}: sink.next after next/complete/error for the same "
                "element (handle emits at most one element per element)"
            )
        self._value = value

    def complete(self) -> None:
        """End the stream after this element's value (if any); upstream is cancelled."""
        self._done = True

    def error(self, error: BaseException) -> None:
        """Fail the stream with ``error`` (this element's value is not sent)."""
        if not isinstance(error, BaseException):
            raise TypeError(f"{self._where}: sink.error needs an exception, got {error!r}")
        self._done = True
        self._error = error

    def take(self) -> R | None:
        """This element's value, the sink emptied for the next one."""
        value, self._value = self._value, None
        return value


class Handle(_Dropping[T, R]):
    """``fn(item, sink)`` emits zero or one element per element through ``sink``
    (Reactor's ``handle``), or ends the stream: ``sink.complete()`` after this element's
    value, ``sink.error(exc)`` at once (upstream is cancelled in both cases)."""

    __slots__ = ("_fn", "_sink")

    hop = "handle"

    def __init__(self, downstream: Subscriber[R], fn: Callable[[T, HandleSink[R]], object]) -> None:
        super().__init__(downstream)
        self._fn = fn
        self._sink: HandleSink[R] = HandleSink(where("handle", fn))

    def _apply(self, item: T) -> R | SkipMarker:
        sink = self._sink
        try:
            self._fn(item, sink)
        except Exception as exc:
            sink.take()
            self._fail(exc)
            return SKIP
        value = sink.take()
        if sink._done:
            self._end_with(value)
            return SKIP
        if value is None:
            if not self._unbounded:
                self._upstream.request(1)  # replace the dropped element (rule 1.1)
            return SKIP
        return value

    def _end_with(self, value: R | None) -> None:
        """``complete()``: send ``value`` (if any) and complete; ``error()``: fail."""
        error = self._sink._error
        if error is not None:
            self._fail(error)
            return
        downstream = self._out
        if value is not None and downstream is not None and not self._send(downstream, value):
            return  # the subscriber raised (2.13): the subscription ended there
        self._complete_early()


class Scan(Relay[T, R]):
    """Emits ``acc = fn(acc, item)`` for every element, starting from ``initial``."""

    __slots__ = ("_acc", "_fn")

    hop = "scan"

    def __init__(self, downstream: Subscriber[R], fn: Callable[[R, T], R], initial: R) -> None:
        super().__init__(downstream)
        self._fn = fn
        self._acc = initial

    def _apply(self, item: T) -> R | SkipMarker:
        try:
            acc = self._fn(self._acc, item)
        except Exception as exc:
            self._fail(exc)
            return SKIP
        if acc is None:
            self._fail(null_element_error(where("scan", self._fn)))
            return SKIP
        self._acc = acc
        return acc


class DoOnNext(Relay[T, T]):
    """Calls ``action(item)`` before passing the element on; ``action`` raising fails the stream."""

    __slots__ = ("_action",)

    hop = "do_on_next"

    def __init__(self, downstream: Subscriber[T], action: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._action = action

    def _apply(self, item: T) -> T | SkipMarker:
        try:
            self._action(item)
        except Exception as exc:
            self._fail(exc)
            return SKIP
        return item


class DoOnRequest(Relay[T, T]):
    """Calls ``action(n)`` for each downstream ``request(n)``, then forwards it.

    ``action`` runs on the requesting thread while upstream may be signalling on another:
    its failure cancels upstream and is delivered as ``on_error`` only when no signal is
    in flight (by the signal's own thread, when it returns), never overlapping one (1.3).
    """

    __slots__ = ("_action", "_busy", "_fault", "_faulted")

    hop = "do_on_request"

    def __init__(self, downstream: Subscriber[T], action: Callable[[int], object]) -> None:
        super().__init__(downstream)
        self._action = action
        self._busy = False  # a signal from upstream is being passed on
        self._fault: BaseException | None = None  # waiting for that signal to return
        self._faulted = False  # the action raised: nothing passes any more (rule 1.7)

    def _forward(self, n: Any) -> None:
        try:
            self._action(n)  # rule 3.9 is latched already: even if it raises, the error is that
        except Exception as exc:
            with self._lock:
                if self._pub in DONE or self._faulted:
                    return
                self._fault = exc
                self._faulted = True  # with the fault, in one step: no element passes (1.3)
                deliver = not self._busy
            self._upstream.cancel()
            if deliver:
                self._deliver_fault()
            return
        self._upstream.request(n)

    def _deliver_fault(self) -> None:
        with self._lock:
            error, self._fault = self._fault, None
        if error is not None:
            self._finish(error)

    def _begin(self) -> bool:
        with self._lock:
            if self._faulted:
                return False
            self._busy = True
            return True

    def _end(self) -> None:
        with self._lock:
            self._busy = False
            pending = self._fault is not None
        if pending:
            self._deliver_fault()

    def on_next(self, item: T) -> None:
        if not self._begin():
            self._upstream.cancel()  # the fault's cancel may be queued: make it now
            return
        try:
            super().on_next(item)
        finally:
            self._end()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        if self._begin():
            try:
                self._finish(error)
            finally:
                self._end()

    def on_complete(self) -> None:
        if self._begin():
            try:
                self._finish(None)
            finally:
                self._end()


class DoOnCancel(Relay[T, T]):
    """Calls ``action()`` once when downstream cancels, before cancelling upstream."""

    __slots__ = ("_action",)

    hop = "do_on_cancel"

    def __init__(self, downstream: Subscriber[T], action: Callable[[], object]) -> None:
        super().__init__(downstream)
        self._action: Callable[[], object] | None = action

    def cancel(self) -> None:
        action, self._action = self._action, None
        if action is not None and self._pub not in DONE:
            try:
                action()
            except Exception:
                # rule 3.15: cancel returns normally; the fault is logged
                logging.getLogger("reactive_streams").exception("do_on_cancel action raised")
        super().cancel()
