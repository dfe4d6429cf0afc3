"""``flat_map`` (and ``concat_map``, ``merge`` built on it): map each element to a
Publisher and merge the inner publishers' elements, up to ``max_concurrency`` at once.

Upstream is asked for ``max_concurrency`` elements, then for ``limit`` more (75 %) each
time ``limit`` inner publishers have completed. Each inner subscription asks for
``prefetch`` and replenishes at 75 %; its elements wait in its own queue until there is
downstream demand. One drain loop (the core ``DrainLoop``) delivers them, so downstream
signals never overlap (rule 1.3) even when inner publishers emit on other threads. An
error (upstream, an inner, or the mapper raising) cancels everything and is signalled at
once; completion comes when upstream and every inner have completed.

Fusion (off with ``set_fusion(False)``, read when the pipeline is built) asks the fusion
protocol (:func:`~reactive_streams._core.fusion.sync_of`), never a type:

* scalar inner (``just(x)``, or a Flow of it): never subscribed to. With demand and no
  inner ahead of it, ``x`` goes straight downstream; otherwise it waits as a ready inner.
* synchronous inner or upstream: a ``PulledUpstream`` instead of a subscription; it fills
  the inner's queue (or calls ``on_next``) when requested, exactly as the subscribed
  source would, so the drain below is the only one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE, DONE, null_element_error, where
from .._core.fusion import PulledUpstream, SyncSource, fusion_enabled, subscribe_fused, sync_of
from .._demand import check_request
from .._subscribing import subscribe_or_fail
from ._drained import DemandDrain, QueuedInner
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["FlatMapPublisher"]


class _Inner(QueuedInner["_FlatMap[Any, R]", R]):
    """One inner source: subscribed, or (fused) pulled through a ``PulledUpstream``."""

    __slots__ = ("_consumed", "_limit")

    def __init__(self, parent: _FlatMap[Any, R], prefetch: int) -> None:
        super().__init__(parent)
        self._limit = replenish_size(prefetch)
        self._consumed = 0

    # ----------------------------------------------------- as a Subscriber
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

    def failed(self, error: Exception) -> None:
        """The inner's ``subscribe`` raised, or it is no Publisher (rules 1.9, 2.13)."""
        parent = self._parent
        self.cancel()
        if parent is not None:
            parent._fail(error)

    def consumed(self, count: int) -> None:
        """Replenish after 75 % of ``prefetch`` was delivered (rule 3.17: demand stays bounded)."""
        consumed = self._consumed + count
        limit = self._limit
        if consumed >= limit:
            grant = (consumed // limit) * limit
            consumed -= grant
            self.subscription.request(grant)
        self._consumed = consumed


class _FlatMap(DemandDrain[R], Generic[T, R]):
    __slots__ = (
        "_completed_inners",
        "_fast",
        "_fn",
        "_inners",
        "_main_done",
        "_main_limit",
        "_max_concurrency",
        "_prefetch",
    )

    def __init__(
        self,
        downstream: Subscriber[R],
        fn: Callable[[T], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
        fast: bool,
        hop: str,
    ) -> None:
        super().__init__(downstream, hop)
        self._fn = fn
        self._max_concurrency = max_concurrency
        self._main_limit = replenish_size(max_concurrency)
        self._prefetch = prefetch
        self._inners: list[_Inner[R]] = []
        self._completed_inners = 0
        self._main_done = False
        self._fast = fast  # the fused paths (decided when the pipeline was built)

    # ------------------------------------------------------ upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def _opened(self) -> None:
        self._upstream.request(self._max_concurrency)

    def on_next(self, item: T) -> None:
        if self._pub in DONE or self._error is not None:
            return  # rule 2.8
        try:
            publisher = self._fn(item)
            if publisher is None:
                raise null_element_error(where("flat_map", self._fn))
            sync = sync_of(publisher) if self._fast else None
        except Exception as exc:
            self._fail(exc)
            return
        if sync is not None and sync.kind == "scalar":
            self._on_scalar(sync.value)
            return
        self._subscribe_inner(publisher, sync)

    def _subscribe_inner(self, publisher: Publisher[R], sync: SyncSource | None) -> None:
        inner: _Inner[R] = _Inner(self, self._prefetch)
        self._inners.append(inner)
        if sync is not None:
            PulledUpstream(inner, sync.factory).start()  # fused: pulled when requested
        elif not subscribe_or_fail(publisher, inner, inner.failed):
            return
        if self._pub in DONE:
            inner.cancel()  # cancelled meanwhile from another thread (rule 3.13)

    def _ready(self, value: R) -> _Inner[R]:
        """A scalar inner waiting for demand: one queued element, already done."""
        inner: _Inner[R] = _Inner(self, self._prefetch)
        inner.queue.append(value)
        inner.done = True
        return inner

    def _on_scalar(self, value: R) -> None:
        """Fused scalar inner from a subscribed upstream."""
        if not self._inners and self._requested and self._enter():
            # re-checked with the drain held: another drain may have taken the demand (1.1)
            if self._stopped() or self._inners or not self._requested:
                self._inners.append(self._ready(value))
                self._drain(1)
                return
            downstream = self._downstream
            if downstream is not None:
                try:
                    self._sender(downstream)(value)
                except Exception as exc:
                    self._next_raised(exc)
                self._delivered(1)
                self._inner_completed()
            missed = self._leave(1)
            if missed:
                self._drain(missed)
            elif self._pub is not ACTIVE:
                self._signal()
            return
        self._inners.append(self._ready(value))
        self._signal()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._fail(error)

    def on_complete(self) -> None:
        self._main_done = True
        self._signal()

    # ----------------------------------------------------------- the drain
    def _fail(self, error: BaseException) -> None:
        if self._error is None:
            self._error = error
        self._signal()

    def _inner_completed(self) -> None:
        completed = self._completed_inners + 1
        if completed == self._main_limit:
            completed = 0
            if not self._main_done:
                self._upstream.request(self._main_limit)
        self._completed_inners = completed

    def _released(self) -> None:
        super()._released()  # rule 3.13, upstream cancelled
        inners, self._inners = self._inners, []
        for inner in inners:
            inner.cancel()

    def _round(self) -> bool:
        while True:
            downstream = self._downstream
            if downstream is None or self._pub is not ACTIVE:
                return False  # the next round releases
            if self._bad is not None or self._error is not None:
                self._finish(self._error)  # rule 3.9's error instead, if one is due
                return False
            emitted = self._deliver(self._sender(downstream), self._requested)
            if self._pub is not ACTIVE:
                return False  # the next round releases
            self._delivered(emitted)
            if self._error is not None or self._pub is not ACTIVE:
                continue
            if self._main_done and not self._inners:
                self._finish(None)  # rule 3.9's error instead, if one is due
            return False

    def _deliver(self, on_next: Callable[[R], object], requested: int) -> int:
        """Queued elements, inner by inner, while demand lasts: the count sent."""
        emitted = 0
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
                    if self._pub is not ACTIVE:
                        break
            except Exception as exc:
                self._next_raised(exc)
            if self._pub is not ACTIVE:
                return emitted
            if delivered:
                inner.consumed(delivered)
            if inner.done and not queue:
                inners.pop(index)
                inner._parent = None
                self._inner_completed()
                continue
            index += 1
        return emitted


class FlatMapPublisher(Generic[T, R]):
    """``hop``: the name in traces, the ``Flow`` method that built it (``flat_map``,
    ``concat_map``, ``merge``). With fusion on when it is built, a synchronous upstream
    is pulled (``PulledUpstream``) instead of subscribed to."""

    __slots__ = ("_fast", "_fn", "_hop", "_max_concurrency", "_prefetch", "_source")

    def __init__(
        self,
        source: Publisher[T],
        fn: Callable[[T], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
        hop: str = "flat_map",
    ) -> None:
        for name, value in (("max_concurrency", max_concurrency), ("prefetch", prefetch)):
            message = check_request(value)
            if message is not None:
                raise ValueError(message.replace("request(n)", name))
        self._source = source
        self._fn = fn
        self._max_concurrency = max_concurrency
        self._prefetch = prefetch
        self._fast = fusion_enabled()
        self._hop = hop

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        parent: _FlatMap[T, R] = _FlatMap(
            subscriber, self._fn, self._max_concurrency, self._prefetch, self._fast, self._hop
        )
        if not subscribe_fused(self._source, parent, self._fast):
            subscribe_or_fail(self._source, parent, parent._fail)  # rule 1.9
