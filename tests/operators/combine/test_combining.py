"""combine_latest, with_latest_from, switch_map, group_by, window_timeout and retry with a
backoff (issue 24): values in virtual time (marbles on a ``ManualExecutor``, no sleeping),
demand asked upstream, argument checks, and the rule 3.9 error never retried."""

from __future__ import annotations

import gc
import itertools
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.operators import Backoff
from reactive_streams.testing import (
    AutoClock,
    TestSubscriber,
    TimedSubscriber,
    expect_marbles,
    marbles,
)

from .. import test_hop_traces as hop_traces

MAX = 2**63 - 1


@pytest.fixture
def ex() -> ManualExecutor:
    return ManualExecutor()


def _cat(*values: Any) -> str:
    return "".join(map(str, values))


# ---------------------------------------------------------------- combine_latest
def test_combine_latest_emits_on_every_arrival_once_all_have_a_value(ex: ManualExecutor) -> None:
    a = marbles("-a--b---c|", scheduler=ex)
    b = marbles("--1---2|", scheduler=ex)
    expect_marbles(
        Flow.combine_latest(a, b, combiner=_cat),
        "--x-y-z-w|",
        scheduler=ex,
        values={"x": "a1", "y": "b1", "z": "b2", "w": "c2"},
    )


def test_combine_latest_completes_at_once_when_a_source_is_empty(ex: ManualExecutor) -> None:
    expect_marbles(
        Flow.combine_latest(marbles("-a-b|", scheduler=ex), marbles("--|", scheduler=ex)),
        "--|",
        scheduler=ex,
    )


def test_combine_latest_waits_for_demand_and_consumes_lonely_arrivals(ex: ManualExecutor) -> None:
    asked: list[int] = []
    ts: TestSubscriber[Any] = TestSubscriber(0)
    left = Flow.range(0, 3).do_on_request(asked.append)
    Flow.combine_latest(left, Flow.just("x"), prefetch=2).subscribe(ts)
    # 0 and 1 had no partner (consumed without demand, replenished): 2 waits with "x"
    assert ts.values == []
    assert asked == [2, 2]
    ts.request(1)
    assert ts.values == [(2, "x")]
    assert ts.completions == 1


def test_combine_latest_combiner_raising_is_on_error() -> None:
    def boom(*values: Any) -> Any:
        raise KeyError("combiner")

    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow.combine_latest(Flow.just(1), Flow.just(2), combiner=boom).subscribe(ts)
    ts.assert_error(KeyError)


# ------------------------------------------------------------- with_latest_from
def test_with_latest_from_drops_elements_before_the_other_has_one(ex: ManualExecutor) -> None:
    main = marbles("-a-b--c|", scheduler=ex)
    other = marbles("--1-2-----|", scheduler=ex)
    expect_marbles(
        main.with_latest_from(other, combiner=_cat),
        "---x--y|",
        scheduler=ex,
        values={"x": "b1", "y": "c2"},
    )


def test_with_latest_from_asks_main_for_its_prefetch_and_replenishes() -> None:
    asked: list[int] = []
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.range(0, 10).do_on_request(asked.append).with_latest_from(
        Flow.just("o"), prefetch=4
    ).subscribe(ts)
    assert asked == [4]
    ts.request(3)
    assert ts.values == [(0, "o"), (1, "o"), (2, "o")]
    assert asked == [4, 3]  # 75 % of 4 consumed: 3 more
    ts.request(100)
    assert len(ts.values) == 10
    assert ts.completions == 1


# ------------------------------------------------------------------ switch_map
def test_switch_map_mirrors_the_latest_inner_only(ex: ManualExecutor) -> None:
    inners = {
        "a": marbles("-1-2-3|", scheduler=ex),
        "b": marbles("-4-5|", scheduler=ex),
    }
    expect_marbles(
        marbles("-a--b|", scheduler=ex).switch_map(lambda k: inners[k]),
        "--1--4-5|",
        scheduler=ex,
    )


def test_switch_map_cancels_the_former_inner_and_drops_its_queue() -> None:
    cancelled: list[str] = []
    ts: TestSubscriber[Any] = TestSubscriber(0)

    def inner(x: int) -> Flow[int]:
        return Flow.range(10 * x, 10 * x + 3).do_on_cancel(lambda: cancelled.append(str(x)))

    Flow.range(0, 3).switch_map(inner, prefetch=2).subscribe(ts)
    assert cancelled == ["0", "1"]  # each new element cancelled the former inner
    ts.request(10)
    assert ts.values == [20, 21, 22]
    assert ts.completions == 1


