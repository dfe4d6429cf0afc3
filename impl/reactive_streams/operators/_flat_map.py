"""``flat_map`` (and ``concat_map``, ``merge`` built on it): map each element to a
Publisher and merge the inner publishers' elements, up to ``max_concurrency`` at once.

Upstream is asked for ``max_concurrency`` elements, then for ``limit`` more (75 %) each
time ``limit`` inner publishers have completed. Each inner subscription asks for
``prefetch`` and replenishes at 75 %; its elements wait in its own queue until there is
downstream demand. One drain loop (the core ``DrainLoop``) delivers them, so downstream
signals never overlap (rule 1.3) even when inner publishers emit on other threads. An
error (upstream, an inner, or the mapper raising) cancels everything and is signalled at
once; completion comes when upstream and every inner have completed.

Fusion (off with ``set_fusion(False)``, checked when the pipeline is built):

* scalar inner (``just(x)``, or a Flow of it): never subscribed to. With demand and no
  inner ahead of it, ``x`` goes straight downstream; otherwise it waits as a ready inner.
* synchronous iterable inner (``range``, ``from_iterable``, ``empty``, ``error``, ``just``
  of several, fused ``map``/``filter`` chains; no executor): not subscribed to; the drain
  pulls from its iterator, as far ahead as the inner subscription would have emitted
  (``prefetch``, replenished at 75 %). Under unbounded demand with no other inner, the
  elements go straight downstream.
* synchronous upstream (a fusable Flow): not subscribed to either; the drain pulls it,
  as far as the requests above allow (``max_concurrency``, then 75 % batches), so the
  element path takes no lock at all.

Every fast path sends what the subscribed path would send, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.downstream import ACTIVE, DONE, null_element_error, null_from, where
from .._demand import MAX_DEMAND, check_request
from .._exact import exact_end
from .._subscribing import subscribe_or_fail
from .._subscription import exact_length_types
from ..sources import IterablePublisher, ScalarPublisher
from ._drained import DemandDrain, QueuedInner, pull_ahead
from ._fused import fusion_enabled
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["FlatMapPublisher"]

_ITERABLE_PUBLISHER: type = IterablePublisher
_SCALAR_PUBLISHER: type = ScalarPublisher
_flow_type: type | None = None  # reactive_streams.flow.Flow, imported on first use


def _flow() -> type:
    global _flow_type
    if _flow_type is None:
        from ..flow import Flow

        _flow_type = Flow
    return _flow_type


class _Inner(QueuedInner["_FlatMap[Any, R]", R]):
    """One inner source: a real subscription, or (fused) an iterator pulled by the drain
    (``_allowed`` grows only then, so a subscribed inner asks for ``prefetch``)."""

    __slots__ = ("_allowed", "_consumed", "_limit", "_pulled", "it")

    def __init__(self, parent: _FlatMap[Any, R], prefetch: int) -> None:
        super().__init__(parent)
        self.it: Iterator[R] | None = None
        self._limit = replenish_size(prefetch)
        self._consumed = 0
        self._pulled = 0
        self._allowed = prefetch

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

    def cancel(self) -> None:
        self.it = None
        super().cancel()

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
        self._pulled, self.done, error = pull_ahead(it, self.queue, self._pulled, self._allowed)
        return error


class _Pulled:
    """The upstream Subscription of a fused synchronous source: nothing is subscribed;
    ``request`` raises how far the drain may pull, ``cancel`` drops the iterator."""

    __slots__ = ("_parent",)

    def __init__(self, parent: _FlatMap[Any, Any]) -> None:
        self._parent: _FlatMap[Any, Any] | None = parent

    def request(self, n: int) -> None:
        parent = self._parent
        if parent is not None:
            parent._up_allowed += n  # only ever called by the drain holder

    def cancel(self) -> None:
        parent, self._parent = self._parent, None
        if parent is not None:
            parent._up_it = None  # rule 3.13
            parent._up_factory = None


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
        "_up_allowed",
        "_up_factory",
        "_up_it",
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
        self._up_factory: Callable[[], Iterable[T]] | None = None
        self._up_it: Iterator[T] | None = None
        self._up_allowed = 0  # fused upstream: elements the drain may still pull

    # ------------------------------------------------------ upstream side
    def start_pulled(self, factory: Callable[[], Iterable[T]]) -> None:
        """Fused upstream: ``on_subscribe`` downstream, then pull ``factory()``'s iterator
        from the drain exactly as far as the subscribed upstream would have emitted."""
        self._upstream = _Pulled(self)
        self._up_factory = factory
        self._signal()  # the first round delivers on_subscribe, then ``_opened``

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
        except Exception as exc:
            self._fail(exc)
            return
        if self._fast:
            source: Any = publisher
            kind = type(source)
            if kind is _flow_type:
                source = source._source
                kind = type(source)
            if kind is _SCALAR_PUBLISHER:
                self._on_scalar(source.value)
                return
            if kind is _ITERABLE_PUBLISHER and source._executor is None:
                self._on_iterable(source._factory)
                return
        self._subscribe_inner(publisher)

    def _subscribe_inner(self, publisher: Publisher[R]) -> None:
        inner: _Inner[R] = _Inner(self, self._prefetch)
        self._inners.append(inner)
        if not subscribe_or_fail(publisher, inner, inner.failed):
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

    def _on_iterable(self, factory: Callable[[], Iterable[R]]) -> None:
        """Fused synchronous iterable inner from a subscribed upstream."""
        try:
            it = iter(factory())
        except Exception as exc:  # the inner fails before its first element
            self._fail(exc)
            return
        if self._requested == MAX_DEMAND and not self._inners and self._enter():
            self._emit_direct(it)  # fast path: nothing queued, unbounded demand
            return
        inner: _Inner[R] = _Inner(self, self._prefetch)
        inner.it = it
        error = inner.fill()
        if error is not None:
            self._fail(error)
            return
        self._inners.append(inner)
        self._signal()

    def _emit_direct(self, it: Iterator[R]) -> None:
        """We hold the drain: deliver a fused inner's elements straight downstream."""
        downstream = self._downstream
        if downstream is not None:
            self._emit_all(self._sender(downstream), it)
        missed = self._leave(1)
        if missed:
            self._drain(missed)
        elif self._error is not None or self._pub is not ACTIVE or self._main_done:
            self._signal()

    def _emit_all(self, on_next: Callable[[R], object], it: Iterator[R]) -> None:
        """Unbounded demand, no other inner, drain held: the whole inner, then its completion."""
        try:
            for item in it:
                if item is None:
                    raise null_from(it)
                try:
                    on_next(item)
                except Exception as exc:
                    self._next_raised(exc)
                    return
                if self._pub is not ACTIVE:
                    return
        except Exception as exc:
            if self._error is None and self._pub not in DONE:
                self._error = exc
            return
        self._inner_completed()

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
            requested = self._requested
            emitted = self._deliver(self._sender(downstream), requested)
            if self._pub is not ACTIVE:
                return False  # the next round releases
            again = False
            if self._up_allowed and self._error is None and not self._main_done:
                emitted, again = self._pull(downstream, requested, emitted)
            self._delivered(emitted)
            if again or self._error is not None or self._pub is not ACTIVE:
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
            if inner.it is not None:
                fill_error = inner.fill()
                if fill_error is not None:
                    if self._error is None:
                        self._error = fill_error
                    return emitted
                if queue and emitted != requested:
                    continue  # pulled more: deliver them in this round
            if inner.done and not queue:
                inners.pop(index)
                inner._parent = None
                self._inner_completed()
                continue
            index += 1
        return emitted

    def _pull(self, downstream: Subscriber[R], requested: int, emitted: int) -> tuple[int, bool]:
        """Fused upstream, drain held: pull and map elements while the upstream requests
        allow. Returns the count sent so far and whether another pass must deliver."""
        it = self._up_it
        if it is None:
            factory = self._up_factory
            if factory is None:
                return emitted, False
            self._up_factory = None
            try:
                it = iter(factory())
            except Exception as exc:  # the upstream fails before its first element
                self._error = exc
                return emitted, True
            self._up_it = it
        fn = self._fn
        on_next = self._sender(downstream)
        inners = self._inners
        fast = self._fast
        flow_type = _flow_type
        limit = self._main_limit
        completed = self._completed_inners
        unbounded = requested == MAX_DEMAND
        queued = False
        try:
            for item in it:
                self._up_allowed -= 1
                if item is None:
                    raise null_from(it)  # rule 2.13, as the source would signal
                publisher: Any = fn(item)
                if publisher is None:
                    raise null_element_error(where("flat_map", fn))
                if fast:
                    kind = type(publisher)
                    if kind is flow_type:
                        publisher = publisher._source
                        kind = type(publisher)
                    if kind is _SCALAR_PUBLISHER:
                        if inners or not (unbounded or emitted < requested):
                            inners.append(self._ready(publisher.value))
                            queued = True
                        else:
                            try:
                                on_next(publisher.value)
                            except Exception as exc:
                                self._next_raised(exc)
                            emitted += 1
                            if self._pub is not ACTIVE:
                                break
                            completed += 1
                            if completed == limit:  # the inner completed: replenish upstream
                                completed = 0
                                self._up_allowed += limit
                        if self._up_allowed:
                            continue
                        break
                    if kind is _ITERABLE_PUBLISHER and publisher._executor is None:
                        inner_it = iter(publisher._factory())
                        if unbounded and not inners:
                            self._completed_inners = completed
                            self._emit_all(on_next, inner_it)
                            if self._pub is not ACTIVE or self._error is not None:
                                break
                            completed = self._completed_inners
                        else:
                            inner: _Inner[R] = _Inner(self, self._prefetch)
                            inner.it = inner_it
                            fill_error = inner.fill()
                            if fill_error is not None:
                                raise fill_error
                            inners.append(inner)
                            queued = True
                        if self._up_allowed:
                            continue
                        break
                self._completed_inners = completed
                self._subscribe_inner(publisher)
                completed = self._completed_inners
                queued = True
                if not self._up_allowed or self._error is not None or self._pub in DONE:
                    break
            else:
                self._main_done = True  # the upstream is exhausted: it would complete
                self._up_it = None
        except Exception as exc:  # the upstream, the mapper or a fused inner failed
            if self._error is None:
                self._error = exc
            queued = True
        self._completed_inners = completed
        it = self._up_it
        if it is not None and not self._up_allowed and type(it) in exact_length_types:
            ended, error = exact_end(it)  # an exact source ends at the end of its demand
            if ended:
                self._main_done = True
                self._up_it = None
                if error is not None and self._error is None:
                    self._error = error  # rule 1.4: as eagerly as it would complete
                    queued = True
        return emitted, queued


class FlatMapPublisher(Generic[T, R]):
    """``upstream_factory``: the iterator factory of a synchronous upstream (fusion on),
    pulled by the drain instead of subscribed to. ``hop``: the name in traces, the
    ``Flow`` method that built it (``flat_map``, ``concat_map``, ``merge``)."""

    __slots__ = (
        "_fast",
        "_fn",
        "_hop",
        "_max_concurrency",
        "_prefetch",
        "_source",
        "_upstream_factory",
    )

    def __init__(
        self,
        source: Publisher[T],
        fn: Callable[[T], Publisher[R]],
        max_concurrency: int,
        prefetch: int,
        upstream_factory: Callable[[], Iterable[T]] | None = None,
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
        self._upstream_factory = upstream_factory if self._fast else None
        self._hop = hop

    def subscribe(self, subscriber: Subscriber[R]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        if _flow_type is None:
            _flow()
        parent: _FlatMap[T, R] = _FlatMap(
            subscriber, self._fn, self._max_concurrency, self._prefetch, self._fast, self._hop
        )
        factory = self._upstream_factory
        if factory is not None:
            parent.start_pulled(factory)
        else:
            subscribe_or_fail(self._source, parent, parent._fail)  # rule 1.9
