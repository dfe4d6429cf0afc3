"""``using``: a resource per subscription, released when the subscription ends (Reactor's
``Flux.using``, reactivex's ``using``).

An :class:`~reactive_streams._core.arbiter.Arbiter` with one upstream: at subscribe,
after ``on_subscribe`` went downstream (rule 1.9), ``resource = acquire()`` then the
publisher ``make(resource)``; a raising ``acquire`` or ``make`` is that ``on_error``
(the resource acquired is released first). ``release(resource)`` runs once, after the
terminal signal was passed on or after the cancel (as ``do_finally``); its fault is
logged (rule 3.15: the cancel returns normally).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.arbiter import Arbiter
from ._base import CANCELLED
from ._tail import MISSING

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")

__all__ = ["Using"]

_log = logging.getLogger("reactive_streams")


class Using(Arbiter[T]):
    __slots__ = ("_acquire", "_make", "_over", "_release", "_resource")

    hop = "using"

    def __init__(
        self,
        downstream: Subscriber[T],
        acquire: Callable[[], Any],
        make: Callable[[Any], Publisher[T]],
        release: Callable[[Any], object],
    ) -> None:
        super().__init__(downstream)
        self._acquire = acquire
        self._make = make
        self._release = release
        self._resource: Any = MISSING
        self._over = False  # ended or cancelled: the resource is released (under the lock)

    def _first(self) -> Publisher[T]:
        resource = self._acquire()
        with self._lock:  # check and store are one step against a racing cancel
            over = self._over
            if not over:
                self._resource = resource
        if over:  # cancelled while acquiring: released at once, never used
            self._free(resource)
            return _EMPTY  # not subscribed: the arbiter is no longer active
        publisher = self._make(resource)
        if not hasattr(publisher, "subscribe"):
            raise TypeError(f"using: make(resource) must return a Publisher, got {publisher!r}")
        return publisher

    def _free(self, resource: Any) -> None:
        try:
            self._release(resource)
        except Exception:
            _log.exception("using: release(resource) raised")  # rule 3.15: the call returns

    def _run(self) -> None:
        with self._lock:
            resource, self._resource = self._resource, MISSING  # once
            self._over = True
        if resource is not MISSING:
            self._free(resource)

    def _finish(self, error: BaseException | None) -> bool:
        ended = super()._finish(error)
        self._run()
        return ended

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None) -> None:
        super()._cancel(fault)
        self._run()


class _Empty:
    """What a cancelled ``using`` switches to: the arbiter, no longer active, does not
    subscribe it; were it subscribed, it completes at once (rules 1.9, 1.4)."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(CANCELLED)
        subscriber.on_complete()


_EMPTY: Publisher[Any] = _Empty()
