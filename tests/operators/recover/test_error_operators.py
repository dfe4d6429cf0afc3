"""The operators on the switching core (``_core/arbiter.py``): retry, retry_when,
on_error_resume, on_error_return, on_error_complete, concat, start_with,
switch_if_empty, default_if_empty, defer.

``Manual`` is a source driven by the test that records every ``request(n)`` per
subscription (an "attempt"), so demand across resubscriptions can be counted exactly.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

MAX = 2**63 - 1


class Attempt:
    """One subscription of ``Manual``: its requests, and the test pushes the signals."""

    def __init__(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        self.requests: list[int] = []
        self.cancelled = False
        self.sent = 0

    def request(self, n: int) -> None:
        self.requests.append(n)
        if type(n) is not int or n <= 0:
            self.subscriber.on_error(ValueError(f"rule 3.9: request(n) requires n > 0, got {n}"))

    def cancel(self) -> None:
        self.cancelled = True

    def push(self, *items: Any) -> None:
        for item in items:
            demand = sum(self.requests)
            assert demand >= MAX or self.sent < demand, "the test broke rule 1.1"
            self.sent += 1
            self.subscriber.on_next(item)

    def fail(self, error: BaseException | None = None) -> None:
        self.subscriber.on_error(error or RuntimeError("attempt failed"))

    def complete(self) -> None:
        self.subscriber.on_complete()


class Manual:
    """A Publisher whose every subscription is an ``Attempt``; with ``lazy`` the test
    delivers ``on_subscribe`` itself (``open()``), as an asynchronous source would."""

    def __init__(self, lazy: bool = False) -> None:
        self.attempts: list[Attempt] = []
        self.lazy = lazy

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        attempt = Attempt(subscriber)
        self.attempts.append(attempt)
        if not self.lazy:
            subscriber.on_subscribe(attempt)

    def open(self) -> Attempt:
        attempt = self.attempts[-1]
        attempt.subscriber.on_subscribe(attempt)
        return attempt


def test_retry_gives_each_attempt_exactly_the_outstanding_demand() -> None:
    source = Manual()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(source).retry(3).subscribe(ts)
    ts.request(5)
    first = source.attempts[0]
    assert first.requests == [5]
    first.push(1, 2)
    first.fail()
    second = source.attempts[1]
    # 5 requested - 2 delivered: nothing lost, nothing doubled
    assert second.requests == [3], "rule 1.1: the new attempt must get the outstanding demand"
    ts.request(4)
    assert second.requests == [3, 4]
    second.push(3)
    second.fail()
    third = source.attempts[2]
    assert third.requests == [6]
    third.push(4, 5, 6, 7, 8, 9)
    third.complete()
    ts.assert_values(1, 2, 3, 4, 5, 6, 7, 8, 9).assert_complete().assert_no_violations()
    # each attempt's requests minus what it delivered is exactly the next one's first
    # request (and, for the last, the 0 still outstanding downstream)
    left = [sum(a.requests) - a.sent for a in source.attempts]
    assert left == [3, 6, 0]


def test_retry_under_unbounded_demand_asks_every_attempt_for_everything_once() -> None:
    source = Manual()
    ts: TestSubscriber[int] = TestSubscriber(MAX)
    Flow(source).retry(2).subscribe(ts)
    source.attempts[0].push(1, 2)
    source.attempts[0].fail()
    source.attempts[1].push(3)
    source.attempts[1].complete()
    assert [a.requests for a in source.attempts] == [[MAX], [MAX]]  # rule 3.17
    ts.assert_values(1, 2, 3).assert_complete()


def test_a_request_made_during_the_switch_goes_to_the_new_upstream_once() -> None:
    source = Manual(lazy=True)
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(source).retry(1).subscribe(ts)
    source.open()
    ts.request(3)
    source.attempts[0].push(1)
    source.attempts[0].fail()
    ts.request(4)  # the second attempt is subscribed but not yet open
    second = source.open()
    assert second.requests == [6]
    second.push(*range(2, 8))
    second.complete()
    ts.assert_values(*range(1, 8)).assert_complete().assert_no_violations()


def test_a_cancel_during_the_switch_cancels_the_new_upstream() -> None:
    source = Manual(lazy=True)
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow(source).retry(1).subscribe(ts)
    source.open()
    source.attempts[0].fail()
    ts.cancel()
    second = source.open()
    assert second.cancelled  # rule 3.12: not leaked
    assert second.requests == []
    ts.assert_no_terminal()


def test_retry_gives_up_after_times_with_the_last_error() -> None:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.error(RuntimeError(f"attempt {len(subscriptions)}"))

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(make).retry(2).subscribe(ts)
    assert len(subscriptions) == 3
    ts.assert_error(RuntimeError)
    assert str(ts.errors[0]) == "attempt 3"


def test_a_rule_3_9_error_is_not_retried() -> None:
    source = Manual()
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow(source).retry().subscribe(ts)
    source.attempts[0].push(1)
    ts.request(0)  # upstream answers with its rule 3.9 error: never a reason to retry
    assert len(source.attempts) == 1
    ts.assert_error(ValueError)
    assert str(ts.errors[0]).startswith("rule 3.9")


def test_a_rule_3_9_request_before_the_first_subscription_is_answered_once() -> None:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.range(3)

    class Invalid(TestSubscriber[int]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            subscription.request(-1)  # before any upstream is subscribed

    ts = Invalid(0)
    Flow.defer(make).retry().subscribe(ts)
    ts.assert_error(ValueError).assert_no_violations()
    assert subscriptions == []  # the latched request ends it before any upstream


def test_retry_of_a_synchronously_failing_source_does_not_recurse() -> None:
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.error(RuntimeError("always"))

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(make).retry(1000).subscribe(ts)  # rule 3.3: a loop, not 1000 nested calls
    assert len(subscriptions) == 1001
    ts.assert_error(RuntimeError).assert_no_violations()


def test_retry_when_asks_the_predicate_with_the_attempt_number() -> None:
    seen: list[tuple[str, int]] = []
    subscriptions: list[int] = []

    def make() -> Flow[int]:
        subscriptions.append(1)
        return Flow.error(KeyError(len(subscriptions)))

    def again(error: BaseException, attempt: int) -> bool:
        seen.append((type(error).__name__, attempt))
        return attempt < 3

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.defer(make).retry_when(again).subscribe(ts)
    assert seen == [("KeyError", 1), ("KeyError", 2), ("KeyError", 3)]
    assert len(subscriptions) == 3
    ts.assert_error(KeyError)


def test_retry_when_a_raising_predicate_ends_with_its_error() -> None:
    def again(error: BaseException, attempt: int) -> bool:
        raise LookupError("predicate")

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.error(RuntimeError("x")).retry_when(again).subscribe(ts)
    ts.assert_error(LookupError)
    assert isinstance(ts.errors[0].__context__, RuntimeError)


def test_on_error_resume_gives_the_fallback_the_outstanding_demand() -> None:
    source, fallback = Manual(), Manual()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(source).on_error_resume(lambda e: fallback).subscribe(ts)
    source.attempts[0].push(1, 2)
    source.attempts[0].fail()
    assert fallback.attempts[0].requests == [3]
    fallback.attempts[0].push(3, 4, 5)
    fallback.attempts[0].fail(KeyError("fallback's own"))
    ts.assert_values(1, 2, 3, 4, 5).assert_error(KeyError).assert_no_violations()


def test_on_error_resume_whose_function_raises_signals_its_error() -> None:
    def fn(error: BaseException) -> Flow[int]:
        raise LookupError("resume")

    source = Manual()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(source).on_error_resume(fn).subscribe(ts)
    source.attempts[0].fail()
    ts.assert_error(LookupError).assert_no_violations()
    assert isinstance(ts.errors[0].__context__, RuntimeError)


def test_on_error_resume_whose_function_returns_none_names_it() -> None:
    def fallback(error: BaseException) -> Any:
        return None

    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.error(RuntimeError("x")).on_error_resume(fallback).subscribe(ts)
    ts.assert_error(TypeError)
    assert "on_error_resume(fallback)" in str(ts.errors[0])


def test_on_error_return_waits_for_demand() -> None:
    source = Manual()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(source).on_error_return(-1).subscribe(ts)
    source.attempts[0].push(1)
    source.attempts[0].fail()
    ts.assert_values(1).assert_no_terminal()  # rule 1.1: no demand for the fallback yet
    ts.request(1)
    ts.assert_values(1, -1).assert_complete()


def test_on_error_complete_drops_the_error() -> None:
    ts: TestSubscriber[int] = TestSubscriber(MAX)
    Flow.range(2).concat_with(Flow.error(RuntimeError("x"))).on_error_complete().subscribe(ts)
    ts.assert_values(0, 1).assert_complete()


def test_concat_carries_the_demand_from_one_source_to_the_next() -> None:
    first, second = Manual(), Manual()
    ts: TestSubscriber[int] = TestSubscriber(4)
    Flow.concat(first, Flow.empty(), second).subscribe(ts)
    first.attempts[0].push(1)
    first.attempts[0].complete()
    assert second.attempts[0].requests == [3]
    second.attempts[0].push(2, 3, 4)
    second.attempts[0].complete()
    ts.assert_values(1, 2, 3, 4).assert_complete()


def test_concat_of_many_synchronous_sources_does_not_recurse() -> None:
    flows = [Flow.just(i) for i in range(3000)]
    assert Flow.concat(*flows).to_list(timeout=30) == list(range(3000))


def test_start_with_and_concat_with() -> None:
    assert Flow.range(2).start_with(7, 8).concat_with(Flow.just(9)).to_list(timeout=5) == [
        7,
        8,
        0,
        1,
        9,
    ]


def test_default_if_empty_and_switch_if_empty() -> None:
    assert Flow.empty().default_if_empty(5).to_list(timeout=5) == [5]
    assert Flow.range(2).default_if_empty(5).to_list(timeout=5) == [0, 1]
    assert Flow.empty().switch_if_empty(Flow.range(3)).to_list(timeout=5) == [0, 1, 2]
    assert Flow.just(9).switch_if_empty(Flow.range(3)).to_list(timeout=5) == [9]


def test_defer_calls_the_factory_per_subscriber() -> None:
    calls: list[int] = []

    def make() -> Flow[int]:
        calls.append(1)
        return Flow.just(len(calls))

    flow = Flow.defer(make)
    assert calls == []
    assert flow.to_list(timeout=5) == [1]
    assert flow.to_list(timeout=5) == [2]


def test_defer_whose_factory_raises_signals_on_subscribe_then_on_error() -> None:
    def make() -> Flow[int]:
        raise LookupError("factory")

    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.defer(make).subscribe(ts)
    assert [s.kind for s in ts.signals] == ["on_subscribe", "on_error"]  # rule 1.9
    ts.assert_error(LookupError).assert_no_violations()


def test_retry_over_a_threaded_source_delivers_every_element_once() -> None:
    from reactive_streams.schedulers import single

    attempts: list[int] = []

    def make(executor: Any) -> Flow[int]:
        attempts.append(1)
        if len(attempts) < 3:
            return Flow.range(0, 50, executor=executor).concat_with(Flow.error(RuntimeError()))
        return Flow.range(0, 50, executor=executor)

    with single() as executor:
        done = threading.Event()
        ts: TestSubscriber[int] = TestSubscriber(1, on_next_hook=lambda t, x: t.request(1))
        Flow.defer(lambda: make(executor)).retry(5).do_finally(done.set).subscribe(ts)
        assert done.wait(10)
    ts.assert_complete().assert_no_violations()
    assert ts.values == list(range(50)) * 3


def test_retry_with_requests_racing_the_resubscriptions_loses_and_doubles_nothing() -> None:
    from reactive_streams.schedulers import single

    asked: list[list[int]] = []  # the requests each attempt's source received

    def make(executor: Any) -> Flow[int]:
        asked.append([])
        if len(asked) <= 3:  # 20 elements, then an error
            body = Flow.range(0, 20, executor=executor, batch_size=3)
            return body.do_on_request(asked[-1].append).concat_with(Flow.error(RuntimeError()))
        return Flow.range(0, 1000, executor=executor, batch_size=3).do_on_request(asked[-1].append)

    for _ in range(20):
        asked.clear()
        with single() as executor:
            ts: TestSubscriber[int] = TestSubscriber(0)
            Flow.defer(lambda: make(executor)).retry().subscribe(ts)
            for _ in range(80):  # from this thread, while the source emits on the executor
                ts.request(1)
            ts.await_count(80)  # lost demand would stall here
            # the last attempt delivered 20: it was asked for exactly those (rule 1.1)
            assert sum(asked[3]) == 20, f"rule 1.1: the last attempt was asked {asked[3]}"
            ts.cancel()
        assert ts.values == list(range(20)) * 4
        ts.assert_no_violations()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda f: f.retry(-1), "retry: times must be None or an int >= 0"),
        (lambda f: f.retry("3"), "retry: times must be None or an int >= 0"),
        (lambda f: f.retry_when(3), "retry_when: predicate must be callable"),
        (lambda f: f.on_error_resume(None), "on_error_resume: fn must be callable"),
        (lambda f: f.on_error_return(None), "on_error_return: value must not be None"),
        (lambda f: f.concat_with(3), "concat: publishers[1] must be a Publisher"),
        (lambda f: f.start_with(1, None), "start_with: items[1] must not be None"),
        (lambda f: f.switch_if_empty([1]), "switch_if_empty: other must be a Publisher"),
        (lambda f: f.default_if_empty(None), "default_if_empty: value must not be None"),
        (lambda f: Flow.defer(3), "defer: factory must be callable"),  # type: ignore[arg-type]
    ],
)
def test_arguments_are_checked_up_front(build: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        build(Flow.range(3))