def test_switch_map_replenishes_the_inner_at_75_percent() -> None:
    asked: list[int] = []
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow.just(0).switch_map(
        lambda _: Flow.range(0, 10).do_on_request(asked.append), prefetch=4
    ).subscribe(ts)
    assert ts.values == list(range(10))
    assert ts.completions == 1
    assert asked[0] == 4
    assert set(asked[1:]) == {3}


def test_switch_map_inner_error_ends_the_stream() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow.range(0, 3).switch_map(lambda x: Flow.error(KeyError(x))).subscribe(ts)
    ts.assert_error(KeyError)


# -------------------------------------------------------------------- group_by
def test_group_by_splits_by_key_and_groups_keep_their_order() -> None:
    out = (
        Flow.range(0, 9)
        .group_by(lambda x: x % 3)
        .flat_map(lambda g: g.map(lambda v: (g.key, v)))
        .to_list(timeout=10)
    )
    for key in range(3):
        assert [v for k, v in out if k == key] == [v for v in range(9) if v % 3 == key]


def test_group_by_past_max_groups_is_an_error_naming_it() -> None:
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow.range(0, 5).group_by(lambda x: x, max_groups=2).flat_map(lambda g: g).subscribe(ts)
    ts.assert_error(ValueError)
    assert ts.values == [0, 1]
    assert "past max_groups=2" in str(ts.errors[0])


def test_group_by_a_cancelled_group_frees_its_slot() -> None:
    out = (
        Flow.range(0, 6)
        .group_by(lambda x: x % 2, max_groups=1)
        .flat_map(lambda g: g.take(1), max_concurrency=1)
        .to_list(timeout=10)
    )
    assert out == [0, 1, 2, 3, 4, 5]  # each group closes after one element


def test_group_by_asks_upstream_for_prefetch_and_replenishes_as_groups_consume() -> None:
    asked: list[int] = []
    groups: TestSubscriber[Any] = TestSubscriber(1)
    Flow.range(0, 20).do_on_request(asked.append).group_by(lambda x: 0, prefetch=4).subscribe(
        groups
    )
    assert asked == [4]
    assert len(groups.values) == 1
    inner: TestSubscriber[Any] = TestSubscriber(0)
    groups.values[0].subscribe(inner)
    inner.request(3)
    assert inner.values == [0, 1, 2]
    assert asked == [4, 3]
    inner.request(100)
    assert inner.values == list(range(20))
    assert inner.completions == 1
    assert sum(asked) <= 20 + 4


def test_group_by_a_group_allows_one_subscriber() -> None:
    groups: TestSubscriber[Any] = TestSubscriber(MAX)
    Flow.just(1).group_by(lambda x: x).subscribe(groups)
    group = groups.values[0]
    first: TestSubscriber[Any] = TestSubscriber(MAX)
    second: TestSubscriber[Any] = TestSubscriber(MAX)
    group.subscribe(first)
    group.subscribe(second)
    assert first.values == [1]
    assert first.completions == 1
    second.assert_error(ValueError)


# --------------------------------------------------------------- window_timeout
def test_window_timeout_emits_windows_full_or_timed(ex: ManualExecutor) -> None:
    ts: TimedSubscriber[Any] = TimedSubscriber(ex)
    source = marbles("-abc-d----ef|", scheduler=ex)
    source.window_timeout(3, 3.0, scheduler=ex).flat_map(lambda w: w.collect()).subscribe(ts)
    ex.advance_by(20.0)
    assert ts.timeline == [
        (3.0, "on_next", ["a", "b", "c"]),
        (8.0, "on_next", ["d"]),
        (12.0, "on_next", ["e", "f"]),
        (12.0, "on_complete", None),
    ]


def test_window_timeout_asks_n_per_window(ex: ManualExecutor) -> None:
    asked: list[int] = []
    ts: TestSubscriber[Any] = TestSubscriber(2)
    marbles("-abcd", scheduler=ex).do_on_request(asked.append).window_timeout(
        2, 5.0, scheduler=ex
    ).subscribe(ts)
    ex.advance_by(10.0)
    assert asked == [4]
    assert len(ts.values) == 2
    assert [w.to_list(timeout=5) for w in ts.values] == [["a", "b"], ["c", "d"]]


def test_window_timeout_cancel_cancels_its_timer(ex: ManualExecutor) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    marbles("-a--------", scheduler=ex).window_timeout(5, 3.0, scheduler=ex).subscribe(ts)
    ex.advance_by(2.0)
    assert ex.scheduled
    ts.cancel()
    ex.advance_by(0.0)
    assert not ex.scheduled


