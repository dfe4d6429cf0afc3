"""LambdaSubscriber / subscribe, AsyncSubscriber, TestSubscriber's own checks."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams import ManualExecutor, ThreadPoolExecutor
from reactive_streams.testing import TestSubscriber


def test_subscribe_callbacks_unbounded() -> None:
    got: list[int] = []
    completed: list[bool] = []
    sub = rs.subscribe(rs.range(1, 6), got.append, on_complete=lambda: completed.append(True))
    assert got == [1, 2, 3, 4, 5]
    assert completed == [True]
    assert sub.done.is_set()


def test_subscribe_with_batch_replenishes(manual: ManualExecutor) -> None:
    got: list[int] = []
    requests: list[int] = []

    class Spy:
        def __init__(self, inner: rs.Publisher[int]) -> None:
            self.inner = inner

        def subscribe(self, subscriber: rs.Subscriber[int]) -> None:
            outer = self

            class Wrap:
                def on_subscribe(self, s: rs.Subscription) -> None:
                    class SpyS:
                        def request(self, n: int) -> None:
                            requests.append(n)
                            s.request(n)

                        def cancel(self) -> None:
                            s.cancel()

                    subscriber.on_subscribe(SpyS())

                def on_next(self, item: int) -> None:
                    subscriber.on_next(item)

                def on_error(self, error: BaseException) -> None:
                    subscriber.on_error(error)

                def on_complete(self) -> None:
                    subscriber.on_complete()

            outer.inner.subscribe(Wrap())

    rs.subscribe(Spy(rs.range(0, 10)), got.append, request=4)
    assert got == list(range(10))
    assert requests == [4, 4, 4]


def test_subscribe_on_error_callback_and_default_logging(caplog: pytest.LogCaptureFixture) -> None:
    errors: list[BaseException] = []
    rs.subscribe(rs.error(KeyError("k")), on_error=errors.append)
    assert isinstance(errors[0], KeyError)
    rs.subscribe(rs.error(KeyError("unhandled k")))
    assert "unhandled k" in caplog.text


def test_spec309_lambda_subscriber_rejects_invalid_batch() -> None:
    with pytest.raises(ValueError, match=r"rule 3\.9"):
        rs.LambdaSubscriber(request=0)


def test_lambda_subscriber_cancel() -> None:
    got: list[int] = []
    box: list[rs.LambdaSubscriber[int]] = []

    def on_next(item: int) -> None:
        got.append(item)
        if item == 4:
            box[0].cancel()
            box[0].cancel()  # rule 3.5

    sub: rs.LambdaSubscriber[int] = rs.LambdaSubscriber(on_next, request=3)
    box.append(sub)
    rs.range(0, 100).subscribe(sub)
    assert got == [0, 1, 2, 3, 4]
    assert sub.done.is_set()


class SpySubscription:
    def __init__(self) -> None:
        self.requests: list[int] = []
        self.cancels = 0

    def request(self, n: int) -> None:
        self.requests.append(n)

    def cancel(self) -> None:
        self.cancels += 1


@pytest.mark.parametrize("kind", ["lambda", "async"])
def test_spec205_second_on_subscribe_is_cancelled(kind: str) -> None:
    manual = ManualExecutor()
    sub: rs.Subscriber[int] = (
        rs.LambdaSubscriber(request=2) if kind == "lambda" else Collect(manual)
    )
    first, second = SpySubscription(), SpySubscription()
    sub.on_subscribe(first)
    sub.on_subscribe(second)
    manual.run_all()
    assert second.cancels == 1
    assert second.requests == []
    assert first.cancels == 0
    assert first.requests in ([2], [1])


class Collect(rs.AsyncSubscriber[int]):
    def __init__(self, executor: rs.Executor, stop_at: int | None = None) -> None:
        super().__init__(executor)
        self.items: list[int] = []
        self.threads: set[int] = set()
        self.completed = threading.Event()
        self.error: BaseException | None = None
        self.stop_at = stop_at

    def when_next(self, item: int) -> bool:
        self.items.append(item)
        self.threads.add(threading.get_ident())
        if item == self.stop_at:
            return False
        self.request(1)
        return True

    def when_complete(self) -> None:
        self.completed.set()

    def when_error(self, error: BaseException) -> None:
        self.error = error
        self.completed.set()


def test_spec202_async_subscriber_runs_hooks_only_on_its_executor(manual: ManualExecutor) -> None:
    sub = Collect(manual)
    rs.range(0, 3).subscribe(sub)
    assert sub.items == []  # on_subscribe was only queued
    manual.run_all()
    assert sub.items == [0, 1, 2]
    assert sub.completed.is_set()


def test_async_subscriber_cancels_when_when_next_returns_false(manual: ManualExecutor) -> None:
    sub = Collect(manual, stop_at=2)
    rs.range(0, 100).subscribe(sub)
    manual.run_all()
    assert sub.items == [0, 1, 2]
    assert not sub.completed.is_set()


def test_async_subscriber_gets_error(manual: ManualExecutor) -> None:
    sub = Collect(manual)
    rs.error(OSError("e")).subscribe(sub)
    manual.run_all()
    assert isinstance(sub.error, OSError)


@pytest.mark.timeout(60)
def test_spec103_async_publisher_to_async_subscriber_on_pools() -> None:
    with ThreadPoolExecutor(2) as up, ThreadPoolExecutor(2) as down:
        sub = Collect(down)
        rs.range(0, 2000, executor=up, batch_size=8).subscribe(sub)
        assert sub.completed.wait(30)
    assert sub.items == list(range(2000))


@pytest.mark.timeout(60)
def test_spec103_traced_async_subscriber_across_pools() -> None:
    from reactive_streams.testing import (
        spec101_delivered_leq_requested_inv,
        spec103_serial_signals_inv,
    )
    from reactive_streams.tracing import tracing

    with tracing() as tracer, ThreadPoolExecutor(2) as up, ThreadPoolExecutor(2) as down:
        subs = [Collect(down) for _ in range(10)]
        for sub in subs:
            rs.range(0, 200, executor=up, batch_size=4).subscribe(sub)
        for sub in subs:
            assert sub.completed.wait(30)
    assert all(sub.items == list(range(200)) for sub in subs)
    events: list[dict[str, Any]] = list(tracer.events)
    assert spec101_delivered_leq_requested_inv(events) == []
    assert spec103_serial_signals_inv(events) == []


# ----------------------------------------------------- TestSubscriber checks
class Rogue:
    """A misbehaving publisher that calls the subscriber directly."""

    def __init__(self, script: list[tuple[str, Any]]) -> None:
        self.script = script

    def subscribe(self, subscriber: rs.Subscriber[Any]) -> None:
        for kind, value in self.script:
            if kind == "on_subscribe":
                subscriber.on_subscribe(value)
            elif kind == "on_next":
                subscriber.on_next(value)
            elif kind == "on_error":
                subscriber.on_error(value)
            else:
                subscriber.on_complete()


class NullSubscription:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


@pytest.mark.parametrize(
    ("script", "rule"),
    [
        ([("on_next", 1)], "rule 1.3"),
        ([("on_subscribe", NullSubscription()), ("on_next", 1)], "rule 1.1"),
        (
            [("on_subscribe", NullSubscription()), ("on_complete", None), ("on_complete", None)],
            "rule 1.7",
        ),
        ([("on_subscribe", NullSubscription()), ("on_subscribe", NullSubscription())], "rule 2.12"),
        ([("on_subscribe", NullSubscription()), ("on_error", None)], "rule 2.13"),
    ],
)
def test_test_subscriber_detects_violations(script: list[tuple[str, Any]], rule: str) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Rogue(script).subscribe(ts)
    assert any(v.startswith(rule) for v in ts.violations), ts.violations
    with pytest.raises(AssertionError):
        ts.assert_no_violations()


@pytest.mark.timeout(30)
def test_test_subscriber_detects_overlapping_calls() -> None:
    ts: TestSubscriber[int] = TestSubscriber(10)
    ts.on_subscribe(NullSubscription())
    entered = threading.Event()
    release = threading.Event()

    def hook(ts: TestSubscriber[int], item: int) -> None:
        if item == 1:
            entered.set()
            assert release.wait(10)

    ts._hook = hook
    thread = threading.Thread(target=ts.on_next, args=(1,))
    thread.start()
    assert entered.wait(10)
    ts.on_next(2)
    release.set()
    thread.join(10)
    assert any(v.startswith("rule 1.3: on_next overlaps") for v in ts.violations)


@pytest.mark.timeout(30)
def test_await_terminal_times_out_with_assertion() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    rs.range(0, 5).subscribe(ts)
    with pytest.raises(AssertionError, match="no terminal signal"):
        ts.await_terminal(0.01)
    ts.request(10)
    ts.await_terminal(1).assert_complete()


def test_spec212_a_subscriber_given_a_second_subscription_cancels_it() -> None:
    # rule 2.12 (onSubscribe at most once per Subscriber) seen from the Subscriber: rule 2.5
    # makes it cancel a second Subscription while the first is active.
    executor = rs.ManualExecutor()
    received: list[int] = []
    subscriber = rs.LambdaSubscriber(received.append, request=1)
    rs.range(1, 4, executor=executor).subscribe(subscriber)
    rs.range(100, 103, executor=executor).subscribe(subscriber)
    executor.run_all()
    assert received == [1, 2, 3]
