"""A collaborator whose ``subscribe`` raises (rule 1.9 broken by a foreign publisher):
every operator that subscribes something (a fallback, an inner, the next source, a
resubscription, a delayed or moved subscription) turns the raise into exactly one
``on_error`` to its own subscriber, after ``on_subscribe``, and nothing leaks out of
``subscribe()``. Two ways to raise: before ``on_subscribe`` and after it (the raising
publisher then also owns a subscription the operator must cancel, rule 3.13, but for an
operator's own upstream: its raise is that source's ``on_subscribe`` then ``on_error``).

Timed operators run on a ``ManualExecutor`` (virtual time), so every case is
deterministic; the waits are bounded and a stalled stream fails, never hangs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from ._util import PushPublisher  # on_subscribe, then nothing unless pushed

pytestmark = pytest.mark.timeout(60)


class Raising:
    """A publisher whose ``subscribe`` raises ``RuntimeError("subscribe raised")``:
    at once (``after_on_subscribe`` False) or after giving the subscriber a subscription
    (which records requests and its cancel)."""

    def __init__(self, after_on_subscribe: bool) -> None:
        self.after = after_on_subscribe
        self.subscribed = 0
        self.cancelled = 0

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        self.cancelled += 1

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscribed += 1
        if self.after:
            subscriber.on_subscribe(self)
        raise RuntimeError("subscribe raised")


class FailsThenRaises:
    """First ``subscribe``: on_subscribe then on_error; every later one: raises (a
    retry's resubscription)."""

    def __init__(self, inner: Raising) -> None:
        self.inner = inner
        self.calls = 0

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.calls += 1
        if self.calls == 1:
            Flow.error(ValueError("first attempt")).subscribe(subscriber)
        else:
            self.inner.subscribe(subscriber)


# (name, build(raising, clock) -> the flow, steps(clock) after subscribe+request)
Build = Callable[[Raising, ManualExecutor], Flow[Any]]

_CASES: list[tuple[str, Build]] = [
    ("timeout-fallback", lambda r, clock: Flow(PushPublisher()).timeout(1.0, r, scheduler=clock)),
    (
        "timeout-first_only-fallback",
        lambda r, clock: Flow(PushPublisher()).timeout(1.0, r, first_only=True, scheduler=clock),
    ),
    ("on_error_resume", lambda r, clock: Flow.error(ValueError("x")).on_error_resume(lambda e: r)),
    ("switch_if_empty", lambda r, clock: Flow.empty().switch_if_empty(r)),
    ("concat", lambda r, clock: Flow.concat(Flow.just(1), r)),
    ("concat_with", lambda r, clock: Flow.just(1).concat_with(r)),
    ("concat-first", lambda r, clock: Flow.concat(r, Flow.just(1))),
    ("retry", lambda r, clock: Flow(FailsThenRaises(r)).retry(3)),
    ("retry_when", lambda r, clock: Flow(FailsThenRaises(r)).retry_when(lambda e, n: True)),
    ("defer", lambda r, clock: Flow.defer(lambda: r)),
    ("delay_subscription", lambda r, clock: Flow(r).delay_subscription(1.0, scheduler=clock)),
    ("subscribe_on", lambda r, clock: Flow(r).subscribe_on(clock)),
    ("flat_map-inner", lambda r, clock: Flow.just(1).flat_map(lambda _: r)),
    ("concat_map-inner", lambda r, clock: Flow.just(1).concat_map(lambda _: r)),
    ("switch_map-inner", lambda r, clock: Flow.just(1).switch_map(lambda _: r)),
    ("merge", lambda r, clock: Flow.merge(Flow.just(1), r)),
    ("merge_with", lambda r, clock: Flow.just(1).merge_with(r)),
    ("zip", lambda r, clock: Flow.zip(Flow.just(1), r)),
    ("zip_with", lambda r, clock: Flow.just(1).zip_with(r)),
    ("combine_latest", lambda r, clock: Flow.combine_latest(Flow.just(1), r)),
    ("with_latest_from", lambda r, clock: Flow.just(1).with_latest_from(r)),
    # an operator's own upstream: the raise is that source's on_subscribe then on_error
    ("map-upstream", lambda r, clock: Flow(r).map(str)),
    ("take-upstream", lambda r, clock: Flow(r).take(2)),
    ("buffer-upstream", lambda r, clock: Flow(r).buffer(2)),
    ("reduce-upstream", lambda r, clock: Flow(r).reduce(lambda a, b: a)),
    ("observe_on-upstream", lambda r, clock: Flow(r).observe_on(clock)),
    ("delay-upstream", lambda r, clock: Flow(r).delay(1.0, scheduler=clock)),
    ("timeout-upstream", lambda r, clock: Flow(r).timeout(5.0, scheduler=clock)),
    ("debounce-upstream", lambda r, clock: Flow(r).debounce(1.0, scheduler=clock)),
    ("switch_map-upstream", lambda r, clock: Flow(r).switch_map(lambda x: Flow.just(x))),
    ("group_by-upstream", lambda r, clock: Flow(r).group_by(lambda x: x)),
    ("flat_map-upstream", lambda r, clock: Flow(r).flat_map(lambda x: Flow.just(x))),
    ("zip-first", lambda r, clock: Flow.zip(r, Flow.just(1))),
    ("retry-upstream", lambda r, clock: Flow(r).retry(1)),
    ("share-upstream", lambda r, clock: Flow(r).share()),
]


def _run(build: Build, after: bool) -> tuple[TestSubscriber[Any], Raising]:
    clock = ManualExecutor()
    raising = Raising(after)
    subscriber: TestSubscriber[Any] = TestSubscriber()
    build(raising, clock).subscribe(subscriber)  # rule 1.9: returns normally
    clock.run_all()  # subscribe_on subscribes on its executor
    subscriber.await_subscribed(5.0)
    subscriber.request(10)
    for _ in range(3):  # the subscription's tasks, then virtual time past every timer
        clock.run_all()
        clock.advance_by(1.0)
    return subscriber, raising


@pytest.mark.parametrize("after", [False, True], ids=["before-on_subscribe", "after-on_subscribe"])
@pytest.mark.parametrize(("name", "build"), _CASES, ids=[name for name, _ in _CASES])
def test_a_raising_subscribe_is_one_on_error(name: str, build: Build, after: bool) -> None:
    subscriber, raising = _run(build, after)
    subscriber.await_terminal(5.0)
    assert raising.subscribed >= 1, f"{name}: the raising publisher was never subscribed"
    subscriber.assert_error(RuntimeError, "subscribe raised")  # exactly one, no violation
    assert not subscriber.completions
    if after and not name.endswith("-upstream"):  # rule 3.13: what it gave is released
        assert raising.cancelled >= 1, f"{name}: the raising publisher's subscription leaks"


@pytest.mark.parametrize(("name", "build"), _CASES, ids=[name for name, _ in _CASES])
def test_a_later_request_after_the_error_is_a_no_op(name: str, build: Build) -> None:
    """Rule 3.6 after the end: the counters are consistent, nothing more arrives."""
    subscriber, _ = _run(build, False)
    subscriber.await_terminal(5.0)
    subscriber.request(5)
    subscriber.cancel()
    subscriber.assert_error(RuntimeError, "subscribe raised")