# ----------------------------------------------------------------------- retry
class _Attempts:
    """A cold source whose every subscription is recorded with the requests it gets:
    attempt i emits ``fails_after[i]`` elements (when asked), then fails."""

    def __init__(self, fails_after: list[int]) -> None:
        self.fails_after = fails_after
        self.requests: list[list[int]] = []
        self.subscribed_at: list[float] = []

    def flow(self, clock: ManualExecutor | None = None) -> Flow[int]:
        def make() -> Flow[int]:
            attempt = len(self.requests)
            asked: list[int] = []
            self.requests.append(asked)
            self.subscribed_at.append(clock.now() if clock is not None else 0.0)
            n = self.fails_after[attempt] if attempt < len(self.fails_after) else 10**6
            head = Flow.range(100 * attempt, 100 * attempt + n)
            tail: Flow[int] = Flow.error(OSError(f"attempt {attempt}"))
            if attempt >= len(self.fails_after):
                tail = Flow.empty()
            return head.concat_with(tail).do_on_request(asked.append)

        return Flow.defer(make)


def test_retry_resubscribes_with_the_outstanding_demand_only() -> None:
    source = _Attempts([2, 1])
    ts: TestSubscriber[Any] = TestSubscriber(0)
    source.flow().retry(3).take(6).subscribe(ts)
    ts.request(5)
    assert ts.values == [0, 1, 100, 200, 201]
    # 5 asked; 2 delivered, 3 asked again; 1 delivered, 2 asked again: never more
    assert source.requests == [[5], [3], [2]]
    ts.request(1)
    assert ts.values == [0, 1, 100, 200, 201, 202]
    assert ts.completions == 1
    assert [sum(r) for r in source.requests] == [5, 3, 3]


def test_retry_backoff_waits_in_virtual_time(ex: ManualExecutor) -> None:
    source = _Attempts([1, 1, 1])
    ts: TimedSubscriber[Any] = TimedSubscriber(ex)
    source.flow(ex).retry(3, backoff=Backoff(0.1, factor=2, max=0.3), scheduler=ex).take(
        4
    ).subscribe(ts)
    assert len(source.requests) == 1
    ex.advance_by(0.09)
    assert len(source.requests) == 1  # the first wait is 0.1 s
    ex.advance_by(1.0)
    assert ts.values == [0, 100, 200, 300]
    assert ts.completions == 1
    at = source.subscribed_at
    waits = [round(b - a, 9) for a, b in itertools.pairwise(at)]
    assert waits == [0.1, 0.2, 0.3]  # 0.1, 0.1 * 2, then capped at max
    assert not ex.scheduled


def test_retry_backoff_gives_up_after_times() -> None:
    ex = ManualExecutor()
    source = _Attempts([0, 0, 0, 0])
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    source.flow(ex).retry(2, backoff=Backoff(1.0), scheduler=ex).subscribe(ts)
    ex.advance_by(100.0)
    ts.assert_error(OSError)
    assert len(source.requests) == 3


def test_retry_cancel_during_the_backoff_cancels_the_timer(ex: ManualExecutor) -> None:
    source = _Attempts([0, 0])
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    source.flow(ex).retry(5, backoff=Backoff(1.0), scheduler=ex).subscribe(ts)
    assert ex.scheduled == 1
    ts.cancel()
    assert not ex.scheduled
    ex.advance_by(10.0)
    assert len(source.requests) == 1  # rule 3.12: no resubscription after the cancel


def test_retry_does_not_retry_the_rule_3_9_error(ex: ManualExecutor) -> None:
    for flow in (
        Flow.range(0, 10).concat_with(Flow.error(OSError())),
        Flow.range(0, 10),
    ):
        subscribed: list[int] = []

        def make(f: Flow[int] = flow, seen: list[int] = subscribed) -> Flow[int]:
            seen.append(1)
            return f

        counted = Flow.defer(make)
        ts: TestSubscriber[Any] = TestSubscriber(0)
        counted.retry(5, backoff=Backoff(1.0), scheduler=ex).subscribe(ts)
        ts.request(-1)
        ex.advance_by(10.0)
        ts.assert_error(ValueError)
        assert "rule 3.9" in str(ts.errors[0])
        assert subscribed == [1]


def test_retry_backoff_drops_its_subscriber_after_the_end(ex: ManualExecutor) -> None:
    ts: TestSubscriber[Any] = TestSubscriber(MAX)
    ref = weakref.ref(ts)
    Flow.error(OSError()).retry(1, backoff=Backoff(1.0), scheduler=ex).subscribe(ts)
    ex.advance_by(5.0)
    ts.assert_error(OSError)
    del ts
    gc.collect()
    assert ref() is None  # rule 3.13


