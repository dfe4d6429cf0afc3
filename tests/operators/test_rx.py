"""The reactivex bridge: every strategy bounds what the Observable can push past demand."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.rx import BufferOverflowError, from_observable, to_observable
from reactive_streams.testing import TestSubscriber

reactivex = pytest.importorskip("reactivex")


@pytest.mark.parametrize(
    ("strategy", "values", "error"),
    [
        ("buffer", [0, 1, 2, 3, 4], True),
        ("drop", [0, 1], False),
        ("latest", [0, 1, 9], False),
        ("error", [0, 1], True),
    ],
)
def test_from_observable_strategies(strategy: str, values: list[int], error: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    from_observable(reactivex.from_iterable(range(10)), strategy, buffer_size=3).subscribe(ts)
    ts.request(5)
    ts.assert_values(*values).assert_no_violations()
    if error:
        ts.assert_error(BufferOverflowError)
    else:
        ts.assert_complete()


def test_from_observable_cancel_disposes() -> None:
    subject = reactivex.subject.Subject()
    ts: TestSubscriber[int] = TestSubscriber(10)
    from_observable(subject).subscribe(ts)
    subject.on_next(1)
    ts.cancel()
    subject.on_next(2)
    ts.assert_values(1).assert_no_terminal()
    assert not subject.observers


def test_to_observable_round_trip_and_dispose() -> None:
    out: list[int] = []
    to_observable(Flow.range(0, 4).map(lambda x: x + 1)).subscribe(out.append)
    assert out == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="strategy"):
        from_observable(reactivex.empty(), "unbounded")
