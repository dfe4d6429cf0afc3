"""``Flow.using`` (operators/_using.py): a resource per subscription, released once after
the terminal signal or the cancel; a raising acquire/make is on_subscribe then on_error
(1.9) with the resource released; demand (1.1); the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


class Resource:
    def __init__(self, log: list[str]) -> None:
        self.log = log
        log.append("acquired")

    def release(self) -> None:
        self.log.append("released")


def test_each_subscription_acquires_and_releases_once_after_completion() -> None:
    log: list[str] = []
    flow = Flow.using(lambda: Resource(log), lambda r: Flow.just(1, 2), Resource.release)
    assert flow.to_list(timeout=5) == [1, 2]
    assert flow.to_list(timeout=5) == [1, 2]
    assert log == ["acquired", "released", "acquired", "released"]


def test_released_after_an_error_and_after_a_cancel() -> None:
    log: list[str] = []
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.using(
        lambda: Resource(log), lambda r: Flow.error(KeyError("k")), Resource.release
    ).subscribe(ts)
    ts.assert_error(KeyError)
    assert log == ["acquired", "released"]
    pub = PushPublisher()
    ts2: TestSubscriber[Any] = TestSubscriber(1)
    Flow.using(lambda: Resource(log), lambda r: pub, Resource.release).subscribe(ts2)
    pub.push(1)
    ts2.cancel()
    assert pub.cancelled  # rule 3.12
    ts2.cancel()  # rule 3.7: a second cancel releases nothing more
    assert log == ["acquired", "released", "acquired", "released"]


def test_spec109_a_raising_make_fails_the_stream_and_releases_the_resource() -> None:
    log: list[str] = []

    def make(resource: Resource) -> Flow[int]:
        raise LookupError("make")

    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.using(lambda: Resource(log), make, Resource.release).subscribe(ts)
    ts.await_subscribed(1).assert_error(LookupError)
    assert log == ["acquired", "released"]


def test_spec109_a_raising_acquire_fails_the_stream_releasing_nothing() -> None:
    released: list[Any] = []

    def acquire() -> Any:
        raise LookupError("acquire")

    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.using(acquire, lambda r: Flow.just(1), released.append).subscribe(ts)
    ts.assert_error(LookupError)
    assert released == []


def test_a_raising_release_is_logged_and_the_stream_completes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def release(resource: Any) -> None:
        raise ArithmeticError("release")

    assert Flow.using(lambda: 1, lambda r: Flow.just(r), release).to_list(timeout=5) == [1]
    assert "using: release(resource) raised" in caplog.text


def test_spec101_demand_carries_to_the_resource_flow() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.using(lambda: 1, lambda r: pub, lambda r: None).subscribe(ts)
    ts.request(2)
    assert pub.requested == [2]
    pub.push(1, 2)
    ts.assert_values(1, 2).assert_no_violations()


@pytest.mark.parametrize("position", [0, 1, 2])
def test_bad_arguments_are_refused_naming_them(position: int) -> None:
    args: list[Any] = [lambda: 1, lambda r: Flow.just(r), lambda r: None]
    args[position] = 3
    name = ["acquire", "make", "release"][position]
    with pytest.raises(TypeError, match=f"using: {name} must be callable"):
        Flow.using(*args)


def test_make_returning_no_publisher_fails_naming_it() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.using(lambda: 1, lambda r: 5, lambda r: None).subscribe(ts)  # type: ignore[arg-type,return-value]
    ts.assert_error(TypeError)
    assert "using: make(resource) must return a Publisher" in str(ts.errors[0])
