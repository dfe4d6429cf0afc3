"""A small correct subscriber with one switch per subscriber bug class (S01..S19).

Whitebox (``probe`` given): it requests only when the puppet says so and cancels when
told it is no longer needed. Blackbox: it requests one element at a time. It stores the
subscription before requesting (rule 3.10), cancels a second subscription (2.5), raises
TypeError on None (2.13), never touches the subscription in on_complete/on_error (2.3).

``AsyncSubscriber`` is a second correct subject, built like the JVM examples' one: every
signal is queued to its own worker, which makes every request and cancel.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from ...api import Subscription
from ..probes import WhiteboxProbe, WhiteboxPuppet

__all__ = ["AsyncSubscriber", "GallerySubscriber"]


class GallerySubscriber:
    """The gallery's subscriber (see the module doc); ``bug`` switches on one mutation
    (None: correct). With ``probe`` it is a whitebox subscriber reporting to the kit;
    ``executor`` is where the mutations that act "from another task" run."""

    def __init__(
        self, bug: str | None = None, probe: WhiteboxProbe | None = None, executor: Any = None
    ) -> None:
        self.bug = bug
        self.probe = probe
        self.executor = executor
        self.subscription: Subscription | None = None
        self.cancelled = False
        self.requested = False
        self.received = 0

    # --------------------------------------------------------------------- control
    def _request(self, n: int) -> None:
        subscription = self.subscription
        if self.bug == "S01" or subscription is None:
            return
        self.requested = True
        subscription.request(0 if self.bug == "S02" else n)

    def _cancel(self) -> None:
        if self.bug == "S15":
            return  # told it is no longer needed, it just stops listening
        self.cancelled = True
        subscription = self.subscription
        if subscription is not None:
            subscription.cancel()

    def _later(self, action: Any) -> None:
        if self.executor is not None:
            self.executor.execute(action)
        else:
            threading.Thread(target=action, daemon=True).start()

    # ------------------------------------------------------------------ Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None and self.bug != "S08":
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self.subscription is not None:
            if self.bug == "S05":
                return
            if self.bug == "S06":
                subscription.request(1)
            if self.bug == "S07":
                self.subscription.cancel()
            subscription.cancel()  # rule 2.5
            return
        if self.bug == "S17":
            subscription.request(1)  # before storing it: breaks under a synchronous publisher
            self.subscription = subscription
            return
        self.subscription = subscription
        if self.probe is not None:
            self.probe.register_on_subscribe(WhiteboxPuppet(self._request, self._cancel))
        else:
            self._request(1)

    def on_next(self, item: object) -> None:
        if item is None and self.bug != "S08":
            raise TypeError("rule 2.13: on_next(None)")
        if self.bug == "S10" and self.cancelled:
            raise RuntimeError("but I thought it's cancelled!")
        self.received += 1
        if self.bug == "S09" and self.received == 3:
            raise RuntimeError("fails on an ordinary element")
        if self.bug == "S19" and self.received == 2:
            raise RuntimeError("mishandles the second element")
        if self.probe is not None:
            self.probe.register_on_next(item)
        if self.bug == "S13":
            subscription = self.subscription
            assert subscription is not None
            other = threading.Thread(target=lambda: subscription.request(1), daemon=True)
            other.start()
            subscription.request(1)  # from two threads at once: not serial (rule 2.7)
            other.join(5)
            return
        if self.probe is None and not self.cancelled:
            self.subscription.request(1)  # type: ignore[union-attr]

    def _terminal(self) -> None:
        if self.bug == "S03":
            self.subscription.cancel()  # type: ignore[union-attr]
        if self.bug == "S04":
            subscription = self.subscription
            self._later(lambda: subscription.cancel())  # type: ignore[union-attr]
        if self.bug == "S16":
            subscription = self.subscription
            self._later(lambda: subscription.request(1))  # type: ignore[union-attr]

    def on_error(self, error: BaseException) -> None:
        if error is None and self.bug != "S08":
            raise TypeError("rule 2.13: on_error(None)")
        if self.bug == "S12" and not self.requested:
            raise RuntimeError("not ready for on_error before a request")
        self._terminal()
        if self.probe is not None:
            self.probe.register_on_error(error)

    def on_complete(self) -> None:
        if self.bug == "S11" and not self.requested:
            raise RuntimeError("not ready for on_complete before a request")
        self._terminal()
        if self.probe is not None:
            self.probe.register_on_complete()


class AsyncSubscriber:
    """A correct subscriber shaped like the JVM examples' ``AsyncSubscriber``: the signal
    methods only enqueue; one drain at a time (on a fresh thread, or on ``executor``)
    handles the queue in order, and every ``request``/``cancel`` is made from that drain
    (rules 2.7, 2.11). Whitebox (``probe`` given): the puppet's requests and cancels are
    queued too, and made from the drain. Blackbox: it requests ``batch`` on subscribe and
    one more per element handled. ``handling(element)`` runs before an element is
    handled (tests use it to make handling slow)."""

    def __init__(
        self,
        probe: WhiteboxProbe | None = None,
        *,
        batch: int = 1,
        handling: Callable[[object], object] | None = None,
        executor: Any = None,
    ) -> None:
        self.probe = probe
        self.batch = batch
        self.handling = handling
        self.executor = executor
        self.subscription: Subscription | None = None
        self.done = False
        self._queue: deque[tuple[str, Any]] = deque()
        self._lock = threading.Lock()
        self._draining = False

    # ------------------------------------------------------------------ Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        self._signal("subscribe", subscription)

    def on_next(self, item: object) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        self._signal("next", item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._signal("error", error)

    def on_complete(self) -> None:
        self._signal("complete", None)

    # ------------------------------------------------------------------- the drain
    def _signal(self, kind: str, value: Any) -> None:
        with self._lock:
            self._queue.append((kind, value))
            if self._draining:
                return  # the running drain picks it up (rule 2.7: one caller at a time)
            self._draining = True
        if self.executor is not None:
            self.executor.execute(self._drain)
        else:
            threading.Thread(target=self._drain, name="async-subscriber", daemon=True).start()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                kind, value = self._queue.popleft()
            self._handle(kind, value)

    def _handle(self, kind: str, value: Any) -> None:
        if kind == "subscribe":
            if self.subscription is not None:
                value.cancel()  # rule 2.5
                return
            self.subscription = value
            if self.probe is not None:
                puppet = WhiteboxPuppet(
                    lambda n: self._signal("request", n), lambda: self._signal("cancel", None)
                )
                self.probe.register_on_subscribe(puppet)
            else:
                value.request(self.batch)
            return
        if self.done or self.subscription is None:
            return  # rules 2.4, 2.8: after cancel or a terminal signal, signals are ignored
        if kind == "next":
            if self.handling is not None:
                self.handling(value)
            if self.probe is not None:
                self.probe.register_on_next(value)
            else:
                self.subscription.request(1)
        elif kind == "request":
            self.subscription.request(value)
        elif kind == "cancel":
            self.done = True
            self.subscription.cancel()
        else:
            self.done = True  # rule 2.4: the subscription is considered cancelled
            if self.probe is not None:
                if kind == "error":
                    self.probe.register_on_error(value)
                else:
                    self.probe.register_on_complete()
