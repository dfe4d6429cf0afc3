"""``log``: every signal and call through the hop, logged (Reactor's ``log()``).

A pass-through :class:`~reactive_streams._core.relay.Relay`: demand, elements and the
terminal signal pass as they are; each is logged first, at ``level`` on ``logger``
(``reactive_streams.log`` by default), as ``"<name> on_next(3)"``, ``"<name>
request(5)"``, ``"<name> cancel()"``. A handler that raises is the logging module's
concern (``logging.raiseExceptions``), not the stream's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.relay import Relay

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription

T = TypeVar("T")

__all__ = ["Log"]


class Log(Relay[T, T]):
    __slots__ = ("_level", "_logger", "_name")

    hop = "log"

    def __init__(
        self, downstream: Subscriber[T], name: str, logger: logging.Logger, level: int
    ) -> None:
        super().__init__(downstream)
        self._name = name
        self._logger = logger
        self._level = level

    def _say(self, what: str, *args: object) -> None:
        self._logger.log(self._level, "%s " + what, self._name, *args)

    def on_subscribe(self, subscription: Subscription) -> None:
        self._say("on_subscribe()")
        super().on_subscribe(subscription)

    def _apply(self, item: T) -> T:
        self._say("on_next(%r)", item)
        return item

    def on_error(self, error: BaseException) -> None:
        self._say("on_error(%r)", error)
        super().on_error(error)

    def on_complete(self) -> None:
        self._say("on_complete()")
        super().on_complete()

    def _forward(self, n: Any) -> None:
        self._say("request(%r)", n)
        super()._forward(n)

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._say("cancel()")
        super()._wake(cancel)
