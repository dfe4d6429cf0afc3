"""``log`` (operators/_log.py): every signal and call logged, everything passed on as
it is (demand, elements, errors, the cancel), the arguments named."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def test_each_signal_and_call_is_logged_in_order(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="reactive_streams.log")
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.just(1, 2).log("src").subscribe(ts)
    ts.assert_values(1, 2).assert_complete()
    assert [r.getMessage() for r in caplog.records] == [
        "src on_subscribe()",
        "src request(2)",
        "src on_next(1)",
        "src on_next(2)",
        "src on_complete()",
    ]


def test_errors_and_the_cancel_are_logged_and_passed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="custom")
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow(pub).log("p", logger=logging.getLogger("custom"), level=logging.DEBUG).subscribe(ts)
    pub.push(5)
    ts.cancel()
    assert pub.cancelled
    assert [r.getMessage() for r in caplog.records][-1] == "p cancel()"
    assert all(r.levelno == logging.DEBUG for r in caplog.records)
    ts2: TestSubscriber[Any] = TestSubscriber(1)
    Flow.error(KeyError("k")).log("e", logger=logging.getLogger("custom")).subscribe(ts2)
    ts2.assert_error(KeyError)
    assert "e on_error(KeyError('k'))" in [r.getMessage() for r in caplog.records]


def test_spec101_demand_passes_as_it_is() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow(pub).log().subscribe(ts)
    ts.request(3)
    ts.request(2)
    assert pub.requested == [3, 2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": 3}, "log: name must be a str"),
        ({"level": "INFO"}, "log: level must be a logging level"),
        ({"logger": "x"}, "log: logger must be a logging.Logger"),
    ],
)
def test_bad_arguments_are_refused_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Flow.just(1).log(**kwargs)
