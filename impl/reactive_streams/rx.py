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

from ._demand import MAX_DEMAND
from .api import Publisher, Subscriber
from .flow import Flow
from .operators import backpressure as _bp
from .operators._base import OperatorPublisher
from .operators.backpressure import BufferOverflowError

if TYPE_CHECKING:
    from .api import Subscription

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")

__all__ = ["STRATEGIES", "BufferOverflowError", "from_observable", "to_observable"]

STRATEGIES = ("buffer", "drop", "latest", "error")


class _ObservableSubscription(Generic[T]):
    """Pushes an Observable's notifications to one subscriber; ``cancel`` disposes.

    Only the backpressure stage in front of it subscribes here, with unbounded demand.
    """

    __slots__ = ("_cancelled", "_disposable", "_subscriber")

    def __init__(self, subscriber: Subscriber[T]) -> None:
        self._subscriber: Subscriber[T] | None = subscriber
        self._disposable: Any = None
        self._cancelled = False

    def start(self, observable: Any) -> None:
        subscriber = self._subscriber
        assert subscriber is not None
        subscriber.on_subscribe(self)
        if self._cancelled:
            return
        try:
            disposable = observable.subscribe(self._on_next, self._on_error, self._on_completed)
        except Exception as exc:
            self._on_error(exc)
            return
        self._disposable = disposable
        if self._cancelled:
            self._dispose()

    def _on_next(self, item: T) -> None:
        subscriber = self._subscriber
        if subscriber is None:
            return
        if item is None:  # Rx allows None; rule 2.13 does not: fail the stream
            self._cancelled = True  # ``start`` disposes a subscription still being made
            self._dispose()
            self._on_error(TypeError("rule 2.13: from_observable: the Observable sent None"))
            return
        subscriber.on_next(item)

    def _on_error(self, error: BaseException) -> None:
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            subscriber.on_error(error)

    def _on_completed(self) -> None:
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            subscriber.on_complete()

    def request(self, n: int) -> None:
        pass  # the Observable does not take demand; the stage in front reconciles it

    def cancel(self) -> None:
        if self._cancelled:
            return  # rule 3.5
        self._cancelled = True
        self._subscriber = None  # rule 3.13
        self._dispose()

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
    return Flow(OperatorPublisher(source, _bp.OnBackpressureError, "on_backpressure_error"))


class _ObserverSubscriber(Generic[T]):
    """Subscribes with unbounded demand and forwards to an Rx observer."""

    __slots__ = ("_observer", "_subscription")

    def __init__(self, observer: Any) -> None:
        self._observer = observer
        self._subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        if self._subscription is not None:
            subscription.cancel()  # rule 2.5
            return
        self._subscription = subscription
        subscription.request(MAX_DEMAND)  # rule 3.17: an Observer takes everything

    def on_next(self, item: T) -> None:
        self._observer.on_next(item)

    def on_error(self, error: BaseException) -> None:
        self._subscription = None
        self._observer.on_error(error)

    def on_complete(self) -> None:
        self._subscription = None
        self._observer.on_completed()

    def dispose(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.cancel()


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
