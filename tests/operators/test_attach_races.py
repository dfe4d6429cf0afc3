"""Races at attach time, each forced deterministically at one function boundary.

A cancel (or a second subscriber) is run on the attaching thread at the moment an operator
has decided to attach an upstream, an inner or a timer and has not stored it yet. Where
the code attaches through ``_core.attach`` that moment is its ``attach.set`` scheduling
point; before it, it was a call the operator made between its check and its store (the
``SerialSubscription`` built for the inner, ``threading.Event.is_set``, ``_GroupSub``,
``Scheduler.schedule``), which the tests patch too, so the same test runs on both.
Each names the defect it pins (D1-D4, D8-D11).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import Flow
from reactive_streams._core import schedpoints
from reactive_streams._core.demand import MAX_DEMAND
from reactive_streams.api import Subscriber
from reactive_streams.executors import Cancellable, ManualExecutor
from reactive_streams.operators import Backoff, _delay_subscription, _drained, _group_by
from reactive_streams.subscribers import LambdaSubscriber
from reactive_streams.testing import TestSubscriber

from ._util import RecordingSubscription

pytestmark = pytest.mark.timeout(30)


class RecordingPublisher:
    """A Publisher that hands each subscriber a ``RecordingSubscription`` and emits nothing;
    ``deferred``: ``on_subscribe`` only when ``deliver()`` is called (an asynchronous
    source, whose ``on_subscribe`` comes after ``subscribe`` returned)."""

    def __init__(self, deferred: bool = False) -> None:
        self.subscription = RecordingSubscription()
        self.subscriber: Subscriber[Any] | None = None
        self.deferred = deferred

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        if not self.deferred:
            subscriber.on_subscribe(self.subscription)

    def deliver(self) -> None:
        assert self.subscriber is not None, "not subscribed"
        self.subscriber.on_subscribe(self.subscription)


class _Once:
    """Runs ``action`` once, when armed, at the first boundary reached."""

    def __init__(self, action: Callable[[], object]) -> None:
        self.action = action
        self.armed = False
        self.fired = 0

    def fire(self) -> None:
        if self.armed:
            self.armed = False
            self.fired += 1
            self.action()


@contextlib.contextmanager
def at_attach(once: _Once) -> Iterator[_Once]:
    """``once`` runs at the ``attach.set`` scheduling point (the attach primitive)."""

    def hook(point: str, obj: object) -> None:
        if point == "attach.set":
            once.fire()

    previous = schedpoints.install(hook)
    try:
        yield once
    finally:
        schedpoints.install(previous)


def _patch_serial(monkeypatch: pytest.MonkeyPatch, module: Any, once: _Once, target: Any) -> None:
    """The boundary before the attach primitive: the ``SerialSubscription`` the operator
    built for ``target`` between its check and its store."""
    real = getattr(module, "SerialSubscription", None)
    if real is None:
        return

    def build(subscription: Any) -> Any:
        if subscription is target:
            once.fire()
        return real(subscription)

    monkeypatch.setattr(module, "SerialSubscription", build)


# ------------------------------------------------------------------------- D1
def _zip(inner: RecordingPublisher) -> Flow[Any]:
    return Flow.zip(inner, Flow.just(1))


def _combine(inner: RecordingPublisher) -> Flow[Any]:
    return Flow.combine_latest(inner, Flow.just(1))


def _flat_map(inner: RecordingPublisher) -> Flow[Any]:
    return Flow.just(1).flat_map(lambda _: inner)


def _switch_map(inner: RecordingPublisher) -> Flow[Any]:
    return Flow.just(1).switch_map(lambda _: inner)


@pytest.mark.parametrize(
    "build",
    [_zip, _combine, _flat_map, _switch_map],
    ids=["zip", "combine_latest", "flat_map", "switch_map"],
)
def test_d1_an_inner_cancelled_before_its_on_subscribe_is_cancelled(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[RecordingPublisher], Flow[Any]]
) -> None:
    """D1 (rules 3.12, 3.13): the downstream cancels between the inner's check for
    cancellation and the store of its subscription (an inner whose ``on_subscribe``
    comes late, as an asynchronous source's does); the inner must be cancelled, not
    asked for ``prefetch`` and kept."""
    inner = RecordingPublisher(deferred=True)
    probe = TestSubscriber[Any](initial_request=1)
    build(inner).subscribe(probe)
    once = _Once(probe.cancel)
    _patch_serial(monkeypatch, _drained, once, inner.subscription)
    with at_attach(once):
        once.armed = True
        inner.deliver()  # the inner's on_subscribe, after the operator's subscribe returned
    assert once.fired == 1, "the race was not forced"
    assert inner.subscription.cancelled, (
        f"the inner was asked {inner.subscription.requested} and never cancelled (rule 3.12)"
    )


# ------------------------------------------------------------------------- D2
def test_d2_delay_subscription_cancelled_during_upstreams_on_subscribe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """D2 (rules 3.12, 3.13): the subscriber cancels while upstream's ``on_subscribe``
    is between its check and its store: upstream must be cancelled."""
    source = RecordingPublisher()
    clock = ManualExecutor()
    probe = TestSubscriber[Any](initial_request=5)
    Flow(source).delay_subscription(1.0, scheduler=clock).subscribe(probe)
    once = _Once(probe.cancel)
    _patch_serial(monkeypatch, _delay_subscription, once, source.subscription)
    with at_attach(once):
        once.armed = True
        clock.advance_by(1.0)  # the timer subscribes upstream
    assert once.fired == 1, "the race was not forced"
    assert source.subscription.cancelled, (
        f"upstream was asked {source.subscription.requested} and never cancelled (3.12)"
    )


# ------------------------------------------------------------------------- D3
class _RacingClock(ManualExecutor):
    """A scheduler whose ``schedule`` lets a racing call run before it returns the handle."""

    def __init__(self) -> None:
        super().__init__()
        self.before_return: Callable[[], object] | None = None

    def schedule(self, delay: float, task: Callable[[], None]) -> Cancellable:
        handle = super().schedule(delay, task)
        race, self.before_return = self.before_return, None
        if race is not None:
            race()
        return handle


def test_d3_retry_backoff_timer_stored_after_a_racing_cancel_is_cancelled() -> None:
    """D3 (rules 3.12, 3.13): the subscriber cancels while ``retry`` arms its backoff
    timer (after ``schedule`` made it, before it was stored): the timer must not stay
    armed."""
    clock = _RacingClock()
    probe = TestSubscriber[int](initial_request=1)
    clock.before_return = probe.cancel
    Flow.error(RuntimeError("once")).retry(3, backoff=Backoff(60.0), scheduler=clock).subscribe(
        probe
    )
    assert clock.before_return is None, "the race was not forced"
    assert clock.scheduled == 0, "the backoff timer stayed armed after the cancel (3.12)"


# ------------------------------------------------------------------------- D4
def test_d4_two_racing_subscribers_of_one_group_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """D4 (rules 2.5, 1.9): a second subscriber arrives while the first is being
    attached to a unicast group: exactly one gets the group, the other ``on_error``."""
    groups = TestSubscriber[Any](initial_request=10)
    Flow.range(6).group_by(lambda x: x % 2).subscribe(groups)
    groups.await_terminal(5).assert_complete()
    group = groups.values[0]
    first = TestSubscriber[int](initial_request=10)
    second = TestSubscriber[int](initial_request=10)
    once = _Once(lambda: group.subscribe(second))
    real = _group_by._GroupSub

    def build(subscriber: Any, group: Any) -> Any:
        once.fire()  # the boundary before the attach primitive: between check and store
        return real(subscriber, group)

    monkeypatch.setattr(_group_by, "_GroupSub", build)
    with at_attach(once):
        once.armed = True
        group.subscribe(first)
    assert once.fired == 1, "the race was not forced"
    first.await_terminal(5)
    second.await_terminal(5)
    refused = [p for p in (first, second) if p.errors]
    assert len(refused) == 1, (
        f"both subscribers were accepted: {first.values} / {second.values} (rule 2.5)"
    )
    assert "allows one subscriber" in str(refused[0].errors[0])
    winner = second if refused[0] is first else first
    winner.assert_values(0, 2, 4).assert_complete().assert_no_violations()


# ------------------------------------------------------------------------ D11
class _RacingEvent(threading.Event):
    """``is_set`` answers, then lets a racing call run (the check before the store)."""

    def __init__(self, once: _Once) -> None:
        super().__init__()
        self.once = once

    def is_set(self) -> bool:
        was = super().is_set()
        self.once.fire()
        return was


def test_d11_lambda_subscriber_cancel_racing_on_subscribe_is_not_lost() -> None:
    """D11 (rules 3.12, 2.5): ``cancel()`` runs while ``on_subscribe`` is between its
    check and its store: the subscription must be cancelled, not given unbounded demand."""
    subscriber: LambdaSubscriber[int] = LambdaSubscriber()
    once = _Once(subscriber.cancel)
    subscriber.done = _RacingEvent(once)
    subscription = RecordingSubscription()
    with at_attach(once):
        once.armed = True
        subscriber.on_subscribe(subscription)
    assert once.fired == 1, "the race was not forced"
    assert subscription.cancelled, f"cancel lost; requested {subscription.requested}"
    assert MAX_DEMAND not in subscription.requested


# -------------------------------------------------------------------- D8, D9
def _callbacks(future: concurrent.futures.Future[Any]) -> int:
    """How many done callbacks ``future`` holds (CPython's list: no public count)."""
    callbacks: list[object] = getattr(future, "_done_callbacks")  # noqa: B009
    return len(callbacks)


def test_d8_cancelled_from_future_subscriptions_leave_no_done_callback() -> None:
    """D8 (rule 3.13): subscribe and cancel on a pending future, many times: the future
    keeps no callback (nor subscription) of a cancelled subscriber."""
    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    flow = Flow.from_future(future)
    for _ in range(200):
        probe = TestSubscriber[int](initial_request=1)
        flow.subscribe(probe)
        probe.cancel()
    assert _callbacks(future) == 0, "cancelled subscriptions kept (rule 3.13)"
    live = TestSubscriber[int](initial_request=1)
    flow.subscribe(live)
    future.set_result(7)
    live.await_terminal(5).assert_values(7).assert_complete().assert_no_violations()


class _Raising:
    """Raises from ``on_subscribe``; records every other signal."""

    def __init__(self) -> None:
        self.subscription: Any = None
        self.signals: list[str] = []

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription
        raise RuntimeError("on_subscribe raised")

    def on_next(self, item: Any) -> None:
        self.signals.append("on_next")

    def on_error(self, error: BaseException) -> None:
        self.signals.append("on_error")

    def on_complete(self) -> None:
        self.signals.append("on_complete")


@pytest.mark.parametrize("done", [False, True], ids=["pending", "done"])
def test_d9_from_future_on_subscribe_raising_does_not_escape_subscribe(done: bool) -> None:
    """D9 (rules 2.13, 1.9): a raising ``on_subscribe`` is the core's: the subscription
    is cancelled (and the fault logged); ``subscribe()`` returns normally."""
    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    if done:
        future.set_result(1)
    subscriber = _Raising()
    Flow.from_future(future).subscribe(subscriber)  # raised out of subscribe() before
    subscriber.subscription.request(1)  # rule 2.13: cancelled, so a no-op (3.6)
    if not done:
        future.set_result(1)
    assert subscriber.signals == [], "signals after a raising on_subscribe (rule 2.13)"
    assert _callbacks(future) == 0


# ------------------------------------------------------------------------ D10
def test_d10_invalid_request_during_a_retry_backoff_is_answered_at_once() -> None:
    """D10 (rule 3.9): ``request(0)`` while ``retry`` waits out its backoff gets the
    rule 3.9 error now, not when the timer fires; the timer is then cancelled."""
    clock = ManualExecutor()
    probe = TestSubscriber[int](initial_request=1)
    Flow.error(RuntimeError("once")).retry(3, backoff=Backoff(3600.0), scheduler=clock).subscribe(
        probe
    )
    assert clock.scheduled == 1, "retry waits out its backoff"
    probe.request(0)
    assert probe.errors, "no rule 3.9 error until the timer fires"
    assert "rule 3.9" in str(probe.errors[0])
    assert clock.scheduled == 0, "the backoff timer is cancelled with the end"
    probe.assert_no_violations()


def test_d10_invalid_request_before_delay_subscription_subscribes_is_answered_at_once() -> None:
    """D10 (rule 3.9): ``request(0)`` before ``delay_subscription`` has subscribed gets
    the rule 3.9 error now; upstream is never subscribed."""
    source = RecordingPublisher()
    clock = ManualExecutor()
    probe = TestSubscriber[int](initial_request=2)
    Flow(source).delay_subscription(3600.0, scheduler=clock).subscribe(probe)
    probe.request(0)
    assert probe.errors, "no rule 3.9 error until the timer fires"
    assert "rule 3.9" in str(probe.errors[0])
    clock.advance_by(3600.0)
    assert source.subscriber is None, "upstream subscribed after the stream ended"
    probe.assert_no_violations()
