"""take, skip, take_while: counts, requests capped (1.1), early completion cancels upstream."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import Probe


def test_take_caps_upstream_requests_to_the_count() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2**63 - 1)
    probe.source(range(100)).take(3).subscribe(ts)
    ts.assert_values(0, 1, 2).assert_complete()
    assert probe.requests == [3]
    assert probe.cancelled == 1


def test_spec101_take_under_small_requests() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(2)
    probe.source(range(100)).take(3).subscribe(ts)
    ts.assert_values(0, 1).assert_no_terminal()
    ts.request(5)
    ts.assert_values(0, 1, 2).assert_complete()
    assert probe.requests == [2, 1]


def test_take_zero_completes_without_demand(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow.range(0, 10).take(0).subscribe(ts)
    ts.assert_values().assert_complete()


def test_take_shorter_source_completes(fusion: bool) -> None:
    assert Flow.range(0, 2).take(5).to_list() == [0, 1]


def test_skip_drops_the_first_elements(fusion: bool) -> None:
    ts: TestSubscriber[int] = TestSubscriber(2)
    Flow.range(0, 6).skip(3).subscribe(ts)
    ts.assert_values(3, 4).assert_no_terminal()
    ts.request(10)
    ts.assert_values(3, 4, 5).assert_complete()


def test_take_while_completes_at_first_failure_and_cancels() -> None:
    probe = Probe()
    ts: TestSubscriber[int] = TestSubscriber(100)
    probe.source(range(10)).take_while(lambda x: x < 3).subscribe(ts)
    ts.assert_values(0, 1, 2).assert_complete()
    assert probe.cancelled == 1


def test_take_while_predicate_raising_fails() -> None:
    ts: TestSubscriber[int] = TestSubscriber(100)
    Flow.range(0, 10).take_while(lambda x: 1 // (2 - x) >= 0).subscribe(ts)
    ts.assert_values(0, 1).assert_error(ZeroDivisionError)


def test_invalid_counts_are_rejected() -> None:
    with pytest.raises(ValueError, match="count"):
        Flow.range(0, 1).take(-1)
    with pytest.raises(ValueError, match="count"):
        Flow.range(0, 1).skip(-2)
