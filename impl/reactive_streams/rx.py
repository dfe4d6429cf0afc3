"""Bridge to reactivex (RxPY), which has no backpressure: ``from_observable`` and
``to_observable``. reactivex is the optional extra ``[rx]``; it is imported only when
``to_observable`` is called (``from_observable`` needs nothing but the Observable).

An Observable pushes as fast as it likes, so ``from_observable`` must say what happens
to elements that arrive while downstream demand is exhausted (``strategy``):

* ``"buffer"``: hold up to ``buffer_size`` of them; one more fails the stream with
  ``BufferOverflowError`` (and disposes the Observable subscription);
* ``"drop"``: drop them; ``"latest"``: keep only the latest one;
* ``"error"``: fail at the first element that arrives without demand.

There is never an unbounded buffer.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._core.attach import Attach
from ._core.demand import MAX_DEMAND
from ._core.downstream import ACTIVE, DONE, Downstream
from .api import Publisher, Subscriber
from .flow import Flow
from .operators import _backpressure
from .operators._backpressure import BufferOverflowError
from .operators._base import OperatorPublisher

if TYPE_CHECKING:
    from .api import Subscription

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")

__all__ = ["STRATEGIES", "BufferOverflowError", "from_observable", "to_observable"]

STRATEGIES = ("buffer", "drop", "latest", "error")


class _ObservableSubscription(Downstream[T]):
    """Pushes an Observable's notifications to one subscriber; ``cancel`` disposes.

    Only the backpressure stage in front of it subscribes here, with unbounded demand:
    the Observable does not take demand. The protocol (3.9, 2.13, 3.13, the trace) is
    the core's; an invalid request is answered at the next notification.
    """

    __slots__ = ("_disposable",)

    def __init__(self, subscriber: Subscriber[T]) -> None:
        super().__init__(subscriber, "from_observable")
        self._disposable: Any = None

    def start(self, observable: Any) -> None:
        if not self._deliver_subscribe():
            return  # cancelled, or on_subscribe raised (2.13): subscribe returns normally (1.9)
        try:
            disposable = observable.subscribe(self._on_next, self._on_error, self._on_completed)
        except Exception as exc:
            self._finish(exc)
            return
        self._disposable = disposable
        if self._pub in DONE:
            self._dispose()  # ended or cancelled while subscribing

    def _on_next(self, item: T) -> None:
        downstream = self._downstream
        if downstream is None or self._pub is not ACTIVE:
            return
        if self._bad is not None:
            self._finish(None)  # rule 3.9: its error, instead of the element
        elif item is None:  # Rx allows None; rule 2.13 does not: fail the stream
            self._finish(TypeError("rule 2.13: from_observable: the Observable sent None"))
        else:
            self._send(downstream, item)

    def _on_error(self, error: BaseException) -> None:
        self._finish(error)

    def _on_completed(self) -> None:
        self._finish(None)

    # ------------------------------------------------------- the core's hooks
    def _work(self) -> bool:
        return True  # no drain: a cancel disposes at once

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._dispose()  # rule 3.5 and 3.12; a request has nothing to do upstream

    def _released(self) -> None:
        self._dispose()  # the stream ended here (None, rule 3.9): stop the Observable

    def _dispose(self) -> None:
        disposable, self._disposable = self._disposable, None
        if disposable is not None:
            try:
                disposable.dispose()
            except Exception:
                _log.exception("disposing the Observable subscription raised")


class _ObservablePublisher(Generic[T]):
    __slots__ = ("_observable",)

    def __init__(self, observable: Any) -> None:
        self._observable = observable

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        _ObservableSubscription(subscriber).start(self._observable)


def from_observable(
    observable: Any, strategy: str = "buffer", buffer_size: int = 1024
) -> Flow[Any]:
    """A Flow over a reactivex Observable, with ``strategy`` for elements pushed beyond
    demand (``"buffer"`` bounded by ``buffer_size``, ``"drop"``, ``"latest"``, ``"error"``)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    source: Publisher[Any] = _ObservablePublisher(observable)
    if strategy == "buffer":
        return Flow(source).on_backpressure_buffer(buffer_size, "error")
    if strategy == "drop":
        return Flow(source).on_backpressure_drop()
    if strategy == "latest":
        return Flow(source).on_backpressure_latest()
    return Flow(
        OperatorPublisher(source, _backpressure.OnBackpressureError, "on_backpressure_error")
    )


class _ObserverSubscriber(Generic[T]):
    """Subscribes with unbounded demand and forwards to an Rx observer."""

    __slots__ = ("_observer", "_upstream")

    def __init__(self, observer: Any) -> None:
        self._observer = observer
        # rule 3.17: an Observer takes everything; asked when the subscription is set
        self._upstream = Attach(MAX_DEMAND)

    def on_subscribe(self, subscription: Subscription) -> None:
        # rules 2.5, 3.12: a second one, or one after dispose(), is cancelled (atomically)
        self._upstream.set(subscription)

    def on_next(self, item: T) -> None:
        self._observer.on_next(item)

    def on_error(self, error: BaseException) -> None:
        self._upstream.release()
        self._observer.on_error(error)

    def on_complete(self) -> None:
        self._upstream.release()
        self._observer.on_completed()

    def dispose(self) -> None:
        self._upstream.cancel()


def to_observable(publisher: Publisher[T]) -> Any:
    """A reactivex Observable that subscribes to ``publisher`` (unbounded demand) per
    observer; disposing the subscription cancels."""
    import reactivex
    from reactivex.disposable import Disposable

    def subscribe(observer: Any, scheduler: Any = None) -> Any:
        subscriber: _ObserverSubscriber[T] = _ObserverSubscriber(observer)
        publisher.subscribe(subscriber)
        return Disposable(subscriber.dispose)

    return reactivex.create(subscribe)
