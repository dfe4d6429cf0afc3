"""Element-wise operators: ``map``, ``filter``, ``scan``, ``do_on_next``,
``do_on_request``, ``do_on_cancel``. One upstream element in, at most one out."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .._demand import MAX_DEMAND
from ._base import Operator, null_item_error

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
            return  # rule 2.8: signals after cancel are ignored
        try:
            value = self._fn(item)
        except Exception as exc:  # the user function failed: cancel upstream, on_error
            self._fail(exc)
            return
        if value is None:
            self._fail(null_item_error())  # rule 2.13
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
        self._upstream.request(n)

    def on_next(self, item: T) -> None:
        if self._done:
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
            return
        try:
            acc = self._fn(self._acc, item)
        except Exception as exc:
            self._fail(exc)
            return
        if acc is None:
            self._fail(null_item_error())
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
            return
        downstream = self._downstream
        if downstream is not None:
            downstream.on_next(item)


class DoOnRequest(_PassThrough[T]):
    """Calls ``action(n)`` for each downstream ``request(n)``, then forwards it."""

    __slots__ = ("_action",)

    def __init__(self, downstream: Subscriber[T], action: Callable[[int], object]) -> None:
        super().__init__(downstream)
        self._action = action

    def request(self, n: int) -> None:
        try:
            self._action(n)
        except Exception as exc:
            self._fail(exc)
            return
        self._upstream.request(n)


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
