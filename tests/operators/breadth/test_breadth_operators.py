"""The everyday relays and tail operators: do_on_error, do_on_complete, do_finally,
distinct, distinct_until_changed, skip_while, ignore_elements, count, element_at, all,
any, take_last, skip_last (fusion on and off)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import Probe, PushPublisher

MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda f: f.distinct(), [0, 1, 2]),
        (lambda f: f.distinct(lambda x: x % 2), [0, 1]),
        (lambda f: f.distinct_until_changed(), [0, 1, 2, 0]),
        (lambda f: f.distinct_until_changed(lambda x: x > 0), [0, 1, 0]),
        (lambda f: f.skip_while(lambda x: x < 2), [2, 2, 0]),
        (lambda f: f.ignore_elements(), []),
        (lambda f: f.count(), [6]),
        (lambda f: f.element_at(3), [2]),
        (lambda f: f.element_at(9, default=-1), [-1]),
        (lambda f: f.all(lambda x: x < 3), [True]),
        (lambda f: f.all(lambda x: x < 2), [False]),
        (lambda f: f.any(lambda x: x > 1), [True]),
        (lambda f: f.any(lambda x: x > 2), [False]),
        (lambda f: f.take_last(2), [2, 0]),
        (lambda f: f.take_last(0), []),
        (lambda f: f.skip_last(2), [0, 1, 1, 2]),
        (lambda f: f.skip_last(0), [0, 1, 1, 2, 2, 0]),
        (lambda f: f.do_on_complete(lambda: None), [0, 1, 1, 2, 2, 0]),
    ],
)
def test_values(build: Any, expected: list[Any], fusion: bool) -> None:
    assert build(Flow.from_iterable([0, 1, 1, 2, 2, 0])).to_list(timeout=5) == expected


@pytest.mark.parametrize(
    "build",
    [
        lambda f: f.distinct(),
        lambda f: f.distinct_until_changed(),
        lambda f: f.skip_while(lambda x: x < 4),
    ],
    ids=["distinct", "distinct_until_changed", "skip_while"],
)
def test_filtering_relays_replace_every_dropped_element(build: Any, fusion: bool) -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2)
    build(probe.source([0, 0, 0, 1, 1, 4, 5, 6])).subscribe(ts)
    assert len(ts.values) == 2  # no stall: each drop was replaced by request(1)
    assert probe.requests == [2] + [1] * _drops(ts.values, [0, 0, 0, 1, 1, 4, 5, 6])


def _drops(kept: list[int], items: list[int]) -> int:
    """Elements dropped before the last kept one."""
    return items.index(kept[-1]) + 1 - len(kept)


def test_a_filtering_relay_under_unbounded_demand_asks_nothing_more() -> None:
    probe = Probe()
    probe.source([0, 0, 1, 1]).distinct().subscribe(TestSubscriber(MAX))
    assert probe.requests == [MAX]  # rule 3.17: nothing to replace


@pytest.mark.parametrize(
    ("name", "build"),
    [
        ("distinct", lambda f, bad: f.distinct(bad)),
        ("distinct_until_changed", lambda f, bad: f.distinct_until_changed(bad)),
        ("skip_while", lambda f, bad: f.skip_while(bad)),
        ("all", lambda f, bad: f.all(bad)),
        ("any", lambda f, bad: f.any(bad)),
    ],
)
def test_a_raising_user_function_cancels_upstream_and_signals_its_error(
    name: str, build: Any
) -> None:
    def bad(x: Any) -> Any:
        raise LookupError(name)

    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)
    build(Flow(upstream), bad).subscribe(ts)
    upstream.push(1)
    assert upstream.cancelled  # rule 2.13's fault path: upstream cancelled first
    ts.assert_error(LookupError).assert_no_violations()


@pytest.mark.parametrize("value", [True, False])
def test_all_and_any_cancel_upstream_at_the_deciding_element(value: bool) -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[bool] = TestSubscriber(0)
    if value:
        Flow(upstream).any(lambda x: x == 2).subscribe(ts)
        upstream.push(1, 2)
    else:
        Flow(upstream).all(bool).subscribe(ts)
        upstream.push(0)
    assert upstream.cancelled
    ts.assert_no_terminal()  # rule 1.1: the verdict waits for demand
    ts.request(1)
    ts.assert_values(value).assert_complete()


def test_count_and_take_last_wait_for_demand() -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(10).take_last(3).subscribe(ts)
    ts.request(2)
    ts.assert_values(7, 8).assert_no_terminal()
    ts.request(5)
    ts.assert_values(7, 8, 9).assert_complete()


@pytest.mark.parametrize("then", ["cancel", "invalid"])
def test_take_last_stops_emitting_when_cancelled_or_invalid_from_on_next(then: str) -> None:
    def hook(ts: TestSubscriber[int], x: int) -> None:
        ts.cancel() if then == "cancel" else ts.request(0)

    ts: TestSubscriber[int] = TestSubscriber(10, on_next_hook=hook)
    Flow.range(10).take_last(5).subscribe(ts)
    ts.assert_values(5).assert_no_violations()  # rule 3.12 / rule 3.9: nothing more
    if then == "invalid":
        ts.assert_error(ValueError)


def test_element_at_past_the_end_without_default_is_an_index_error() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.range(2).element_at(5).subscribe(ts)
    ts.assert_error(IndexError)


def test_take_last_drops_its_buffer_on_error() -> None:
    ts: TestSubscriber[int] = TestSubscriber(MAX)
    Flow.range(3).concat_with(Flow.error(KeyError("x"))).take_last(2).subscribe(ts)
    ts.assert_values().assert_error(KeyError)


def test_skip_last_asks_for_the_held_elements_itself() -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).skip_last(2).subscribe(ts)
    assert upstream.requested == [2]
    ts.request(1)
    upstream.push(1, 2, 3)
    ts.assert_values(1)
    upstream.complete()
    ts.assert_values(1).assert_complete()


def test_ignore_elements_requests_everything_and_passes_only_the_end() -> None:
    upstream = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow(upstream).ignore_elements().subscribe(ts)
    assert upstream.requested == [MAX]
    upstream.push(1, 2, 3)
    upstream.complete()
    ts.assert_values().assert_complete()


def test_do_on_error_and_do_on_complete_run_before_the_signal() -> None:
    seen: list[str] = []
    ts: TestSubscriber[int] = TestSubscriber(MAX)
    Flow.error(KeyError("x")).do_on_error(lambda e: seen.append(type(e).__name__)).subscribe(ts)
    ts.assert_error(KeyError)
    Flow.range(1).do_on_complete(lambda: seen.append("complete")).subscribe(TestSubscriber(MAX))
    assert seen == ["KeyError", "complete"]


def test_do_on_error_and_do_on_complete_whose_action_raises_signal_its_error() -> None:
    def boom(*args: Any) -> None:
        raise LookupError("action")

    ts: TestSubscriber[int] = TestSubscriber(MAX)
    Flow.error(KeyError("x")).do_on_error(boom).subscribe(ts)
    ts.assert_error(LookupError)
    assert isinstance(ts.errors[0].__context__, KeyError)
    ts2: TestSubscriber[int] = TestSubscriber(MAX)
    Flow.range(2).do_on_complete(boom).subscribe(ts2)
    ts2.assert_values(0, 1).assert_error(LookupError)


@pytest.mark.parametrize("end", ["complete", "error", "cancel", "raise"])
def test_do_finally_runs_once_after_every_kind_of_end(end: str) -> None:
    runs: list[int] = []
    upstream = PushPublisher()

    def hook(ts: TestSubscriber[int], x: int) -> None:
        raise RuntimeError("subscriber fails")

    ts: TestSubscriber[int] = TestSubscriber(5, on_next_hook=hook if end == "raise" else None)
    Flow(upstream).do_finally(lambda: runs.append(1)).subscribe(ts)
    assert runs == []
    if end == "complete":
        upstream.complete()
    elif end == "error":
        upstream.fail(KeyError("x"))
    elif end == "cancel":
        ts.cancel()
        ts.cancel()
    else:
        upstream.push(1)
    assert runs == [1]
    assert end not in ("cancel", "raise") or upstream.cancelled


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda f: f.do_on_error(1), "do_on_error: action must be callable"),
        (lambda f: f.do_on_complete(1), "do_on_complete: action must be callable"),
        (lambda f: f.do_finally(None), "do_finally: action must be callable"),
        (lambda f: f.distinct(1), "distinct: key must be callable"),
        (lambda f: f.distinct_until_changed(1), "distinct_until_changed: key must be callable"),
        (lambda f: f.skip_while(1), "skip_while: predicate must be callable"),
        (lambda f: f.element_at(-1), "element_at: count must be an int >= 0"),
        (lambda f: f.element_at(0, None), "element_at: default must not be None"),
        (lambda f: f.all(1), "all: predicate must be callable"),
        (lambda f: f.any(1), "any: predicate must be callable"),
        (lambda f: f.take_last(-1), "take_last: count must be an int >= 0"),
        (lambda f: f.skip_last(1.5), "skip_last: count must be an int >= 0"),
    ],
)
def test_arguments_are_checked_up_front(build: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        build(Flow.range(3))


NEW_OPERATORS: dict[str, Any] = {
    "retry": lambda f: f.retry(2),
    "retry_when": lambda f: f.retry_when(lambda e, attempt: True),
    "on_error_resume": lambda f: f.on_error_resume(lambda e: Flow.just(1)),
    "on_error_return": lambda f: f.on_error_return(1),
    "on_error_complete": lambda f: f.on_error_complete(),
    "concat_with": lambda f: f.concat_with(Flow.range(3)),
    "start_with": lambda f: f.start_with(9),
    "switch_if_empty": lambda f: f.switch_if_empty(Flow.just(1)),
    "default_if_empty": lambda f: f.default_if_empty(1),
    "defer": lambda f: Flow.defer(lambda: f),
    "do_on_error": lambda f: f.do_on_error(lambda e: None),
    "do_on_complete": lambda f: f.do_on_complete(lambda: None),
    "do_finally": lambda f: f.do_finally(lambda: None),
    "distinct": lambda f: f.distinct(),
    "distinct_until_changed": lambda f: f.distinct_until_changed(),
    "skip_while": lambda f: f.skip_while(lambda x: x < 1),
    "ignore_elements": lambda f: f.ignore_elements(),
    "count": lambda f: f.count(),
    "element_at": lambda f: f.element_at(1),
    "all": lambda f: f.all(lambda x: True),
    "any": lambda f: f.any(lambda x: False),
    "take_last": lambda f: f.take_last(2),
    "skip_last": lambda f: f.skip_last(1),
}


@pytest.mark.parametrize("at", ["on_subscribe", "on_next"])
@pytest.mark.parametrize("name", sorted(NEW_OPERATORS))
def test_an_invalid_request_ends_every_new_operator_with_the_rule_3_9_error(
    name: str, at: str, fusion: bool
) -> None:
    class Invalid(TestSubscriber[Any]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            self.request(0 if at == "on_subscribe" else 1)

    if name == "ignore_elements" and at == "on_next":
        pytest.skip("ignore_elements delivers no element to request from")
    ts = Invalid(0, on_next_hook=lambda t, x: t.request(-1))
    NEW_OPERATORS[name](Flow.range(5)).subscribe(ts)
    ts.assert_error(ValueError).assert_no_violations()
    assert str(ts.errors[0]).startswith("rule 3.9"), ts.errors
    assert len(ts.values) <= 1
