"""The publisher that checks subscribers: ``ManualPublisher`` and its ``ManualSubscription``.

Every ``request``/``cancel`` is recorded with its thread and whether a terminal signal
had started, so rules 2.3/2.4 are checked on every thread and overlapping calls (2.7)
are observed. A call's effect (demand added, cancelled) is made in the same critical
section that records it, before the check is woken: a check that sees the call also
sees its effect.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .._core.demand import MAX_DEMAND, add_demand, check_request
from ..api import Subscriber
from ._env import CheckFailure, Env

__all__ = ["Call", "ManualPublisher", "ManualSubscription"]


@dataclass(frozen=True)
class Call:
    """One call on a ``ManualSubscription``: ``request`` (with ``n``) or ``cancel``."""

    kind: str
    n: object
    thread: int
    clock: int
    after_terminal: bool
    during_terminal: bool


class ManualSubscription:
    """The subscription a ``ManualPublisher`` hands out: records every call."""

    def __init__(self, publisher: ManualPublisher, subscriber: Subscriber[Any], label: str) -> None:
        self.publisher = publisher
        self.env = publisher.env
        self.subscriber = subscriber
        self.label = label
        self.calls: list[Call] = []
        self.demand = 0
        self.cancelled = False
        self.terminal_started = False
        self.in_terminal: set[int] = set()
        self._lock = threading.Lock()
        self._in_call: int | None = None

    def _record(self, kind: str, n: object) -> None:
        env = self.env
        tid = threading.get_ident()
        with self._lock:
            if self._in_call is not None and self._in_call != tid:
                env.flop(
                    "2.7",
                    f"rule 2.7: {kind} on thread {tid} overlaps a call on thread "
                    f"{self._in_call} ({self.label})",
                )
            self._in_call = tid
            call = Call(kind, n, tid, env.tick(), self.terminal_started, tid in self.in_terminal)
        if self.publisher.widen_races:
            threading.Event().wait(0.002)  # widen the window in which an overlap is seen
        with self._lock:
            # the call and its effect appear together: whoever sees it sees the demand
            if kind == "cancel":
                self.cancelled = True
            elif check_request(n) is None and not self.cancelled:
                assert isinstance(n, int)
                self.demand = add_demand(self.demand, n)
            self.calls.append(call)
            self._in_call = None
        env.notify()

    def request(self, n: int) -> None:
        self._record("request", n)

    def cancel(self) -> None:
        self._record("cancel", None)

    # ------------------------------------------------------------------ views
    def requests(self) -> list[object]:
        with self._lock:
            return [c.n for c in self.calls if c.kind == "request"]

    def total_requested(self) -> int:
        total = 0
        for n in self.requests():
            if check_request(n) is None:
                assert isinstance(n, int)
                total = add_demand(total, n)
        return total

    def expect_request(self, at_least: int = 1) -> int:
        """Wait until the subscriber has requested ``at_least`` in total; returns the total."""
        self.env.wait_until(
            lambda: self.total_requested() >= at_least or self._bad_request() is not None,
            f"rule 2.1: {self.label}: the subscriber did not request {at_least} element(s)",
            "2.1",
        )
        bad = self._bad_request()
        if bad is not None:
            raise self.env.fail(
                f"rule 3.9: {self.label}: the subscriber requested {bad!r} (n must be > 0)"
            )
        return self.total_requested()

    def _bad_request(self) -> object | None:
        for n in self.requests():
            if check_request(n) is not None:
                return n
        return None

    def expect_cancel(self, rule: str) -> None:
        self.env.wait_until(
            lambda: self.cancelled,
            f"rule {rule}: {self.label}: the subscriber did not cancel",
            rule,
        )


class ManualPublisher:
    """A publisher under the check's control (the JVM ``ManualPublisher``).

    ``subscribe`` records the subscriber (a second subscribe of the same subscriber is a
    rule 1.10 violation by the caller) and calls ``on_subscribe`` at once. ``send_*``
    call the subscriber on the calling thread; ``send_next`` honours rule 1.1 itself:
    it fails the check if the subscriber has not requested the element.
    """

    def __init__(self, env: Env, *, widen_races: bool = False) -> None:
        self.env = env
        self.widen_races = widen_races
        self.subscriptions: list[ManualSubscription] = []
        self.raised: list[tuple[str, BaseException]] = []
        self._seen: list[object] = []

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        if any(s is subscriber for s in self._seen):
            self.env.flop("1.10", "rule 1.10: the same subscriber subscribed twice")
        self._seen.append(subscriber)
        subscription = ManualSubscription(
            self, subscriber, f"subscription {len(self.subscriptions) + 1}"
        )
        self.subscriptions.append(subscription)
        self.call(subscription, "on_subscribe", subscription)

    @property
    def subscription(self) -> ManualSubscription:
        if not self.subscriptions:
            raise CheckFailure("the subscriber never subscribed")
        return self.subscriptions[0]

    def call(
        self, subscription: ManualSubscription, method: str, *args: object, rule: str = "2.13"
    ) -> None:
        """Invoke a signal; an exception is recorded (citing ``rule``: 2.13, or the rule
        that makes the signal one the subscriber must be prepared for), not propagated."""
        tid = threading.get_ident()
        terminal = method in ("on_complete", "on_error")
        if terminal:
            subscription.terminal_started = True
            subscription.in_terminal.add(tid)
        try:
            getattr(subscription.subscriber, method)(*args)
        except Exception as exc:
            self.raised.append((method, exc))
            why = "it must return normally" if rule == "2.13" else "it must be prepared for it"
            self.env.flop(rule, f"rule {rule}: {method} raised {exc!r}; {why}")
        finally:
            subscription.in_terminal.discard(tid)
            self.env.notify()

    def send_next(
        self, element: object, subscription: ManualSubscription | None = None, *, rule: str = "2.13"
    ) -> None:
        sub = subscription or self.subscription
        with sub._lock:
            if sub.demand <= 0:
                raise CheckFailure("kit fixture: send_next without demand")
            if sub.demand != MAX_DEMAND:
                sub.demand -= 1
        self.call(sub, "on_next", element, rule=rule)

    def send_complete(
        self, subscription: ManualSubscription | None = None, *, rule: str = "2.13"
    ) -> None:
        self.call(subscription or self.subscription, "on_complete", rule=rule)

    def send_error(
        self,
        error: BaseException,
        subscription: ManualSubscription | None = None,
        *,
        rule: str = "2.13",
    ) -> None:
        self.call(subscription or self.subscription, "on_error", error, rule=rule)
