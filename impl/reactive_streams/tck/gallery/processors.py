"""A small correct multicast identity processor: the control the processor bugs mutate.

Every downstream subscriber has its own demand and queue; upstream is asked for what the
most eager subscriber still needs, bounded by ``buffer_size`` queued elements for the
slowest (rule 1.1 both ways). Signals run through one trampolined drain (rule 1.3). An
upstream error is passed on at once, demand or not (rule 4.2); when the last downstream
cancels, upstream is cancelled. Its methods are seams (``buffer``, ``deliver``,
``error_reaches``...): each bug in ``rules_*.py`` overrides one.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from ..._core.demand import MAX_DEMAND, add_demand, check_request
from ...api import Subscriber, Subscription
from .specimen import Specimen

__all__ = ["GalleryProcessor"]


class _Downstream:
    def __init__(self, processor: GalleryProcessor, subscriber: Subscriber[Any]) -> None:
        self.processor = processor
        self.subscriber: Subscriber[Any] | None = subscriber
        self.queue: deque[object] = deque()
        self.demand = 0
        self.cancelled = False
        self.subscribed = False
        self.bad: str | None = None

    def request(self, n: int) -> None:
        processor = self.processor
        with processor.lock:
            if self.cancelled:
                return
            message = check_request(n)
            if message is not None:
                self.bad = message
            else:
                self.demand = add_demand(self.demand, n)
        processor.drain()

    def cancel(self) -> None:
        processor = self.processor
        with processor.lock:
            if self.cancelled:
                return
            self.cancelled = True
            self.subscriber = None  # rule 3.13
        processor.drain()


_Call = tuple[_Downstream, str, tuple[object, ...]]


class GalleryProcessor(Specimen):
    """A multicast identity processor (see the module doc). Correct; the processor bugs
    subclass it."""

    def __init__(self, buffer_size: int = 16) -> None:
        self.buffer_size = buffer_size
        self.lock = threading.Lock()
        self.wip = 0
        self.downstream: list[_Downstream] = []
        self.upstream: Subscription | None = None
        self.outstanding = 0
        self.error: BaseException | None = None
        self.completed = False
        self.upstream_cancelled = False
        self.had_subscriber = False

    # ---------------------------------------------------------------- Publisher side
    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        with self.lock:
            self.downstream.append(_Downstream(self, subscriber))
            self.had_subscriber = True
        self.drain()

    # --------------------------------------------------------------- Subscriber side
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        with self.lock:
            if self.upstream is not None or self.upstream_cancelled:
                duplicate = True
            else:
                duplicate = False
                self.upstream = subscription
        if duplicate:
            subscription.cancel()  # rule 2.5
            return
        self.drain()

    def on_next(self, item: object) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        with self.lock:
            if self.error is not None or self.completed:
                return
            self.outstanding = max(0, self.outstanding - 1)
            for down in self.downstream:
                self.buffer(down, item)
        self.drain()

    def buffer(self, down: _Downstream, item: object) -> None:
        """Queue ``item`` for ``down`` (the lock is held), demand or not (rule 1.1)."""
        down.queue.append(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        with self.lock:
            self.error = error
        self.drain()

    def on_complete(self) -> None:
        with self.lock:
            self.completed = True
        self.drain()

    # -------------------------------------------------------------------- the drain
    def drain(self) -> None:
        with self.lock:
            self.wip += 1
            if self.wip != 1:
                return
        missed = 1
        while True:
            self._round()
            with self.lock:
                self.wip -= missed
                missed = self.wip
                if missed == 0:
                    return

    def _round(self) -> None:
        calls: list[_Call] = []
        with self.lock:
            first = self.downstream[0] if self.downstream else None
            calls.extend(self.deliver_together())
            for down in list(self.downstream):
                if down.cancelled:
                    self.downstream.remove(down)
                    continue
                if not down.subscribed:
                    down.subscribed = True
                    calls.append((down, "on_subscribe", (down,)))
                    if self.upstream_cancelled and self.error is None and not self.completed:
                        self.downstream.remove(down)
                        calls.append((down, "on_error", (RuntimeError("processor cancelled"),)))
                        continue
                if down.bad is not None:
                    self.downstream.remove(down)
                    down.cancelled = True
                    calls.append((down, "on_error", (ValueError(down.bad),)))
                    continue
                calls.extend(self.deliver(down))
                if self.error is not None:
                    if self.error_reaches(down, first):
                        self.downstream.remove(down)
                        calls.append((down, "on_error", (self.error,)))
                elif self.completed and not down.queue:
                    self.downstream.remove(down)
                    calls.append((down, "on_complete", ()))
            request, cancel = self._upstream_action()
        for down, method, args in calls:
            subscriber = down.subscriber
            if subscriber is None or (down.cancelled and method == "on_next"):
                continue  # cancelled meanwhile, perhaps by the previous call (rule 1.8)
            try:
                getattr(subscriber, method)(*args)
            except Exception:
                down.cancel()  # rule 2.13: a raising subscriber is cancelled
        if cancel is not None:
            cancel.cancel()
        if request is not None:
            subscription, n = request
            subscription.request(n)

    def deliver(self, down: _Downstream) -> list[_Call]:
        """``down``'s queued elements, as far as its demand goes (the lock is held)."""
        calls: list[_Call] = []
        while down.queue and down.demand > 0:
            if down.demand != MAX_DEMAND:
                down.demand -= 1
            calls.append((down, "on_next", (down.queue.popleft(),)))
        return calls

    def deliver_together(self) -> list[_Call]:
        """Elements that go to every subscriber at once (none: each has its own pace)."""
        return []

    def error_reaches(self, down: _Downstream, first: _Downstream | None) -> bool:
        """The upstream error goes to ``down`` now: to every subscriber (rule 1.4), demand
        or not (rule 4.2). ``first`` is the oldest subscriber."""
        return True

    def drop_upstream(self, upstream: Subscription) -> Subscription | None:
        """No subscriber is left: cancel upstream (returns the one to cancel)."""
        self.upstream_cancelled = True
        return upstream

    def _upstream_action(self) -> tuple[tuple[Subscription, int] | None, Subscription | None]:
        upstream = self.upstream
        if upstream is None or self.upstream_cancelled:
            return None, None
        if self.error is not None or self.completed:
            return None, None
        live = [d for d in self.downstream if not d.cancelled]
        if not live:
            return None, (self.drop_upstream(upstream) if self.had_subscriber else None)
        need = max(min(d.demand, MAX_DEMAND) - len(d.queue) for d in live)
        room = self.buffer_size - max(len(d.queue) for d in live)
        target = max(0, min(need, room))
        if target > self.outstanding:
            n = target - self.outstanding
            self.outstanding = target
            return (upstream, n), None
        return None, None
