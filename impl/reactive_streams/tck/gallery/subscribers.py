"""Small correct subscribers: the control that the subscriber bugs mutate, and a second one.

``GallerySubscriber`` (whitebox with a ``probe``: it requests only when the puppet says
so and cancels when told it is no longer needed; blackbox: one element at a time)
stores the subscription before requesting (rule 3.10), cancels a second subscription
(2.5), raises TypeError on None (2.13), never touches the subscription in
on_complete/on_error (2.3). Its methods are seams (``ask``, ``handle``,
``second_subscription``...): each bug in ``rules_*.py`` overrides one.

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
from .specimen import Specimen

__all__ = ["AsyncSubscriber", "GallerySubscriber"]


class GallerySubscriber(Specimen):
    """The gallery's subscriber (see the module doc). Correct; the subscriber bugs
    subclass it. With ``probe`` it is a whitebox subscriber reporting to the kit;
    ``executor`` is where the bugs that act "from another task" run."""

    def __init__(self, probe: WhiteboxProbe | None = None, executor: Any = None) -> None:
        self.probe = probe
        self.executor = executor
        self.subscription: Subscription | None = None
        self.cancelled = False
        self.requested = False
        self.received = 0

    def __repr__(self) -> str:
        return f"<gallery subscriber {self.id}>"

    # ------------------------------------------------------------ seams
    def ask(self, n: int) -> None:
        """Request ``n`` (the puppet's request, or the blackbox's first)."""
        subscription = self.subscription
        if subscription is None:
            return
        self.requested = True
        subscription.request(n)

    def stop(self) -> None:
        """Told it is no longer needed: cancel (rule 2.6)."""
        self.cancelled = True
        subscription = self.subscription
        if subscription is not None:
            subscription.cancel()

    def refuse_none(self, signal: str) -> None:
        raise TypeError(f"rule 2.13: {signal}(None)")

    def second_subscription(self, subscription: Subscription) -> None:
        subscription.cancel()  # rule 2.5

    def handle(self, item: object) -> None:
        """An element arrived (after counting it in ``received``)."""
        if self.probe is not None:
            self.probe.register_on_next(item)
        elif not self.cancelled:
            self.subscription.request(1)  # type: ignore[union-attr]

    def after_terminal(self) -> None:
        """On on_complete / on_error: nothing touches the subscription (rules 2.3, 2.4)."""

    def later(self, action: Callable[[], object]) -> None:
        """Run ``action`` on another task: the kit's executor, or a thread."""
        if self.executor is not None:
            self.executor.execute(action)
        else:
            threading.Thread(target=action, daemon=True).start()

    # ------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            self.refuse_none("on_subscribe")
        if self.subscription is not None:
            self.second_subscription(subscription)
            return
        self.subscription = subscription
        if self.probe is not None:
            self.probe.register_on_subscribe(WhiteboxPuppet(self.ask, self.stop))
        else:
            self.ask(1)

    def on_next(self, item: object) -> None:
        if item is None:
            self.refuse_none("on_next")
        self.received += 1
        self.handle(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            self.refuse_none("on_error")
        self.after_terminal()
        if self.probe is not None:
            self.probe.register_on_error(error)

    def on_complete(self) -> None:
        self.after_terminal()
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
