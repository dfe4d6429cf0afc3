"""The everyday pass-through hops' contract at the edges their other tests leave open
(issue 27: mutation survivors): what each action sees and when it runs, the replacing
request(1) of a dropped element, the first element of distinct_until_changed, the demand
of ignore_elements and skip_last, and rule 2.13's on_error(None)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.flow import Flow

from .._util import MAX, PushPublisher, Recorder

pytestmark = pytest.mark.timeout(60)


def _hop(build: Any, rec: Recorder) -> PushPublisher:
    up = PushPublisher()
    build(Flow(up)).subscribe(rec)
    return up


@pytest.mark.parametrize(
    "build",
    [lambda f: f.on_error_complete(), lambda f: f.do_on_error(lambda e: None)],
    ids=["on_error_complete", "do_on_error"],
)
def test_on_error_none_raises_rule_2_13(build: Any) -> None:
    up = _hop(build, Recorder())
    assert up.subscriber is not None
    with pytest.raises(TypeError) as raised:
        up.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"


def test_on_error_complete_turns_the_error_into_completion() -> None:
    rec = Recorder()
    up = _hop(lambda f: f.on_error_complete(), rec)
    up.push(1)
    up.fail(ValueError("x"))
    assert (rec.values, rec.ends) == ([1], ["complete"])


def test_do_on_error_sees_the_error_and_a_raising_action_replaces_it() -> None:
    seen: list[BaseException] = []
    original = ValueError("original")

    def action(error: BaseException) -> None:
        seen.append(error)
        raise KeyError("action")

    rec = Recorder()
    up = _hop(lambda f: f.do_on_error(action), rec)
    up.fail(original)
    assert seen == [original]
    assert rec.ends == ["error KeyError: 'action'"]


def test_do_on_error_chains_the_original_as_context() -> None:
    errors: list[BaseException] = []
    original = ValueError("original")

    class Keep(Recorder):
        def on_error(self, error: BaseException) -> None:
            errors.append(error)

    def action(error: BaseException) -> None:
        raise KeyError("action")

    up = _hop(lambda f: f.do_on_error(action), Keep())
    up.fail(original)
    assert len(errors) == 1
    assert errors[0].__context__ is original


def test_do_on_error_is_not_run_after_a_cancel() -> None:
    seen: list[BaseException] = []
    rec = Recorder()
    up = _hop(lambda f: f.do_on_error(seen.append), rec)
    rec.subscription.cancel()
    up.fail(ValueError("late"))
    assert (seen, rec.ends) == ([], [])


def test_do_on_complete_runs_before_completion_and_a_raising_action_is_on_error() -> None:
    calls: list[str] = []

    class Rec(Recorder):
        def on_complete(self) -> None:
            calls.append("on_complete")
            super().on_complete()

    rec = Rec()
    up = _hop(lambda f: f.do_on_complete(lambda: calls.append("action")), rec)
    up.complete()
    assert calls == ["action", "on_complete"]

    def boom() -> None:
        raise KeyError("action")

    failing = Recorder()
    up = _hop(lambda f: f.do_on_complete(boom), failing)
    up.complete()
    assert failing.ends == ["error KeyError: 'action'"]


def test_do_on_complete_is_not_run_after_a_cancel_or_a_bad_request() -> None:
    calls: list[str] = []
    rec = Recorder()
    up = _hop(lambda f: f.do_on_complete(lambda: calls.append("action")), rec)
    rec.subscription.cancel()
    up.complete()
    bad = Recorder(0)
    up = _hop(lambda f: f.do_on_complete(lambda: calls.append("action")), bad)
    bad.subscription.request(-1)
    up.complete()
    assert calls == []
    assert len(bad.ends) == 1
    assert bad.ends[0].startswith("error ValueError: rule 3.9")


@pytest.mark.parametrize("end", ["complete", "error", "cancel"])
def test_do_finally_runs_once_after_the_end(end: str) -> None:
    calls: list[str] = []

    class Rec(Recorder):
        def on_complete(self) -> None:
            calls.append("on_complete")

        def on_error(self, error: BaseException) -> None:
            calls.append("on_error")

    rec = Rec()
    up = _hop(lambda f: f.do_finally(lambda: calls.append("finally")), rec)
    if end == "complete":
        up.complete()
    elif end == "error":
        up.fail(ValueError("x"))
    else:
        rec.subscription.cancel()
    rec.subscription.cancel()  # after the end: no second run
    up.complete()
    expected = {"complete": ["on_complete"], "error": ["on_error"], "cancel": []}[end]
    assert calls == [*expected, "finally"]


def test_do_finally_logs_a_raising_action(caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> None:
        raise KeyError("action")

    rec = Recorder()
    up = _hop(lambda f: f.do_finally(boom), rec)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        up.complete()
    assert rec.ends == ["complete"]
    assert [r.getMessage() for r in caplog.records] == ["do_finally action raised"]


@pytest.mark.parametrize(
    ("build", "pushed", "kept"),
    [
        (lambda f: f.distinct(), (1, 1, 2, 1), [1, 2]),
        (lambda f: f.distinct(lambda x: x % 2), (1, 3, 2, 4), [1, 2]),
        (lambda f: f.distinct_until_changed(), (1, 1, 2, 1), [1, 2, 1]),
        (lambda f: f.skip_while(lambda x: x < 3), (1, 2, 3, 1), [3, 1]),
    ],
    ids=["distinct", "distinct_key", "distinct_until_changed", "skip_while"],
)
def test_a_dropped_element_is_replaced_by_request_1_under_bounded_demand(
    build: Any, pushed: tuple[int, ...], kept: list[int]
) -> None:
    rec = Recorder(10)
    up = _hop(build, rec)
    up.push(*pushed)
    assert rec.values == kept
    assert up.requested == [10] + [1] * (len(pushed) - len(kept))
    unbounded = Recorder()
    up = _hop(build, unbounded)
    up.push(*pushed)
    assert unbounded.values == kept
    assert up.requested == [MAX]  # unbounded: nothing to replace


def test_distinct_until_changed_passes_the_first_element_whatever_its_key() -> None:
    rec = Recorder()
    up = _hop(lambda f: f.distinct_until_changed(lambda x: None), rec)
    up.push(1, 2)
    assert rec.values == [1]


@pytest.mark.parametrize(
    "build",
    [
        lambda f: f.distinct(lambda x: 1 // x),
        lambda f: f.distinct_until_changed(lambda x: 1 // x),
        lambda f: f.skip_while(lambda x: 1 // x),
    ],
    ids=["distinct", "distinct_until_changed", "skip_while"],
)
def test_a_raising_user_function_cancels_upstream_and_is_on_error(build: Any) -> None:
    rec = Recorder()
    up = _hop(build, rec)
    up.push(0)
    assert rec.ends == ["error ZeroDivisionError: integer division or modulo by zero"]
    assert up.cancelled


@pytest.mark.parametrize(
    "build",
    [lambda f: f.distinct(), lambda f: f.skip_last(1), lambda f: f.ignore_elements()],
    ids=["distinct", "skip_last", "ignore_elements"],
)
def test_elements_after_a_cancel_are_ignored(build: Any) -> None:
    rec = Recorder()
    up = _hop(build, rec)
    up.push(1, 2)
    rec.subscription.cancel()
    before = list(rec.values)
    up.push(3, 4)
    up.complete()
    assert (rec.values, rec.ends) == (before, [])


def test_ignore_elements_asks_for_everything_and_forwards_only_a_bad_request() -> None:
    rec = Recorder(5)
    up = _hop(lambda f: f.ignore_elements(), rec)
    up.push(1, 2)
    assert up.requested == [MAX]  # rule 3.17: at subscription, not downstream's 5
    rec.subscription.request(-1)
    assert up.requested == [MAX, -1]  # rule 3.9: upstream signals it
    up.complete()
    assert rec.values == []


def test_ignore_elements_forwards_a_request_of_0_for_upstream_to_answer() -> None:
    rec = Recorder(0)
    up = _hop(lambda f: f.ignore_elements(), rec)
    rec.subscription.request(0)
    assert up.requested == [MAX, 0]  # rule 3.9: 0 is no valid request either


def test_skip_last_asks_for_the_held_ones_and_passes_all_but_the_last() -> None:
    rec = Recorder(2)
    up = _hop(lambda f: f.skip_last(2), rec)
    assert up.requested == [2, 2]  # the held ones, then downstream's
    up.push(1, 2, 3, 4)
    up.complete()
    assert (rec.values, rec.ends) == ([1, 2], ["complete"])
