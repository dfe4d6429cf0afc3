"""Port of ``org.reactivestreams.example.unicast.RangePublisher`` (synchronous).

The subscription's counter is the outstanding demand; the ``request`` that moves it from
0 runs the emission loop, every other ``request`` (another thread, or re-entrant from
``on_next``) only adds to it (rule 3.3: recursion depth 1). Known defect, kept: after a
cancel with no outstanding demand, ``request(0)`` restarts the loop and signals
``on_error`` (rule 3.6 says it must be a no-op).
"""

from __future__ import annotations

import logging
import threading

from reactive_streams.api import Subscriber

MAX = 2**63 - 1
log = logging.getLogger(__name__)


class RangePublisher:
    """``count`` integers from ``start``."""

    def __init__(self, start: int, count: int) -> None:
        self.start = start
        self.count = count

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        try:
            subscriber.on_subscribe(
                _RangeSubscription(subscriber, self.start, self.start + self.count)
            )
        except Exception:  # rule 2.13: the subscriber broke the rule; log, do not rethrow
            log.exception("%r raised from on_subscribe (rule 2.13)", subscriber)


class _RangeSubscription:
    def __init__(self, downstream: Subscriber[int], start: int, end: int) -> None:
        self.downstream = downstream
        self.index = start
        self.end = end
        self.cancelled = False
        self.invalid_request: BaseException | None = None
        self._requested = 0  # Java: the AtomicLong this class extends
        self._lock = threading.Lock()

    def _get(self) -> int:
        with self._lock:
            return self._requested

    def _add_and_get(self, delta: int) -> int:
        with self._lock:
            self._requested += delta
            return self._requested

    def request(self, n: int) -> None:
        if n <= 0:
            self.invalid_request = ValueError("rule 3.9: non-positive requests are not allowed")
            n = 1
        with self._lock:
            requested = self._requested
            self._requested = min(requested + n, MAX)  # rule 3.17
            update = self._requested
        if requested == 0:
            self._emit(update)

    def cancel(self) -> None:
        self.cancelled = True

    def _emit(self, current: int) -> None:
        downstream = self.downstream
        index = self.index
        emitted = 0
        try:
            while True:
                if self.invalid_request is not None:
                    self.cancelled = True
                    downstream.on_error(self.invalid_request)
                    return
                while index != self.end and emitted != current:
                    if self.cancelled:
                        return
                    downstream.on_next(index)
                    index += 1
                    emitted += 1
                if index == self.end:
                    if not self.cancelled:
                        self.cancelled = True
                        downstream.on_complete()
                    return
                fresh = self._get()
                if fresh == current:
                    self.index = index
                    current = self._add_and_get(-current)
                    if current == 0:
                        return
                    emitted = 0
                else:
                    current = fresh
        except Exception:  # rule 2.13
            self.cancelled = True
            log.exception("%r raised from a signal (rule 2.13)", downstream)


def create(n: int) -> RangePublisher:
    """The JVM ``RangePublisherTest`` factory: ``new RangePublisher(1, n)``."""
    return RangePublisher(1, n)