# -------------------------------------------------------------- argument checks
NOT: Any = 3  # neither a Publisher nor a callable


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Flow.combine_latest(), "publishers must not be empty"),
        (lambda: Flow.combine_latest(Flow.just(1), NOT), "argument 2 is not a Publisher"),
        (lambda: Flow.combine_latest(Flow.just(1), combiner=NOT), "combiner must be callable"),
        (lambda: Flow.just(1).with_latest_from(), "others must not be empty"),
        (lambda: Flow.just(1).switch_map(NOT), "fn must be callable"),
        (lambda: Flow.just(1).switch_map(Flow.just, prefetch=0), "prefetch"),
        (lambda: Flow.just(1).group_by(NOT), "key must be callable"),
        (lambda: Flow.just(1).group_by(str, max_groups=0), "max_groups"),
        (lambda: Flow.just(1).window_timeout(0, 1.0), "window_timeout count"),
        (lambda: Flow.just(1).window_timeout(2, 0), "seconds must be > 0"),
        (lambda: Flow.just(1).retry(2, backoff=0.1), "backoff must be a Backoff"),  # type: ignore[arg-type]
        (lambda: Flow.just(1).retry(2, scheduler=ManualExecutor()), "scheduler is used only"),
        (lambda: Backoff(-1.0), "first must be >= 0"),
        (lambda: Backoff(1.0, factor=0.5), "factor must be >= 1"),
    ],
)
def test_arguments_are_checked_naming_the_argument(
    build: Callable[[], object], message: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        build()


# ------------------------------------------ every new hop traced, rule 3.9 answered
def _auto() -> ManualExecutor:
    return AutoClock()


NEWER: dict[str, Callable[[Flow[int]], Flow[Any]]] = {
    "combine_latest": lambda f: Flow.combine_latest(f, Flow.range(10, 12), prefetch=2),
    "with_latest_from": lambda f: f.with_latest_from(Flow.just(9), prefetch=2),
    "switch_map": lambda f: f.switch_map(lambda x: Flow.range(0, x), prefetch=2),
    "group_by": lambda f: f.group_by(lambda x: x % 2, prefetch=2).flat_map(lambda g: g),
    "window_timeout": lambda f: f.window_timeout(2, 1.0, scheduler=_auto()).concat_map(lambda w: w),
    "retry_backoff": lambda f: hop_traces._fails_once(f).retry(
        3, backoff=Backoff(1.0), scheduler=_auto()
    ),
}


@pytest.mark.parametrize("kind", sorted(hop_traces.SUBSCRIBERS))
@pytest.mark.parametrize("name", sorted(NEWER))
def test_every_new_hop_trace_is_accepted(
    tmp_path: Path,
    name: str,
    kind: str,
    fusion: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(hop_traces.CATALOGUE, name, NEWER[name])
    unused: Any = None  # the catalogue's test takes caplog and does not use it
    hop_traces.test_every_hop_trace_is_accepted(tmp_path, name, kind, fusion, unused)


@pytest.mark.parametrize("at", ["on_subscribe", "on_next"])
@pytest.mark.parametrize("name", sorted(NEWER))
def test_an_invalid_request_ends_every_newer_operator_with_the_rule_3_9_error(
    name: str, at: str, fusion: bool
) -> None:
    class Invalid(TestSubscriber[Any]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            self.request(0 if at == "on_subscribe" else 1)

    ts = Invalid(0, on_next_hook=lambda t, x: t.request(-1))
    executors: list[ManualExecutor] = []
    real = AutoClock.__init__

    def record(self: AutoClock) -> None:
        real(self)
        executors.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AutoClock, "__init__", record)
        NEWER[name](Flow.range(5)).subscribe(ts)
    for ex in executors:
        while len(ex) and not ts.terminated:
            ex.run_next()
    ts.assert_error(ValueError).assert_no_violations()
    assert str(ts.errors[0]).startswith("rule 3.9"), ts.errors
    assert len(ts.values) <= 1


def test_backoff_delay_grows_then_stays_at_its_cap_even_after_many_attempts() -> None:
    backoff = Backoff(0.5, factor=3.0, max=10.0)
    assert [backoff.delay(i) for i in (1, 2, 3, 4)] == [0.5, 1.5, 4.5, 10.0]
    assert backoff.delay(5000) == 10.0  # 3.0 ** 4999 overflows a float


def test_group_by_main_cancelled_keeps_open_groups_and_drops_new_keys() -> None:
    cancelled: list[int] = []
    out = (
        Flow.range(0, 10)
        .do_on_cancel(lambda: cancelled.append(1))
        .group_by(lambda x: x % 3, prefetch=2)
        .take(1)  # cancels the main subscription after the first group
        .flat_map(lambda g: g)
        .to_list(timeout=10)
    )
    assert out == [0, 3, 6, 9]  # group 0 whole; keys 1 and 2 opened no group
    assert cancelled == []  # upstream ran to its end for the open group
