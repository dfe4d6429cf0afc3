"""Subjects that signal from a shared ``ThreadPoolExecutor``, one class per bug, each
naming the rule it breaks and the check that must catch it (``make kit-load`` runs them
under CPU burners; ``tests/tck/test_pooled.py`` runs them idle).
``DoubleCompletingPublisher`` signals on the threads that request instead: its race is
between them.

``PooledPublisher`` is the correct control: a pool worker drains 0..n-1 as demand allows,
one drain at a time (rule 1.3), completes as soon as the last element is out (no demand
needed), and stops on cancel (3.12). ``PrefetchingProcessor`` is correct too: it requests
``buffer_size`` upstream before any downstream demand and passes an upstream error on at
once, ahead of the elements it holds (rule 4.2; 1.4 and 1.5 ask no order of them).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

from ..._core.demand import add_demand, check_request
from ...api import Subscriber, Subscription

__all__ = [
    "CancelIgnoringPublisher",
    "DoubleCompletingPublisher",
    "LazyCompletingPublisher",
    "PooledPublisher",
    "PrefetchingProcessor",
]

POOL = ThreadPoolExecutor(4, thread_name_prefix="pooled")
"""Non-daemon workers, as an application's pool has (the CLI must exit past them)."""


class PooledPublisher:
    """Correct: emits ``0..n-1`` on a pool worker (see the module doc). ``hook(i)`` runs
    on the emitting thread before element ``i`` (tests slow or starve the emitter)."""

    rule: ClassVar[str | None] = None
    check: ClassVar[str | None] = None

    def __init__(self, n: int, hook: Callable[[int, bool], None] | None = None) -> None:
        self.n = n
        self.hook = hook

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscription = _Pooled(self, subscriber)
        try:
            subscriber.on_subscribe(subscription)
        except Exception:  # rule 2.13: the subscription counts as cancelled
            subscription.cancel()
        subscription.start()  # no signal while on_subscribe runs (rule 1.3)


class CancelIgnoringPublisher(PooledPublisher):
    """Keeps emitting after ``cancel()``, demand or not (rules 1.8 and 3.12):
    ``extra_spec312_cancel_stops_emission_with_outstanding_demand`` must fail on 3.12."""

    rule = "3.12"
    check = "extra_spec312_cancel_stops_emission_with_outstanding_demand"


class DoubleCompletingPublisher:
    """Signals on the requesting threads (one drain at a time, rule 1.3); after its drain
    every ``request()`` completes a finished stream with an unlocked check-then-act, so
    several threads requesting as the stream ends get ``on_complete`` twice (rule 1.7):
    ``extra_spec107_concurrent_requests_as_the_stream_ends_complete_it_once`` must fail.
    One requester at a time never sees it."""

    rule = "1.7"
    check = "extra_spec107_concurrent_requests_as_the_stream_ends_complete_it_once"

    def __init__(self, n: int) -> None:
        self.n = n

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscription = _Racy(self.n, subscriber)
        subscription.wip = 1  # requests made inside on_subscribe wait for it (rule 1.3)
        try:
            subscriber.on_subscribe(subscription)
        except Exception:  # rule 2.13
            subscription.cancelled = True
        subscription.drain()


class _Racy:
    def __init__(self, n: int, subscriber: Subscriber[Any]) -> None:
        self.n = n
        self.subscriber = subscriber
        self.lock = threading.Lock()
        self.demand = 0
        self.index = 0
        self.wip = 0
        self.cancelled = False
        self.failed = False
        self.completed = False

    def request(self, n: int) -> None:
        with self.lock:
            if check_request(n) is not None:
                self.failed, self.cancelled = not self.cancelled and not self.completed, True
            else:
                self.demand = add_demand(self.demand, n)
            self.wip += 1
            if self.wip > 1:
                return  # the running drain takes it
        self.drain()

    def drain(self) -> None:
        if self.failed:
            self.failed = False
            self.subscriber.on_error(ValueError("rule 3.9: request(n) needs n > 0"))
            return
        while True:
            with self.lock:
                emit = not self.cancelled and self.demand > 0 and self.index < self.n
                if emit:
                    self.demand -= 1
                    self.index += 1
                else:
                    self.wip = 0
            if not emit:
                break
            try:
                self.subscriber.on_next(self.index - 1)
            except Exception:  # rule 2.13: counts as cancelled
                self.cancel()
        ended = self.index >= self.n and (self.n > 0 or self.demand > 0)
        if ended and not self.completed and not self.cancelled:  # the bug: unlocked
            time.sleep(0)
            self.completed = True
            self.subscriber.on_complete()

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True


class LazyCompletingPublisher(PooledPublisher):
    """Holds ``on_complete`` until one more ``request()`` arrives, a demand completion does
    not need (rule 1.5, optional reading): the JVM TCK and every completion check that
    requests once more pass it; ``extra_spec105_completion_needs_no_further_demand``
    (optional) must fail."""

    rule = "1.5"
    check = "extra_spec105_completion_needs_no_further_demand"


