"""``materialize`` and ``dematerialize``: signals as elements, and back.

``Notification`` is one signal as a value: ``on_next(value)``, ``on_error(error)`` or
``on_complete()`` (reactivex's ``Notification``, Reactor's ``Signal``).

``dematerialize`` is a :class:`~reactive_streams._core.relay.Relay`: a value notification
passes its value on; an error or completion notification cancels upstream (rule 3.12)
and ends the stream with that signal; an element that is not a ``Notification`` fails
it with ``TypeError``. (``materialize`` is composed in ``Flow`` from ``map``, ``concat``
and ``on_error_resume``: the final notification waits for demand as any element.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from .._core.relay import SKIP, Relay, SkipMarker

T = TypeVar("T")

__all__ = ["Dematerialize", "Notification"]


@dataclass(frozen=True)
class Notification(Generic[T]):
    """One signal as a value: ``kind`` is ``"on_next"`` (with ``value``), ``"on_error"``
    (with ``error``) or ``"on_complete"``."""

    kind: Literal["on_next", "on_error", "on_complete"]
    value: T | None = None
    error: BaseException | None = None

    @staticmethod
    def next(value: T) -> Notification[T]:
        if value is None:
            raise TypeError("rule 2.13: Notification.next(value): value must not be None")
        return Notification("on_next", value)

    @staticmethod
    def failed(error: BaseException) -> Notification[Any]:
        if not isinstance(error, BaseException):
            raise TypeError(f"Notification.failed(error): an exception, got {error!r}")
        return Notification("on_error", None, error)

    @staticmethod
    def completed() -> Notification[Any]:
        return COMPLETED

    def __repr__(self) -> str:
        if self.kind == "on_next":
            return f"on_next({self.value!r})"
        if self.kind == "on_error":
            return f"on_error({self.error!r})"
        return "on_complete()"


COMPLETED: Notification[Any] = Notification("on_complete")


class Dematerialize(Relay[Notification[T], T]):
    __slots__ = ()

    hop = "dematerialize"

    def _apply(self, item: Notification[T]) -> T | SkipMarker:
        if type(item) is not Notification:
            self._fail(TypeError(f"dematerialize: a Notification is due, got {item!r}"))
            return SKIP
        if item.kind == "on_next":
            if item.value is None:
                self._fail(TypeError("rule 2.13: dematerialize: on_next(None) notification"))
                return SKIP
            return item.value
        self._stop(item.error)  # rule 3.12: upstream cancelled; the signal ends the stream
        return SKIP
