"""``flat_map`` (and ``concat_map``, ``merge`` built on it): map each element to a
Publisher and merge the inner publishers' elements, up to ``max_concurrency`` at once.

Upstream is asked for ``max_concurrency`` elements, then for ``limit`` more (75 %) each
time ``limit`` inner publishers have completed. Each inner subscription asks for
``prefetch`` and replenishes at 75 %; its elements wait in its own queue until there is
downstream demand. One drain loop (the core ``DrainLoop``) delivers them, so downstream
signals never overlap (rule 1.3) even when inner publishers emit on other threads. An
error (upstream, an inner, or the mapper raising) cancels everything and is signalled at
once; completion comes when upstream and every inner have completed.

Fusion: a synchronous iterable inner (``just``, ``range``, ``from_iterable`` without an
executor) is not subscribed to; the drain pulls from its iterator, as far ahead as the
inner subscription would have emitted (``prefetch``, replenished at 75 %). Under unbounded
demand with nothing queued, the elements go straight downstream.
"""

from __future__ import annotations

import logging
import operator
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._demand import MAX_DEMAND, check_request
from .._serial import DrainLoop
from .._subscription import exact_length_types
from ..sources import IterablePublisher
from ._base import CANCELLED, null_item_error
from .fused import fusion_enabled
from .observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["FlatMapPublisher"]

_ITERABLE_PUBLISHER: type = IterablePublisher


class _Inner(Generic[R]):
    """One inner source: a real subscription, or (fused) an iterator pulled by the drain."""

    __slots__ = (
        "_allowed",
        "_consumed",
        "_limit",
        "_parent",
        "_pulled",
        "done",
        "it",
        "queue",
        "subscription",
    )

    def __init__(self, parent: _FlatMap[Any, R], prefetch: int) -> None:
        self._parent: _FlatMap[Any, R] | None = parent
        self.queue: deque[R] = deque()
        self.done = False
        self.subscription: Subscription = CANCELLED
        self.it: Iterator[R] | None = None
        self._limit = replenish_size(prefetch)
        self._consumed = 0
        self._pulled = 0
        self._allowed = prefetch

    # ----------------------------------------------------- as a Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self.subscription is not CANCELLED or self._parent is None:
            subscription.cancel()  # rule 2.5
            return
        self.subscription = subscription
        subscription.request(self._allowed)

    def on_next(self, item: R) -> None:
        parent = self._parent
        if parent is not None:
            self.queue.append(item)
            parent._signal()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        parent = self._parent
        if parent is not None:
            self.done = True
            parent._fail(error)

    def on_complete(self) -> None:
        parent = self._parent
        if parent is not None:
            self.done = True
            parent._signal()

    def cancel(self) -> None:
        self._parent = None
        self.it = None
        self.queue.clear()
        subscription, self.subscription = self.subscription, CANCELLED
        subscription.cancel()

    def consumed(self, count: int) -> None:
        """Replenish after 75 % of ``prefetch`` was delivered (rule 3.17: demand stays bounded)."""
        consumed = self._consumed + count
        limit = self._limit
        if consumed >= limit:
            grant = (consumed // limit) * limit
            consumed -= grant
            if self.it is not None:
                self._allowed += grant
            else:
                self.subscription.request(grant)
        self._consumed = consumed

    def fill(self) -> BaseException | None:
        """Fused: pull what the inner subscription would have emitted by now."""
        it = self.it
        if it is None or self.done:
            return None
        queue = self.queue
        try:
            while self._pulled < self._allowed:
                item = next(it)
                if item is None:
                    raise null_item_error()  # rule 2.13, as the source would signal
                queue.append(item)
                self._pulled += 1
        except StopIteration:
            self.done = True
            return None
        except Exception as exc:
            self.done = True
            return exc
        if type(it) in exact_length_types and operator.length_hint(it) == 0:
            self.done = True  # the unfused source completes eagerly here too
        return None


class _FlatMap(DrainLoop, Generic[T, R]):
    __slots__ = (
        "_bad_request",
        "_cancelled",
        "_completed_inners",
        "_downstream",
        "_error",
        "_finished",
        "_fn",
        "_inners",
        "_main_done",
        "_main_limit",
        "_max_concurrency",
        "_prefetch",
        "_requested",
        "_upstream",
    )

    def __init__(
        self,
        downstream: Subscriber[R],
        fn: Callable[[T], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
    ) -> None:
        super().__init__()
        self._downstream: Subscriber[R] | None = downstream
        self._fn = fn
        self._max_concurrency = max_concurrency
        self._main_limit = replenish_size(max_concurrency)
        self._prefetch = prefetch
        self._upstream: Subscription = CANCELLED
        self._inners: list[_Inner[R]] = []
        self._completed_inners = 0
        self._requested = 0
        self._main_done = False
        self._error: BaseException | None = None
        self._cancelled = False
        self._finished = False
        self._bad_request: str | None = None

    # ------------------------------------------------------ upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._upstream is not CANCELLED or self._finished:
            subscription.cancel()  # rule 2.5
            return
        self._upstream = subscription
        downstream = self._downstream
        if downstream is not None:
            downstream.on_subscribe(self)
        if not self._cancelled:
            subscription.request(self._max_concurrency)

    def on_next(self, item: T) -> None:
        if self._finished or self._error is not None:
            return  # rule 2.8
        try:
            publisher = self._fn(item)
            if publisher is None:
                raise null_item_error()
        except Exception as exc:
            self._fail(exc)
            return
        inner: _Inner[R] = _Inner(self, self._prefetch)
        if (
            isinstance(publisher, IterablePublisher)
            and type(publisher) is _ITERABLE_PUBLISHER
            and publisher._executor is None
            and fusion_enabled()
        ):
            try:
                it = iter(publisher._factory())
            except Exception as exc:  # the inner fails before its first element
                self._fail(exc)
                return
            if self._requested == MAX_DEMAND and not self._inners and self._enter():
                self._emit_direct(it)  # fast path: nothing queued, unbounded demand
                return
            inner.it = it
            error = inner.fill()
            if error is not None:
                self._fail(error)
                return
            self._inners.append(inner)
            self._signal()
            return
        self._inners.append(inner)
        publisher.subscribe(inner)
        if self._finished:
            inner.cancel()  # cancelled meanwhile from another thread (rule 3.13)

    def _emit_direct(self, it: Iterator[R]) -> None:
        """We hold the drain: deliver a fused inner's elements straight downstream."""
        downstream = self._downstream
        if downstream is not None:
            on_next = downstream.on_next
            try:
                for item in it:
                    if item is None:
                        raise null_item_error()
                    try:
                        on_next(item)
                    except Exception as exc:
                        self._downstream_raised(exc)
                        break
                    if self._cancelled:
                        break
                else:
                    self._inner_completed()
            except Exception as exc:
                if self._error is None and not self._finished:
                    self._error = exc
        missed = self._leave(1)
        if missed:
            self._drain_from(missed)
        elif self._error is not None or self._cancelled or self._main_done:
            self._signal()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._fail(error)

    def on_complete(self) -> None:
        self._main_done = True
        self._signal()

    # ---------------------------------------------------- downstream side
    def request(self, n: int) -> None:
        if type(n) is not int or n <= 0:
            message = check_request(n)
            if message is not None:
                self._bad_request = message  # rule 3.9: signalled by the drain
                self._signal()
                return
        with self._lock:
            requested = self._requested + n
            self._requested = requested if requested < MAX_DEMAND else MAX_DEMAND  # rule 3.17
            wip = self._wip
            self._wip = wip + 1
        if wip == 0:
            self._drain()

    def cancel(self) -> None:
        if self._cancelled:
            return  # rule 3.5
        self._cancelled = True
        self._signal()

    # ----------------------------------------------------------- the drain
    def _signal(self) -> None:
        if self._enter():
            self._drain()

    def _fail(self, error: BaseException) -> None:
        if self._error is None:
            self._error = error
        self._signal()

    def _drain_from(self, missed: int) -> None:
        while True:
            self._drain_round()
            missed = self._leave(missed)
            if missed == 0:
                return

    def _inner_completed(self) -> None:
        completed = self._completed_inners + 1
        if completed == self._main_limit:
            completed = 0
            if not self._main_done:
                self._upstream.request(self._main_limit)
        self._completed_inners = completed

    def _release(self) -> None:
        self._finished = True
        self._downstream = None  # rule 3.13
        upstream, self._upstream = self._upstream, CANCELLED
        upstream.cancel()
        inners, self._inners = self._inners, []
        for inner in inners:
            inner.cancel()

    def _downstream_raised(self, exc: BaseException) -> None:
        _log.error("rule 2.13: on_next raised; subscription cancelled", exc_info=exc)
        self._cancelled = True

    def _drain_round(self) -> bool:
        if self._finished:
            return False
        downstream = self._downstream
        if downstream is None:
            return False
        if self._cancelled:
            self._release()
            return False
        if self._bad_request is not None and self._error is None:
            self._error = ValueError(self._bad_request)
        error = self._error
        if error is not None:
            self._release()
            try:
                downstream.on_error(error)
            except Exception as exc:
                _log.error("rule 2.13: on_error raised", exc_info=exc)
            return False
        requested = self._requested
        emitted = 0
        on_next = downstream.on_next
        inners = self._inners
        index = 0
        while index < len(inners):
            inner = inners[index]
            queue = inner.queue
            delivered = 0
            try:
                while emitted != requested and queue:
                    on_next(queue.popleft())
                    emitted += 1
                    delivered += 1
                    if self._cancelled:
                        break
            except Exception as exc:
                self._downstream_raised(exc)
            if self._cancelled:
                self._release()
                return False
            if delivered:
                inner.consumed(delivered)
            if inner.it is not None:
                fill_error = inner.fill()
                if fill_error is not None:
                    self._error = fill_error
                    if requested != MAX_DEMAND and emitted:
                        with self._lock:
                            self._requested -= emitted
                    return self._drain_round()
                if queue and emitted != requested:
                    continue  # pulled more: deliver them in this round
            if inner.done and not queue:
                inners.pop(index)
                inner._parent = None
                self._inner_completed()
                continue
            index += 1
        if emitted and requested != MAX_DEMAND:
            with self._lock:
                self._requested -= emitted
        if self._main_done and not inners and self._error is None:
            self._finished = True
            self._downstream = None
            self._upstream = CANCELLED
            try:
                downstream.on_complete()
            except Exception as exc:
                _log.error("rule 2.13: on_complete raised", exc_info=exc)
        return False


class FlatMapPublisher(Generic[T, R]):
    __slots__ = ("_fn", "_max_concurrency", "_prefetch", "_source")

    def __init__(
        self,
        source: Publisher[T],
        fn: Callable[[T], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
    ) -> None:
        for name, value in (("max_concurrency", max_concurrency), ("prefetch", prefetch)):
            message = check_request(value)
            if message is not None:
                raise ValueError(message.replace("request(n)", name))
        self._source = source
        self._fn = fn
        self._max_concurrency = max_concurrency
        self._prefetch = prefetch

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        self._source.subscribe(
            _FlatMap(subscriber, self._fn, self._max_concurrency, self._prefetch)
        )
