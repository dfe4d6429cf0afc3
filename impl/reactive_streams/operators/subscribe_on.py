"""``subscribe_on``: subscribe to the source, and talk to its Subscription, on an executor.

The ``subscribe`` call, every ``request`` and the ``cancel`` become messages of one
core ``SerialQueue`` on ``executor``: they run one at a time, in order (rule 2.7), and a
synchronous source therefore emits on the executor's thread. Signals pass through
unchanged, on whatever thread the source emits them.

``cancel`` also takes effect at once: the next element the source emits finds the
downstream gone and cancels the source from inside its own emission loop, so an endless
source stops without waiting for the queued cancel message. A refused task becomes
``on_error`` (after ``on_subscribe`` if the source was not subscribed yet).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from .._core.hop import traced
from .._demand import check_request
from .._serial import SerialQueue
from ..executors import as_executor
from ._base import CANCELLED

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Executor

T = TypeVar("T")

__all__ = ["SubscribeOnPublisher"]

_SUBSCRIBE: Final = object()
_CANCEL: Final = object()


class _SubscribeOn(Generic[T]):
    __slots__ = ("_bad", "_cancelled", "_downstream", "_lock", "_messages", "_source", "_upstream")

    def __init__(self, downstream: Subscriber[T], source: Publisher[T], executor: Executor):
        self._downstream: Subscriber[T] | None = downstream
        self._source: Publisher[T] | None = source
        self._upstream: Subscription = CANCELLED
        self._cancelled = False
        self._bad: str | None = None  # rule 3.9: an invalid request the hop received
        self._lock = threading.Lock()
        self._messages: SerialQueue[object] = SerialQueue(
            executor, self._handle, on_reject=self._rejected
        )

    def start(self) -> None:
        self._messages.offer(_SUBSCRIBE)

    def _handle(self, message: object) -> None:
        if message is _SUBSCRIBE:
            source, self._source = self._source, None
            if source is not None and not self._cancelled:
                source.subscribe(self)
        elif message is _CANCEL:
            self._cancel_upstream()
        else:
            self._upstream.request(message)  # type: ignore[arg-type]

    def _cancel_upstream(self) -> None:
        with self._lock:  # once, from the queue or from inside the emission loop
            upstream, self._upstream = self._upstream, CANCELLED
        upstream.cancel()

    def _rejected(self, error: Exception) -> None:
        logging.getLogger("reactive_streams").error(
            "subscribe_on: the executor rejected a task", exc_info=error
        )
        downstream = self._downstream
        if downstream is None:
            return
        if self._source is not None:  # not subscribed yet: rule 1.9, then 1.4
            self._source = None
            downstream.on_subscribe(self)
        else:
            self._cancel_upstream()
        self.on_error(error)

    # ------------------------------------------------------- upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not CANCELLED or self._cancelled:
            subscription.cancel()  # rule 2.5
            return
        self._upstream = subscription
        downstream = self._downstream
        if downstream is not None:
            downstream.on_subscribe(self)

    def on_next(self, item: T) -> None:
        downstream = self._downstream
        if downstream is None:
            self._cancel_upstream()  # cancelled: stop the source's loop now (rule 3.12)
        elif self._bad is not None:
            self._cancel_upstream()  # rule 3.9: the source has not seen the request yet
            self.on_error(ValueError(self._bad))
        else:
            downstream.on_next(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        downstream, self._downstream = self._downstream, None
        if downstream is not None:
            downstream.on_error(error if self._bad is None else ValueError(self._bad))

    def on_complete(self) -> None:
        if self._bad is not None:
            self.on_error(ValueError(self._bad))  # rule 3.9: no completion after it
            return
        downstream, self._downstream = self._downstream, None
        if downstream is not None:
            downstream.on_complete()

    # ----------------------------------------------------- downstream side
    def request(self, n: int) -> None:
        if (type(n) is not int or n <= 0) and self._bad is None:
            self._bad = check_request(n)  # rule 3.9: answered by the next signal
        self._messages.offer(n)  # and by the source, on its thread

    def cancel(self) -> None:
        if self._cancelled:
            return  # rule 3.5
        self._cancelled = True
        self._downstream = None  # rule 3.13
        self._messages.offer(_CANCEL)


class SubscribeOnPublisher(Generic[T]):
    __slots__ = ("_executor", "_source")

    def __init__(self, source: Publisher[T], executor: Executor) -> None:
        self._source = source
        self._executor = as_executor(executor)

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _SubscribeOn(traced(subscriber, "subscribe_on"), self._source, self._executor).start()
