"""A recording upstream for operator tests: counts requests, sees cancel."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow
from reactive_streams.operators._observe_on import _ObserveOn
from reactive_streams.sources import from_iterable


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
