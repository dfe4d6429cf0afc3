"""``subscribe_on``: subscribe to the source, and talk to its Subscription, on an executor.

The ``subscribe`` call, every ``request`` and the ``cancel`` become messages of one
core ``SerialQueue`` on ``executor``: they run one at a time, in order (rule 2.7), and a
synchronous source therefore emits on the executor's thread. Signals pass through
unchanged, on whatever thread the source emits them.

``cancel`` also takes effect at once: the next element the source emits finds the
downstream gone and cancels the source from inside its own emission loop, so an endless
source stops without waiting for the queued cancel message. A refused task, or a
source whose ``subscribe`` raises, becomes ``on_error`` (after ``on_subscribe`` if the
source did not send one: rule 1.9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from .._core.downstream import SUBSCRIBED
from .._core.relay import Relay
from .._core.serial import SerialQueue
from .._core.subscribing import subscribe_or_fail
from ..executors import as_executor

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber
    from ..executors import Executor

T = TypeVar("T")

__all__ = ["SubscribeOnPublisher"]

_SUBSCRIBE: Final = object()
_CANCEL: Final = object()


class _SubscribeOn(Relay[T, T]):
    """A relay whose calls upstream (subscribe, request, cancel) are messages on the
    executor's ``SerialQueue``; signals pass through on the source's thread."""

    __slots__ = ("_messages", "_source")

    hop = "subscribe_on"

    def __init__(self, downstream: Subscriber[T], source: Publisher[T], executor: Executor):
        super().__init__(downstream)
        self._source: Publisher[T] | None = source
        self._messages: SerialQueue[object] = SerialQueue(
            executor, self._handle, on_reject=self._rejected
        )

    def start(self) -> None:
        self._messages.offer(_SUBSCRIBE)

    def _handle(self, message: object) -> None:
        if message is _SUBSCRIBE:
            source, self._source = self._source, None
            if source is not None and self._pub is SUBSCRIBED:
                subscribe_or_fail(source, self, self._fail)  # rule 1.9: on_error instead
        elif message is _CANCEL:
            self._upstream.cancel()
        else:
            self._upstream.request(message)  # type: ignore[arg-type]

    def _rejected(self, error: Exception) -> None:
        if self._source is None:  # subscribed: stop the source first
            self._upstream.cancel()
        self._source = None
        super()._rejected(error)  # on_error (after on_subscribe if not sent yet: 1.9)

    # ------------------------------------------------------- the core's hooks
    def _wake(self, cancel: bool) -> None:
        if cancel:
            # the message stops a source that is idle; an emitting one finds this hop
            # cancelled at its next element and is cancelled from inside (``_late``)
            self._messages.offer(_CANCEL)
        else:
            super()._wake(False)

    def _forward(self, n: Any) -> None:
        self._messages.offer(n)  # rule 3.9 too: the source answers it, on its thread


class SubscribeOnPublisher(Generic[T]):
    __slots__ = ("_executor", "_source")

    def __init__(self, source: Publisher[T], executor: Executor) -> None:
        self._source = source
        self._executor = as_executor(executor)

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _SubscribeOn(subscriber, self._source, self._executor).start()
