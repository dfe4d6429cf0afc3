"""The porting table of docs/coming-from-rxpy.md ("Same name, other signals"), pinned:
each row's input is run here and in reactivex side by side, and the outcomes must be
the ones the row shows, so neither the table nor either library can drift unnoticed.

An outcome is written as the signals in order: each element's ``repr`` (with ``at t``
in virtual time), then ``complete`` or the error's class name.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow

reactivex = pytest.importorskip("reactivex")
ops = pytest.importorskip("reactivex.operators")
testing = pytest.importorskip("reactivex.testing")

PAGE = Path(__file__).resolve().parent.parent / "docs" / "coming-from-rxpy.md"
SECTION = "## Same name, other signals"
BOUND = 10.0  # seconds for any real-time wait


def _outcome(events: list[str]) -> str:
    return ", ".join(events)


def _at(clock: float, text: str, timed: bool) -> str:
    return f"{text} at {clock:g}" if timed else text


def ours(flow: Flow[Any], clock: ManualExecutor | None = None) -> str:
    """The signals of ``flow`` (virtual time when ``clock`` is given)."""
    events: list[str] = []

    def now() -> float:
        return 0.0 if clock is None else round(clock.now(), 3)

    timed = clock is not None
    subscriber = flow.subscribe(
        lambda x: events.append(_at(now(), repr(x), timed)),
        lambda e: events.append(_at(now(), type(e).__name__, timed)),
        lambda: events.append(_at(now(), "complete", timed)),
    )
    if clock is not None:
        clock.advance_to(20)
    assert subscriber.done.wait(BOUND), f"not ended within {BOUND}s: {events}"
    return _outcome(events)


def theirs(observable: Any, scheduler: Any = None) -> str:
    """The signals of a reactivex ``observable`` (virtual time on a ``TestScheduler``)."""
    events: list[str] = []
    timed = scheduler is not None

    def now() -> float:
        return round(scheduler.clock, 3) if timed else 0.0

    observable.subscribe(
        lambda x: events.append(_at(now(), repr(x), timed)),
        lambda e: events.append(_at(now(), type(e).__name__, timed)),
        lambda: events.append(_at(now(), "complete", timed)),
        scheduler=scheduler,
    )
    if timed:
        scheduler.advance_to(20)
    return _outcome(events)


def _then_fail(flow: Flow[Any]) -> Flow[Any]:
    return flow.concat_with(Flow.defer(lambda: Flow.error(ValueError("boom"))))


def _rx_then_fail(observable: Any) -> Any:
    return observable.pipe(ops.concat(reactivex.throw(ValueError("boom"))))


def _retry_here() -> str:
    subscriptions = [0]

    def failing() -> Flow[int]:
        subscriptions[0] += 1
        return Flow.error(ValueError("boom"))

    signals = ours(Flow.defer(failing).retry(3))
    return f"{subscriptions[0]} subscriptions, {signals}"


def _retry_there() -> str:
    subscriptions = [0]

    def failing(scheduler: Any = None) -> Any:
        subscriptions[0] += 1
        return reactivex.throw(ValueError("boom"))

    signals = theirs(reactivex.defer(failing).pipe(ops.retry(3)))
    return f"{subscriptions[0]} subscriptions, {signals}"


def _virtual(build: Callable[[ManualExecutor], Flow[Any]]) -> str:
    clock = ManualExecutor()
    return ours(build(clock), clock)


def _rx_virtual(build: Callable[[Any], Any]) -> str:
    scheduler = testing.TestScheduler()
    return theirs(build(scheduler), scheduler)


def _one_then_quiet(c: ManualExecutor) -> Flow[int]:
    """0 at t=1, completion at t=5."""
    return Flow.merge(
        Flow.interval(1, scheduler=c).take(1), Flow.timer(5, scheduler=c).ignore_elements()
    )


def _rx_one_then_quiet(s: Any) -> Any:
    return reactivex.merge(
        reactivex.interval(1, scheduler=s).pipe(ops.take(1)),
        reactivex.timer(5, scheduler=s).pipe(ops.ignore_elements()),
    )


# the row's first cell -> (here, reactivex): each runs the row's input and shows it
ROWS: dict[str, tuple[Callable[[], str], Callable[[], str]]] = {
    "retry(3)": (_retry_here, _retry_there),
    "buffer_timeout(10, 2.2)": (
        lambda: _virtual(
            lambda c: Flow.interval(1, scheduler=c).take(5).buffer_timeout(10, 2.2, scheduler=c)
        ),
        lambda: _rx_virtual(
            lambda s: reactivex.interval(1, scheduler=s).pipe(
                ops.take(5), ops.buffer_with_time_or_count(2.2, 10, scheduler=s)
            )
        ),
    ),
    "buffer_timeout(10, 2)": (
        lambda: _virtual(lambda c: Flow.timer(5, scheduler=c).buffer_timeout(10, 2, scheduler=c)),
        lambda: _rx_virtual(
            lambda s: reactivex.timer(5, scheduler=s).pipe(
                ops.buffer_with_time_or_count(2, 10, scheduler=s)
            )
        ),
    ),
    "delay(0.5)": (
        lambda: _virtual(lambda c: _one_then_quiet(c).delay(0.5, scheduler=c)),
        lambda: _rx_virtual(lambda s: _rx_one_then_quiet(s).pipe(ops.delay(0.5, scheduler=s))),
    ),
    "reduce(add)": (
        lambda: ours(Flow.empty().reduce(operator.add)),
        lambda: theirs(reactivex.empty().pipe(ops.reduce(operator.add))),
    ),
    "zip": (
        lambda: ours(Flow.zip(_then_fail(Flow.just(1, 2)), Flow.just("a", "b", "c"))),
        lambda: theirs(
            reactivex.zip(_rx_then_fail(reactivex.of(1, 2)), reactivex.of("a", "b", "c"))
        ),
    ),
    "combine_latest": (
        lambda: ours(Flow.combine_latest(_then_fail(Flow.just(1)), Flow.just("a", "b"))),
        lambda: theirs(
            reactivex.combine_latest(_rx_then_fail(reactivex.of(1)), reactivex.of("a", "b"))
        ),
    ),
    "merge": (
        lambda: ours(Flow.merge(_then_fail(Flow.just(1, 2)), Flow.just(3, 4))),
        lambda: theirs(reactivex.merge(_rx_then_fail(reactivex.of(1, 2)), reactivex.of(3, 4))),
    ),
    "switch_map": (
        lambda: ours(Flow.just(1, 2, 3).switch_map(lambda x: Flow.just(x, 10 * x))),
        lambda: theirs(
            reactivex.of(1, 2, 3).pipe(ops.switch_map(lambda x: reactivex.of(x, 10 * x)))
        ),
    ),
    "map": (
        lambda: ours(Flow.just(1, 2).map(lambda x: None if x == 2 else x)),
        lambda: theirs(reactivex.of(1, 2).pipe(ops.map(lambda x: None if x == 2 else x))),
    ),
}


def table() -> dict[str, tuple[str, str]]:
    """The section's rows: first cell's code -> (here, reactivex) outcomes, each the
    first code span of its cell."""
    text = PAGE.read_text(encoding="utf-8")
    assert SECTION in text, f"{PAGE.name} has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, tuple[str, str]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        spans = [re.findall(r"`([^`]*)`", cell) for cell in cells]
        rows[spans[0][0]] = (spans[2][0], spans[3][0])
    return rows


def test_every_row_is_pinned_and_every_pin_has_its_row() -> None:
    assert sorted(table()) == sorted(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_the_row_shows_what_both_libraries_do(name: str) -> None:
    here, there = ROWS[name]
    documented = table()[name]
    assert (here(), there()) == documented
    assert documented[0] != documented[1], "a row shows a difference"
