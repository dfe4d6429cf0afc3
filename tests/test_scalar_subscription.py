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
