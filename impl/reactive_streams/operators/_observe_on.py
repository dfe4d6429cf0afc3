"""``observe_on`` (an asynchronous boundary) and ``limit_rate`` (the same without a thread).

Upstream elements go into a queue bounded by ``prefetch``: upstream is asked for
``prefetch`` elements first and for ``limit = prefetch - prefetch // 4`` more each time
``limit`` of them have been delivered (replenish at 75 %). A drain loop on ``executor``
(the core ``DrainLoop``: one drainer at a time, rules 1.3 and 2.7) delivers the queued
elements up to the downstream demand. While upstream is faster than the drain, ``on_next``
only appends; the running drain picks the new elements up in the same task, so batches
form by themselves, up to ``DEFAULT_BATCH_SIZE`` elements per task (the drain loop's
budget): then the task re-schedules itself, so an endless stream shares the pool. The
terminal signal follows the queued elements.

Every upstream ``request``/``cancel`` is made from the drain, so they are serial (rule
2.7); ``on_subscribe`` is delivered downstream from the drain too (rule 1.3).

Micro-fusion: over a synchronous iterable source the drain pulls from the source's
iterator itself (no queue hand-off, no upstream subscription). It pulls exactly as far
ahead as the unfused upstream would have emitted, so the signals are the same.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

from .._core.downstream import ACTIVE, null_from
from .._demand import MAX_DEMAND, check_request
from ..executors import as_executor
from ..sources import DEFAULT_BATCH_SIZE
from ._drained import DemandDrain, pull_ahead

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription
    from ..executors import Executor

T = TypeVar("T")

__all__ = ["ObserveOnPublisher", "replenish_size"]


def replenish_size(prefetch: int) -> int:
    """Elements consumed between two upstream requests: 75 % of ``prefetch``."""
    return max(1, prefetch - prefetch // 4)


class _ObserveOn(DemandDrain[T]):
    __slots__ = (
        "_allowed",
        "_consumed",
        "_done",
        "_factory",
        "_it",
        "_limit",
        "_prefetch",
        "_pulled",
        "_queue",
    )

    def __init__(
        self,
        downstream: Subscriber[T],
        executor: Executor | None,
        prefetch: int,
        factory: Callable[[], Iterable[T]] | None = None,
    ) -> None:
        super().__init__(downstream, "observe_on" if executor is not None else "limit_rate")
        self._executor = executor
        self._batch = DEFAULT_BATCH_SIZE  # elements per task (fairness)
        self._prefetch = prefetch
        self._limit = replenish_size(prefetch)
        self._queue: deque[T] = deque()
        self._consumed = 0
        self._done = False  # upstream terminated (error in _error)
        # micro-fusion: the source's iterator, pulled by the drain
        self._factory = factory
        self._it: Iterator[T] | None = None
        self._pulled = 0
        self._allowed = prefetch

    # ----------------------------------------------------------- scheduling
    def _wake(self, cancel: bool) -> None:
        """We took ``_wip`` from 0: drain here (limit_rate) or on the executor."""
        executor = self._executor
        if executor is None or not self._submit(executor):
            self._drain()  # limit_rate, or the executor refused: on the calling thread

    def _rejected(self, error: Exception) -> None:
        self._executor = None  # the drain is ours: from now on it runs here
        super()._rejected(error)  # rules 1.9, 1.4: on_subscribe if due, then on_error

    # ------------------------------------------------------- upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def on_next(self, item: T) -> None:
        self._queue.append(item)
        self._signal()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._error = error
        self._done = True
        self._signal()

    def on_complete(self) -> None:
        self._done = True
        self._signal()

    # ------------------------------------------------------------ the drain
    def _opened(self) -> None:
        if self._factory is not None:
            self._open_source()
        else:
            self._upstream.request(self._prefetch)

    def _clear(self) -> None:
        self._queue.clear()
        self._it = None
        self._factory = None

    def _round(self) -> bool:
        downstream = self._downstream
        if downstream is None:
            return False
        if self._it is not None:
            return self._drain_fused(downstream, self._it)
        return self._drain_queue(downstream)

    def _drain_queue(self, downstream: Subscriber[T]) -> bool:
        queue = self._queue
        popleft = queue.popleft
        on_next = self._sender(downstream)
        limit = self._limit
        consumed = self._consumed
        # rule 3.17: unbounded demand is not counted down; the task's budget bounds both
        cap = min(self._requested, self._budget)
        emitted = 0
        try:
            while emitted != cap:
                try:
                    item = popleft()
                except IndexError:
                    break
                on_next(item)
                emitted += 1
                consumed += 1
                if consumed == limit:
                    consumed = 0
                    self._upstream.request(limit)
                if self._pub is not ACTIVE:
                    break
        except Exception as exc:
            self._consumed = consumed
            self._next_raised(exc)
            return False
        self._consumed = consumed
        self._delivered(emitted)
        if self._done and not queue:
            self._finish(self._error)  # rule 3.9's error instead, if one is due
        return False

    # ------------------------------------------------------- micro-fusion
    def _open_source(self) -> None:
        factory = self._factory
        assert factory is not None
        try:
            self._it = iter(factory())
        except Exception as exc:
            self._done = True
            self._error = exc
            self._it = iter(())
        self._fill()

    def _fill(self) -> None:
        """Pull what the unfused upstream would have emitted by now into the queue."""
        it = self._it
        if it is None or self._done:
            return
        self._pulled, done, error = pull_ahead(it, self._queue, self._pulled, self._allowed)
        if error is not None:
            self._error = error
        self._done = done

    def _count_delivered(self, delivered: int) -> None:
        # the unfused drain asks for ``limit`` more after every ``limit`` delivered
        consumed = self._consumed + delivered
        limit = self._limit
        if consumed >= limit:
            self._allowed += (consumed // limit) * limit
            consumed %= limit
        self._consumed = consumed

    def _drain_fused(self, downstream: Subscriber[T], it: Iterator[T]) -> bool:
        queue = self._queue
        on_next = self._sender(downstream)
        requested = self._requested
        cap = min(requested, self._budget)  # the task's budget (fairness)
        emitted = 0
        try:
            # queued (pulled ahead) elements first
            while queue and emitted != cap:
                on_next(queue.popleft())
                emitted += 1
                if self._pub is not ACTIVE:
                    break
            if (
                requested == MAX_DEMAND
                and not queue
                and not self._done
                and self._pub is ACTIVE
                and self._bad is None
            ):
                # unbounded demand: the window no longer matters, poll the source directly
                emitted += self._poll_unbounded(on_next, it, cap - emitted)
        except Exception as exc:
            self._next_raised(exc)
            return False
        if emitted:
            self._delivered(emitted)
            self._count_delivered(emitted)
        if self._pub is not ACTIVE:
            return False  # the next round releases
        if requested != MAX_DEMAND:
            self._fill()  # unbounded: the next task polls on, nothing is pulled ahead
        if self._done and not queue:
            self._finish(self._error)
            return False
        if queue and self._requested > 0:
            self._enter()  # more to deliver after the fill: another round (budget permitting)
        return False

    def _poll_unbounded(self, on_next: Callable[[T], object], it: Iterator[T], cap: int) -> int:
        """Unbounded demand: up to ``cap`` of the source's elements straight downstream; an
        exception from ``on_next`` propagates, one from the source ends the stream."""
        sent = 0
        done = False
        while sent != cap:  # cap reached: the budget is spent, the next task polls on
            try:
                item = next(it)
                if item is None:
                    raise null_from(it)
            except StopIteration:
                done = True
                break
            except Exception as exc:
                self._error = exc
                done = True
                break
            sent += 1
            on_next(item)
            if self._pub is not ACTIVE:
                break
        self._done = done
        return sent


class ObserveOnPublisher(Generic[T]):
    """``observe_on`` / ``limit_rate`` for every subscriber of ``source``."""

    __slots__ = ("_executor", "_factory", "_prefetch", "_source")

    def __init__(
        self,
        source: Publisher[T],
        executor: Executor | None,
        prefetch: int,
        factory: Callable[[], Iterable[T]] | None = None,
    ) -> None:
        message = check_request(prefetch)
        if message is not None:
            raise ValueError(message.replace("request(n)", "prefetch"))
        self._source = source
        self._executor = as_executor(executor) if executor is not None else None
        self._prefetch = prefetch
        self._factory = factory

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        op: _ObserveOn[T] = _ObserveOn(subscriber, self._executor, self._prefetch, self._factory)
        if self._factory is not None:
            op._signal()  # the first round delivers on_subscribe and pulls the prefetch
        else:
            self._source.subscribe(op)