class _Pooled:
    def __init__(self, publisher: PooledPublisher, subscriber: Subscriber[Any]) -> None:
        self.n = publisher.n
        self.hook = publisher.hook
        self.kind = type(publisher)
        self.subscriber: Subscriber[Any] | None = subscriber
        self.lock = threading.Lock()
        self.demand = 0
        self.index = 0
        self.cancelled = False
        self.done = False
        self.bad: str | None = None
        self.running = True  # until start(): on_subscribe is running

    def start(self) -> None:
        with self.lock:
            self.running = False
        self._schedule()

    def request(self, n: int) -> None:
        with self.lock:
            message = check_request(n)
            if message is not None:
                self.bad = self.bad or message
            else:
                self.demand = add_demand(self.demand, n)
        self._schedule()

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
        self._schedule()

    def _schedule(self) -> None:
        with self.lock:
            if self.running:
                return
            self.running = True
        POOL.submit(self._drain)

    def _next(self) -> tuple[str, object]:
        """Under the lock: what to signal next (``idle`` sets ``running`` off)."""
        ignoring = self.kind is CancelIgnoringPublisher and self.cancelled
        if self.done or (self.cancelled and not ignoring):
            self.done, self.subscriber, self.running = True, None, False  # rule 3.13
            return "idle", None
        if self.bad is not None:
            self.done = True
            return "error", ValueError(self.bad)
        if self.index >= self.n:
            if self.kind is not LazyCompletingPublisher or self.demand > 0:
                self.done = True
                return "complete", None
        elif self.demand > 0 or ignoring:
            self.demand -= 0 if ignoring else 1
            self.index += 1
            return "next", self.index - 1
        self.running = False
        return "idle", None

    def _drain(self) -> None:
        while True:
            with self.lock:
                what, value = self._next()
                subscriber = self.subscriber
            if what == "idle" or subscriber is None:
                return
            if what == "next" and self.hook is not None:
                self.hook(int(value), self.cancelled)  # type: ignore[call-overload]
            try:
                if what == "next":
                    subscriber.on_next(value)
                elif what == "error":
                    assert isinstance(value, BaseException)
                    subscriber.on_error(value)
                else:
                    subscriber.on_complete()
            except Exception:  # rule 2.13: a raising subscriber counts as cancelled
                with self.lock:
                    self.cancelled = True


class PrefetchingProcessor:
    """A correct identity processor for one subscriber (a second one gets ``on_error``,
    rule 1.9): requests ``buffer_size`` upstream at once, refills as it emits, and passes
    ``on_error`` on at once, dropping the elements it holds (rule 4.2)."""

    rule: ClassVar[str | None] = None
    check = "extra_spec104_mid_stream_failure_signals_on_error"

    def __init__(self, buffer_size: int = 16) -> None:
        self.buffer_size = max(1, buffer_size)
        self.lock = threading.Lock()
        self.queue: deque[object] = deque()
        self.upstream: Subscription | None = None
        self.downstream: Subscriber[Any] | None = None
        self.taken = False
        self.demand = 0
        self.error: BaseException | None = None
        self.upstream_done = False
        self.done = False
        self.cancelled = False
        self.running = False
        self.consumed = 0

    # ------------------------------------------------------------- upstream side
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        with self.lock:
            if self.upstream is not None:
                subscription.cancel()  # rule 2.5
                return
            self.upstream = subscription
            cancelled = self.cancelled
        if cancelled:
            subscription.cancel()
        else:
            subscription.request(self.buffer_size)  # prefetch, before any downstream demand

    def on_next(self, item: object) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        with self.lock:
            self.queue.append(item)
        self._schedule()

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        with self.lock:
            self.error = error
            self.queue.clear()  # the error overtakes what is held (rule 4.2: eager)
        self._schedule()

    def on_complete(self) -> None:
        with self.lock:
            self.upstream_done = True
        self._schedule()

    # ----------------------------------------------------------- downstream side
    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        with self.lock:
            taken, self.taken = self.taken, True
        if taken:
            subscriber.on_subscribe(_Refused())
            subscriber.on_error(RuntimeError("rule 1.9: one subscriber only"))
            return
        try:
            subscriber.on_subscribe(_Downstream(self))
        except Exception:  # rule 2.13: counts as cancelled
            self.cancel()
        with self.lock:  # signals start once on_subscribe has returned (rule 1.3)
            if not self.cancelled:
                self.downstream = subscriber
        self._schedule()

    def request(self, n: int) -> None:
        with self.lock:
            message = check_request(n)
            if message is not None:
                self.error = self.error or ValueError(message)
                self.queue.clear()
                upstream = self.upstream
            else:
                self.demand = add_demand(self.demand, n)
                upstream = None
        if upstream is not None:
            upstream.cancel()
        self._schedule()

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            self.done = True
            self.downstream = None  # rule 3.13
            upstream = self.upstream
        if upstream is not None:
            upstream.cancel()

    def _schedule(self) -> None:
        with self.lock:
            if self.running or self.done:
                return
            self.running = True
        POOL.submit(self._drain)

    def _drain(self) -> None:
        while True:
            refill = 0
            value: object = None
            with self.lock:
                downstream = self.downstream
                if self.done or downstream is None:
                    self.running = False
                    return
                if self.error is not None:
                    self.done, what, value = True, "error", self.error
                    self.downstream = None  # rule 3.13 (1.6: terminal means cancelled)
                elif self.queue and self.demand > 0:
                    self.demand -= 1
                    what, value = "next", self.queue.popleft()
                    self.consumed += 1
                    if self.consumed % max(1, self.buffer_size // 2) == 0:
                        refill = max(1, self.buffer_size // 2)
                elif not self.queue and self.upstream_done:
                    self.done, what, value = True, "complete", None
                    self.downstream = None  # rule 3.13
                else:
                    self.running = False
                    return
                upstream = self.upstream
            if what == "next":
                downstream.on_next(value)
                if refill and upstream is not None:
                    upstream.request(refill)
            elif what == "error":
                assert isinstance(value, BaseException)
                downstream.on_error(value)
            else:
                downstream.on_complete()


class _Downstream:
    def __init__(self, processor: PrefetchingProcessor) -> None:
        self.processor = processor

    def request(self, n: int) -> None:
        self.processor.request(n)

    def cancel(self) -> None:
        self.processor.cancel()


class _Refused:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass
