"""Recording upstreams and subscribers for operator tests: requests, cancel, signals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.flow import Flow
from reactive_streams.operators._observe_on import _ObserveOn
from reactive_streams.sources import from_iterable
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing


class Probe:
    """Wraps ``Flow`` building blocks so a test can see the requests an operator makes."""

    def __init__(self) -> None:
        self.requests: list[int] = []
        self.cancelled = 0

    def source(self, items: Any) -> Flow[Any]:
        return (
            Flow(from_iterable(items))
            .do_on_request(self.requests.append)
            .do_on_cancel(self._cancel)
        )

    def _cancel(self) -> None:
        self.cancelled += 1


class RecordingSubscription:
    """A subscription that records what it is asked: every ``request(n)``, and a cancel."""

    def __init__(self) -> None:
        self.requested: list[int] = []
        self.cancelled = False

    def request(self, n: int) -> None:
        self.requested.append(n)

    def cancel(self) -> None:
        self.cancelled = True


class PushPublisher(RecordingSubscription):
    """A Publisher driven by the test: ``push``/``complete``/``fail`` ignore demand
    (for backpressure operators, which request unbounded)."""

    def __init__(self) -> None:
        super().__init__()
        self.subscriber: Subscriber[Any] | None = None

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)

    def push(self, *items: Any) -> None:
        assert self.subscriber is not None
        for item in items:
            self.subscriber.on_next(item)

    def complete(self) -> None:
        assert self.subscriber is not None
        self.subscriber.on_complete()

    def fail(self, error: BaseException) -> None:
        assert self.subscriber is not None
        self.subscriber.on_error(error)


def inject_on_leave(monkeypatch: pytest.MonkeyPatch, upstream: PushPublisher) -> list[int]:
    """An element that arrives while the drain is leaving (it does not wake the drain)."""
    subscriber = upstream.subscriber
    assert subscriber is not None
    injected: list[int] = []
    leave = _ObserveOn._leave

    def leave_after_a_late_element(self: _ObserveOn[int], missed: int) -> int:
        if not injected:
            injected.append(2)
            subscriber.on_next(2)
        return leave(self, missed)

    monkeypatch.setattr(_ObserveOn, "_leave", leave_after_a_late_element)
    return injected


MAX = 2**63 - 1


class Recorder:
    """Requests ``initial``; ``act(item)`` runs inside each ``on_next``."""

    def __init__(
        self,
        initial: int = MAX,
        act: Callable[[int], None] | None = None,
        opened: Callable[[Any], None] | None = None,
    ) -> None:
        self.initial = initial
        self.act = act
        self.opened = opened
        self.values: list[int] = []
        self.ends: list[str] = []
        self.subscription: Any = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        if self.opened is not None:
            self.opened(subscription)
        if self.initial:
            subscription.request(self.initial)

    def on_next(self, item: int) -> None:
        self.values.append(item)
        if self.act is not None:
            self.act(item)

    def on_error(self, error: BaseException) -> None:
        self.ends.append(f"error {type(error).__name__}: {error}")

    def on_complete(self) -> None:
        self.ends.append("complete")


def traced_hops(run: Callable[[], object]) -> list[str]:
    """The hop names a traced ``run()`` subscribes, in order (what a trace shows)."""
    with tracing() as tracer:
        run()
    return [e["hop"] for e in tracer.events if e["sig"] == "subscribe"]


def hops_over_just(build: Callable[[Flow[int]], Flow[Any]]) -> list[str]:
    """The hop names a traced ``build(Flow.just(1))`` subscribes when one element is asked."""
    return traced_hops(lambda: build(Flow.just(1)).subscribe(TestSubscriber(1)))
