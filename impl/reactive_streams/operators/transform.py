"""Element-wise operators: ``map``, ``filter``, ``scan``, ``do_on_next``,
``do_on_request``, ``do_on_cancel``. One upstream element in, at most one out."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .._core.downstream import null_element_error, where
from .._demand import MAX_DEMAND
from ._base import Operator

if TYPE_CHECKING:
    from ..api import Subscriber

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["DoOnCancel", "DoOnNext", "DoOnRequest", "Filter", "Map", "Scan"]


class Map(Operator[T, R]):
    __slots__ = ("_fn",)

    def __init__(self, downstream: Subscriber[R], fn: Callable[[T], R]) -> None:
        super().__init__(downstream)
        self._fn = fn

    def on_next(self, item: T) -> None:
        if self._done:
            self._late()  # rule 2.8: ignored; the cancel takes effect now
            return
        try:
            value = self._fn(item)
        except Exception as exc:  # the user function failed: cancel upstream, on_error
            self._fail(exc)
            return
        if value is None:
            self._fail(null_element_error(where("map", self._fn)))  # rule 2.13
            return
        downstream = self._downstream
        if downstream is not None:
            downstream.on_next(value)


class Filter(Operator[T, T]):
    """Drops elements failing ``predicate``; each drop is replaced by ``request(1)``
    upstream, unless downstream demand is unbounded (rule 3.17: nothing to replace)."""

    __slots__ = ("_predicate", "_unbounded")

    def __init__(self, downstream: Subscriber[T], predicate: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._predicate = predicate
        self._unbounded = False

    def request(self, n: int) -> None:
        if type(n) is int and n >= MAX_DEMAND:
            self._unbounded = True
        super().request(n)

    def on_next(self, item: T) -> None:
        if self._done:
            self._late()  # rule 2.8: ignored; the cancel takes effect now
            return
        try:
            keep = self._predicate(item)
        except Exception as exc:
            self._fail(exc)
            return
        if keep:
            downstream = self._downstream
            if downstream is not None:
                downstream.on_next(item)
        elif not self._unbounded:
            self._upstream.request(1)  # replace the dropped element (rule 1.1 stays intact)


class Scan(Operator[T, R]):
    """Emits ``acc = fn(acc, item)`` for every element, starting from ``initial``."""

    __slots__ = ("_acc", "_fn")

    def __init__(self, downstream: Subscriber[R], fn: Callable[[R, T], R], initial: R) -> None:
        super().__init__(downstream)
        self._fn = fn
        self._acc = initial

    def on_next(self, item: T) -> None:
        if self._done:
            self._late()  # rule 2.8: ignored; the cancel takes effect now
            return
        try:
            acc = self._fn(self._acc, item)
        except Exception as exc:
            self._fail(exc)
            return
        if acc is None:
            self._fail(null_element_error(where("scan", self._fn)))
            return
        self._acc = acc
        downstream = self._downstream
        if downstream is not None:
            downstream.on_next(acc)


class DoOnNext(Operator[T, T]):
    """Calls ``action(item)`` before passing the element on; ``action`` raising fails the stream."""

    __slots__ = ("_action",)

    def __init__(self, downstream: Subscriber[T], action: Callable[[T], object]) -> None:
        super().__init__(downstream)
        self._action = action

    def on_next(self, item: T) -> None:
        if self._done:
            self._late()  # rule 2.8: ignored; the cancel takes effect now
            return
        try:
            self._action(item)
        except Exception as exc:
            self._fail(exc)
            return
        downstream = self._downstream
        if downstream is not None:
            downstream.on_next(item)


class _PassThrough(Operator[T, T]):
    __slots__ = ()

    def on_next(self, item: T) -> None:
        if self._done:
            self._late()  # rule 2.8: ignored; the cancel takes effect now
            return
        downstream = self._downstream
        if downstream is not None:
            downstream.on_next(item)


class DoOnRequest(Operator[T, T]):
    """Calls ``action(n)`` for each downstream ``request(n)``, then forwards it.

    ``action`` runs on the requesting thread while upstream may be signalling on another:
    its failure cancels upstream and is delivered as ``on_error`` only when no signal is
    in flight (by the signal's own thread, when it returns), never overlapping one (1.3).
    """

    __slots__ = ("_action", "_busy", "_fault", "_lock")

    def __init__(self, downstream: Subscriber[T], action: Callable[[int], object]) -> None:
        super().__init__(downstream)
        self._action = action
        self._lock = threading.Lock()
        self._busy = False  # a signal from upstream is being passed on
        self._fault: BaseException | None = None  # waiting for that signal to return

    def request(self, n: int) -> None:
        if type(n) is not int or n <= 0:
            self._refuse(n)  # rule 3.9: even if the action raises, the error is this one
        try:
            self._action(n)
        except Exception as exc:
            with self._lock:
                if self._done or self._fault is not None:
                    return
                self._fault = exc
                deliver = not self._busy
            self._upstream.cancel()
            if deliver:
                self._deliver_fault()
            return
        Operator.request(self, n)

    def _deliver_fault(self) -> None:
        with self._lock:
            error, self._fault = self._fault, None
        if error is not None:
            Operator.on_error(self, error)

    def _enter(self) -> bool:
        with self._lock:
            if self._fault is not None or self._done:
                return False
            self._busy = True
            return True

    def _exit(self) -> None:
        with self._lock:
            self._busy = False
            pending = self._fault is not None
        if pending:
            self._deliver_fault()

    def on_next(self, item: T) -> None:
        if not self._enter():
            self._late()
            return
        try:
            downstream = self._downstream
            if downstream is not None:
                downstream.on_next(item)
        finally:
            self._exit()

    def on_error(self, error: BaseException) -> None:
        if self._enter():
            super().on_error(error)

    def on_complete(self) -> None:
        if self._enter():
            super().on_complete()


class DoOnCancel(_PassThrough[T]):
    """Calls ``action()`` once when downstream cancels, before cancelling upstream."""

    __slots__ = ("_action",)

    def __init__(self, downstream: Subscriber[T], action: Callable[[], object]) -> None:
        super().__init__(downstream)
        self._action: Callable[[], object] | None = action

    def cancel(self) -> None:
        action, self._action = self._action, None
        if action is not None and not self._done:
            try:
                action()
            except Exception:
                # rule 3.15: cancel returns normally; the fault is logged
                logging.getLogger("reactive_streams").exception("do_on_cancel action raised")
        super().cancel()
