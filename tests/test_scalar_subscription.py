"""``just(x)`` and a synchronous ``range`` of one are subscribed as a one-shot
``ScalarSubscription`` (no iterator, no batch): the protocol is still the core's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams import sources
from reactive_streams._core.pump import IteratorSubscription, ScalarSubscription
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.format import Header, write_trace
from reactive_streams.trace.validate import validate_files
from reactive_streams.tracing import tracing

PUBLISHERS = {"just": lambda: sources.just(7), "range": lambda: sources.range(7, 8)}


@pytest.mark.parametrize("name", sorted(PUBLISHERS))
def test_a_scalar_is_subscribed_without_an_iterator(name: str) -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    PUBLISHERS[name]().subscribe(ts)
    assert type(ts.subscription) is ScalarSubscription
    ts.assert_values().assert_no_terminal()  # rule 1.1: nothing without demand
    ts.request(5)
    ts.assert_values(7).assert_complete().assert_no_violations()


def test_a_longer_range_or_an_executor_keeps_the_iterator() -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    sources.range(7, 9).subscribe(ts)
    assert type(ts.subscription) is IteratorSubscription


def _raise(ts: TestSubscriber[Any], x: object) -> None:
    raise RuntimeError("subscriber fails")


KINDS: dict[str, Callable[[], TestSubscriber[Any]]] = {
    "bounded": lambda: TestSubscriber(1),
    "invalid_first": lambda: TestSubscriber(0, cancel_on_subscribe=False),
    "invalid_in_on_next": lambda: TestSubscriber(1, on_next_hook=lambda ts, x: ts.request(0)),
    "cancel": lambda: TestSubscriber(1, on_next_hook=lambda ts, x: ts.cancel()),
    "raise": lambda: TestSubscriber(1, on_next_hook=_raise),
    "cancel_on_subscribe": lambda: TestSubscriber(1, cancel_on_subscribe=True),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(PUBLISHERS))
def test_scalar_traces_are_accepted(tmp_path: Any, name: str, kind: str) -> None:
    logging.disable(logging.ERROR)
    try:
        with tracing() as tracer:
            ts = KINDS[kind]()
            PUBLISHERS[name]().subscribe(ts)
            if kind == "invalid_first":
                ts.request(0)
    finally:
        logging.disable(logging.NOTSET)
    assert {e.get("hop") for e in tracer.events if e["sig"] == "subscribe"} == {name}
    if kind.startswith("invalid"):
        ts.assert_error(ValueError)  # rule 3.9 wins over the completion
    elif kind == "bounded":
        ts.assert_values(7).assert_complete()
    else:
        ts.assert_no_terminal()
    path = tmp_path / "scalar.jsonl"
    write_trace(path, tracer.events, Header(mode="sync", quiescent=True))
    [verdict], _ = validate_files([path], use_tlc=False)
    assert verdict.ok, verdict.line()


def _signals(ts: TestSubscriber[Any]) -> list[tuple[str, str]]:
    return [(s.kind, repr(s.value)) for s in ts.signals if s.kind != "on_subscribe"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_untraced_scalar_signals_as_the_iterator_subscription_does(kind: str) -> None:
    """The one-shot fast path (``request`` in one lock hold, the first round inline)
    gives the signals of the general iterator subscription, for every subscriber kind."""
    logging.disable(logging.ERROR)
    try:
        runs = []
        for publisher in (sources.just(7), sources.range(7, 8), sources.from_iterable([7])):
            ts = KINDS[kind]()
            publisher.subscribe(ts)
            if kind == "invalid_first":
                ts.request(0)
            ts.request(3)  # after the end, or after a cancel: nothing (rules 3.6, 3.7)
            ts.assert_no_violations()
            runs.append(_signals(ts))
    finally:
        logging.disable(logging.NOTSET)
    assert runs[0] == runs[1] == runs[2]


def test_a_request_while_the_element_is_being_delivered_only_records_demand() -> None:
    """Rule 1.3: a request from another thread while ``on_next`` runs does not deliver
    (the drain is held); the element goes once, then completion, on the first thread."""
    import threading

    inside, release, second_done = threading.Event(), threading.Event(), threading.Event()

    def block(ts: TestSubscriber[Any], x: object) -> None:
        inside.set()
        assert release.wait(10)

    ts: TestSubscriber[int] = TestSubscriber(0, on_next_hook=block)
    sources.just(7).subscribe(ts)
    first = threading.Thread(target=ts.request, args=(1,))
    first.start()
    assert inside.wait(10)

    def second() -> None:
        ts.request(1)
        second_done.set()

    threading.Thread(target=second).start()
    assert second_done.wait(10)  # returned at once: it found the drain held
    assert ts.completions == 0
    release.set()
    first.join(10)
    assert not first.is_alive()
    ts.assert_values(7).assert_complete().assert_no_violations()


def test_a_request_arriving_as_the_first_round_ends_is_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request from another thread after the first round found no demand, before it
    leaves the drain: the subscribing thread serves it (the work it missed, rule 3.8)."""
    import threading

    from reactive_streams._core import serial as _serial

    ts: TestSubscriber[int] = TestSubscriber(0)
    fired: list[bool] = []

    def hook(point: str, obj: object) -> None:
        if point == "wip.leave" and not fired and type(obj) is ScalarSubscription:
            fired.append(True)
            other = threading.Thread(target=ts.request, args=(1,))
            other.start()
            other.join(10)
            fired.append(not other.is_alive())

    monkeypatch.setattr(_serial, "_sched_hook", hook)
    sources.just(7).subscribe(ts)
    assert fired == [True, True]
    ts.assert_values(7).assert_complete().assert_no_violations()
