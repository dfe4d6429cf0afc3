"""A recording upstream for operator tests: counts requests, sees cancel."""

from __future__ import annotations

from typing import Any

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow
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
