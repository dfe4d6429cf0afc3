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
protocol (:func:`~reactive_streams._core.fusion.sync_of`) of a Publisher inner, never
its type; what else the mapper returns is its own (``source_of``):

* a list, tuple or range (Reactor's flatMapIterable: ``Flow.flat_map`` passes the
  mapper's iterables as they are, ``Adapted``), a scalar inner (``just(x)``) or a short
  ``items`` answer is *whole*: never subscribed to, no iterator, no Flow. With demand for
  all of it and no inner ahead, it goes straight downstream; otherwise it waits in a run.
* any other iterable, a long or None-holding list, a synchronous Publisher: pulled
  (``Pull``) instead of subscribed, filling the inner's queue when requested exactly as
  the subscribed source would, so the drain below is the only one.
* upstream elements (``on_next``, or a pulled upstream's batch, ``on_next_batch``) go
  through one send path, ``_direct``, in one hold of the drain (demand and completions
  counted once per run); the first inner it cannot send ends the run and is dispatched
  with the drain free. Inside a pulled upstream's batch, the upstream demand completed
  inners earn is taken at once (``pull_within_batch``): a concat_map needs no batch per
  element.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.demand import check_request
from .._core.downstream import ACTIVE, DONE, null_element_error, where
from .._core.fusion import (
    Items,
    Pull,
    SyncSource,
    fusion_enabled,
    listed_items,
    subscribe_fused,
    sync_of,
)
from .._core.subscribing import subscribe_or_fail
from ._drained import DemandDrain, QueuedInner
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["Adapted", "FlatMapPublisher"]


def _none_free(items: Sequence[Any]) -> bool:
    """No element of a list or tuple is None (a C-level scan; an ``__eq__`` that raises or
    lies only sends the inner to the pulled path, which checks by identity)."""
    try:
        return None not in items
    except Exception:
        return False


def source_of(result: object, prefetch: int) -> tuple[Sequence[Any] | None, SyncSource | None]:
    """How a fused flat_map takes what its mapper returned: ``(whole, None)``, elements
    known now and taken whole (Reactor's flatMapIterable: no iterator, no subscription);
    ``(None, sync)``, pulled under demand; ``(None, None)``, subscribed (a Publisher
    outside the fusion protocol). Whole: a list, tuple or range (the adapted mapper's
    iterable) of at most ``prefetch`` elements, none of them None, or a synchronous
    Publisher's answer that ends within its first pull; a longer one, one with a None
    (rule 2.13's error after the elements before it) or any other iterable is pulled."""
    kind = type(result)
    if kind is list or kind is tuple:
        if len(result) <= prefetch and _none_free(result):  # type: ignore[arg-type]
            return result, None  # type: ignore[return-value]
        return None, SyncSource(Items(result, "iterable"))  # type: ignore[arg-type]
    if kind is range:
        if len(result) <= prefetch:  # type: ignore[arg-type]
            return result, None  # type: ignore[return-value]
        return None, SyncSource(Items(result, "range"), nulls=None)  # type: ignore[arg-type]
    if callable(getattr(result, "subscribe", None)):  # a Publisher: asks the protocol
        sync = sync_of(result)  # the answer checked (a stranger's: pulled)
        if sync is None:
            return None, None
        return whole_of(sync, prefetch), sync
    if not hasattr(result, "__iter__"):
        raise TypeError(f"flat_map: an inner must be a Publisher or an iterable, got {result!r}")
    return None, SyncSource(Items(result, "iterable"))


def whole_of(sync: SyncSource, prefetch: int) -> Sequence[Any] | None:
    """The elements of a synchronous inner that ends within its first pull of
    ``prefetch``, to be taken whole (no iterator, no subscription; Reactor's
    flatMapIterable): a scalar's one, an ``items`` answer's (none of them None), or the
    list or tuple of ``from_iterable`` (an iterable the mapper returned) when no element
    is None; None for any other inner, which is pulled (its None is rule 2.13's error)."""
    kind = sync.kind
    if kind == "scalar":
        return (sync.value,)
    if kind == "items":
        whole = sync.value
    elif kind == "iterable":
        whole = listed_items(sync)
        if whole is None:
            return None
        for element in whole:  # identity, never ==: elements may compare oddly
            if element is None:
                return None
    else:
        return None
    return whole if len(whole) <= prefetch else None


class Adapted(Generic[T, R]):
    """A mapper in two parts, for a fused flat_map: the user's ``fn``, and ``adapt`` for
    whatever it returns other than a list, tuple or range (a Publisher as it is, an
    awaitable or future as a Publisher, another iterable as it is, None and the rest
    refused). Called as one mapper; ``_FlatMap`` calls the parts, one Python call less
    per element."""

    __slots__ = ("adapt", "fn")

    def __init__(self, fn: Callable[[T], Any], adapt: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.adapt = adapt

    def __call__(self, item: T) -> Any:
        result = self.fn(item)
        kind = type(result)
        if kind is list or kind is tuple or kind is range:
            return result  # taken by flat_map itself (flatMapIterable)
        return self.adapt(result)


class _Inner(QueuedInner["_FlatMap[Any, R]", R]):
    """One inner source: subscribed, or (fused) pulled by the parent's drain (``pull``:
    ``request(n)`` is ``n`` elements pulled into ``queue``, no subscription), or a *run*:
    the elements of consecutive synchronous inners that ended within their first pull
    (``sizes``: each one's count, completed as the drain delivers them)."""

    __slots__ = ("_consumed", "_limit", "pull", "sizes")

    def __init__(self, parent: _FlatMap[Any, R], prefetch: int) -> None:
        super().__init__(parent)
        self._limit = replenish_size(prefetch)
        self._consumed = 0
        self.pull: Pull[R] | None = None
        self.sizes: deque[int] | None = None

    def fill(self, n: int) -> tuple[bool, BaseException | None]:
        """A pulled inner's ``request(n)``: up to ``n`` elements into the queue, as the
        subscribed source would emit them; (ended, error)."""
        pull = self.pull
        if pull is None:
            return False, None
        queue = self.queue
        while True:
            items, ended, error = pull.take(n)
            queue.extend(items)
            n -= len(items)
            if ended or n <= 0:
                break
        if ended:
            self.pull = None
        return ended, error

    def cancel(self) -> None:
        self.pull = None
        super().cancel()

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
            if self.pull is None:
                self.request(grant)
            else:
                self._refill(grant)
        self._consumed = consumed

    def _refill(self, n: int) -> None:
        before = len(self.queue)
        ended, error = self.fill(n)
        parent = self._parent
        if parent is None:
            return
        if len(self.queue) != before:
            parent._signal()  # more elements: another round (as on_next would)
        if error is not None:
            self.on_error(error)
        elif ended:
            self.on_complete()


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
        "_within",
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
        self._within: Callable[[int], list[T]] | None = None  # a fused upstream's

    # ------------------------------------------------------ upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        # a fused upstream (``PulledUpstream``) can hand over the next elements inside
        # its batch: ``_direct`` asks it for an element as an inner completes
        self._within = getattr(subscription, "pull_within_batch", None)
        self._accept(subscription)

    def _opened(self) -> None:
        self._upstream.request(self._max_concurrency)

    def on_next(self, item: T) -> None:
        self._take((item,), None)

    def on_next_batch(self, items: list[T]) -> None:
        """A fused upstream's batch (``PulledUpstream``): as ``on_next`` per element, in
        order; inside it, the upstream may be asked for more (``pull_within_batch``)."""
        self._take(items, self._within)

    def _take(self, items: Sequence[T], within: Callable[[int], list[T]] | None) -> None:
        """Upstream's elements, in order. With fusion, demand, and no inner waiting in the
        queue, whole inners go straight downstream inside one hold of the drain
        (``_direct``: no Flow, no subscription, no queue; demand and completions counted
        once per run); an element ``_direct`` cannot take (no demand for its inner, an
        inner to pull or subscribe, another thread draining) is mapped and dispatched
        with the drain free, and the rest of the batch follows."""
        count = len(items)
        index = 0
        while index < count:
            if self._pub in DONE or self._error is not None:
                return  # rule 2.8
            if self._fast and not self._inners and self._requested and self._enter():
                given, start = items, index
                try:
                    items, index, pending = self._direct(items, index, within)
                finally:
                    missed = self._leave(1)
                    if missed:
                        self._drain(missed)
                count = len(items)
                if pending is not None:
                    self._dispatch(*pending)  # the inner that stopped the run
                if index != start or items is not given:
                    continue
                if self._pub in DONE or self._error is not None:
                    return  # rule 2.8
                # stopped before its first element (3.9's error due): one by one
            item = items[index]
            index += 1
            try:
                result = self._fn(item)
                if result is None:
                    raise null_element_error(where("flat_map", self._fn))
                whole, sync = source_of(result, self._prefetch) if self._fast else (None, None)
            except Exception as exc:  # the mapper, or the inner's fusion answer, raised
                self._fail(exc)
                return
            self._dispatch(result, whole, sync)

    def _direct(
        self, items: Sequence[T], index: int, within: Callable[[int], list[T]] | None
    ) -> tuple[Sequence[T], int, tuple[Any, Sequence[R] | None, SyncSource | None] | None]:
        """``_take`` with the drain held, from ``items[index]``: the elements and the
        index after the last one taken, and the inner that cannot go straight downstream
        (dispatched by the caller with the drain free: queued for demand, rule 1.1;
        pulled; subscribed), if one stopped the run. The one place a whole inner is sent
        downstream. With ``within``, the upstream demand that completed inners earn is
        taken at once, inside the batch (the elements replace ``items``), not asked for
        a batch of its own (a ``concat_map`` earns one element per inner)."""
        downstream = self._downstream
        if downstream is None:
            return items, index, None
        fn = self._fn
        call, adapt = (fn.fn, fn.adapt) if isinstance(fn, Adapted) else (fn, None)
        on_next = downstream.on_next if self._tracer is None else self._sender(downstream)
        prefetch = self._prefetch
        room = requested = self._requested  # demand only grows meanwhile (rule 1.1)
        done = 0  # inners completed, not yet counted toward upstream's replenish
        pending: tuple[Any, Sequence[R] | None, SyncSource | None] | None = None
        while True:
            start = index
            for index, item in enumerate(items[start:] if start else items, start + 1):
                # rule 2.8 (the rest is dropped), or 3.9's error is due (``_error`` is
                # ours: set only by this thread's ``_fail``, which ends the run)
                if self._pub is not ACTIVE or self._bad is not None:
                    index -= 1  # not taken
                    break
                try:
                    result: Any = call(item)
                    kind = type(result)
                    # a list or tuple (flatMapIterable): whole when short and no element is
                    # None (rule 2.13; an ``__eq__`` that raises: pulled, checked by identity)
                    if (kind is list or kind is tuple) and len(result) <= prefetch:
                        try:
                            whole: Sequence[R] | None = result if None not in result else None
                        except Exception:
                            whole = None
                        sync = None if whole is not None else source_of(result, prefetch)[1]
                    else:
                        if adapt is not None:
                            result = adapt(result)  # a None refused there (rule 2.13)
                        elif result is None:
                            raise null_element_error(where("flat_map", fn))
                        whole, sync = source_of(result, prefetch)
                except Exception as exc:  # the mapper, a fusion answer raised
                    self._fail(exc)
                    break
                if whole is None or len(whole) > room:
                    pending = (result, whole, sync)
                    break
                try:
                    for element in whole:
                        on_next(element)
                        if self._pub is not ACTIVE:
                            break  # cancelled (rules 3.12, 1.8)
                except Exception as exc:
                    self._next_raised(exc)  # rule 2.13: cancelled
                room -= len(whole)  # exact unless cancelled meanwhile, when it no longer counts
                done += 1  # the inner completed (rule 1.5)
            else:
                index = len(items)
                if within is not None and done and self._pub is ACTIVE and room:
                    asked = self._grants(done)
                    done = 0
                    more = within(asked) if asked else []  # earned now, taken now
                    if len(more) < asked:
                        self._upstream.request(asked - len(more))  # the rest, as usual
                    if more:
                        items, index = more, 0
                        continue
            break
        self._delivered(requested - room)
        if done and self._pub is ACTIVE:
            self._inners_completed(done)
        return items, index, pending

    def _dispatch(self, result: Any, whole: Sequence[R] | None, sync: SyncSource | None) -> None:
        """One inner, with the drain free (``source_of``'s answer): whole, queued as part
        of a run; pulled (its first ``prefetch`` now); or subscribed."""
        if whole is None and sync is not None:
            whole = self._pull_inner(sync)
            if whole is None:
                return  # waits as a pulled inner, or failed
        if whole is not None:
            self._join_run(whole)
        else:
            self._subscribe_inner(result)

    def _subscribe_inner(self, publisher: Publisher[R]) -> None:
        inner: _Inner[R] = _Inner(self, self._prefetch)
        self._inners.append(inner)
        if not subscribe_or_fail(publisher, inner, inner.failed):
            return
        if self._pub in DONE:
            inner.cancel()  # cancelled meanwhile from another thread (rule 3.13)

    def _pull_inner(self, sync: SyncSource) -> Sequence[R] | None:
        """A synchronous inner: pulled, never subscribed. Its first ``prefetch`` elements
        are pulled now, as the subscribed inner's first request would have them emitted;
        one that ends within them is whole (returned, for the caller to emit or queue);
        the rest wait as a pulled inner, and a failure is signalled (None returned)."""
        prefetch = self._prefetch
        try:
            pull: Pull[R] = Pull(iter(sync.factory()), sync.nulls is not None)
        except Exception as exc:  # the source failed before its first element
            self._fail(exc)
            return None
        items, ended, error = pull.take(prefetch)
        if ended and error is None:
            return items
        inner: _Inner[R] = _Inner(self, prefetch)
        inner.queue.extend(items)
        if not ended:
            inner.pull = pull
            if len(items) < prefetch:  # the batch bound cut it: the rest of the request
                ended, error = inner.fill(prefetch - len(items))
        self._inners.append(inner)
        if inner.queue:
            self._signal()
        if error is not None:
            inner.done = True
            self._fail(error)  # rule 1.4: the inner's error, after its elements
        elif ended:
            inner.done = True
            self._signal()
        elif self._pub in DONE:
            inner.cancel()  # cancelled meanwhile from another thread (rule 3.13)
        return None

    def _join_run(self, items: Sequence[R]) -> None:
        """Whole synchronous inners, in order: one queue, each completed as the drain
        delivers its last element (``sizes``), as its own subscription would complete."""
        with self._lock:  # the drain closes the tail run under the lock
            inners = self._inners
            run = inners[-1] if inners else None
            if run is None or run.sizes is None or run.done:
                run = _Inner(self, self._prefetch)
                run.sizes = deque()
                inners.append(run)
            # the count first: a drain on another thread may deliver the elements at once
            run.sizes.append(len(items))
            run.queue.extend(items)
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

    def _inners_completed(self, count: int) -> None:
        """``count`` inners completed at once: upstream is asked for ``limit`` per
        ``limit`` of them, in one request (rule 3.17: the same total as one by one)."""
        asked = self._grants(count)
        if asked:
            self._upstream.request(asked)

    def _grants(self, count: int) -> int:
        """``count`` more inners completed: the upstream demand they earn (``limit`` per
        ``limit`` of them; none once upstream is done)."""
        limit = self._main_limit
        completed = self._completed_inners + count
        grants = completed // limit
        self._completed_inners = completed - grants * limit
        return grants * limit if not self._main_done else 0

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
            sizes = inner.sizes
            if sizes is not None:
                if self._run_delivered(inner, sizes, delivered):
                    inners.pop(index)
                    continue
                if queue and emitted != requested and self._pub is ACTIVE:
                    continue  # inners joined it while it completed some: theirs come next
            else:
                if delivered:
                    inner.consumed(delivered)
                if inner.done and not queue:
                    inners.pop(index)
                    inner._parent = None
                    self._inner_completed()
                    continue
            index += 1
        return emitted

    def _run_delivered(self, run: _Inner[R], sizes: deque[int], delivered: int) -> bool:
        """Complete the run's inners whose last element went out; True when it is spent."""
        while sizes and sizes[0] <= delivered:
            delivered -= sizes.popleft()
            self._inner_completed()
        if delivered:
            sizes[0] -= delivered
        if run.queue:
            return False
        with self._lock:  # closed, so no inner joins it after this look (``_join_run``)
            if sizes:  # joined meanwhile
                return False
            run.done = True
            run._parent = None
        return True


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
