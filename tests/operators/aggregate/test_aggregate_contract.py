"""buffer, reduce, fold (operators/_aggregate.py): buffer's requests upstream (n * count,
saturating at rule 3.17's bound), its last short list, and reduce's rule 2.13 error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher, traced_hops

MAX = 2**63 - 1


def test_buffer_asks_count_per_list_and_saturates() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[list[int]] = TestSubscriber(0)
    Flow(pub).buffer(3).subscribe(ts)
    ts.request(1)
    ts.request(2)
    ts.request(MAX // 2)
    assert pub.requested == [3, 6, MAX]  # rule 3.17: n * count saturates


def test_buffer_emits_full_lists_then_the_short_last_one() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[list[int]] = TestSubscriber(5)
    Flow(pub).buffer(2).subscribe(ts)
    pub.push(1, 2, 3, 4, 5)
    ts.assert_values([1, 2], [3, 4]).assert_no_terminal()
    pub.complete()
    ts.assert_values([1, 2], [3, 4], [5]).assert_complete()


def test_buffer_completes_without_an_empty_list() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[list[int]] = TestSubscriber(5)
    Flow(pub).buffer(2).subscribe(ts)
    pub.push(1, 2)
    pub.complete()
    ts.assert_values([1, 2]).assert_complete()


def test_buffer_cancelled_sends_no_tail_at_completion() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[list[int]] = TestSubscriber(5)
    Flow(pub).buffer(3).subscribe(ts)
    pub.push(1)
    ts.cancel()
    pub.complete()
    ts.assert_values().assert_no_terminal()
    assert pub.cancelled


def test_spec309_buffer_invalid_request_from_the_last_list_is_not_passed_upstream() -> None:
    class _BadRequestInTail(TestSubscriber[list[int]]):
        def on_next(self, item: list[int]) -> None:
            super().on_next(item)
            self.request(0)  # rule 3.9: invalid

    pub = PushPublisher()
    ts = _BadRequestInTail(1)
    Flow(pub).buffer(3).subscribe(ts)
    pub.push(1)
    pub.complete()
    assert pub.requested == [3]  # upstream has ended: nothing more goes to it
    ts.assert_values([1]).assert_error(ValueError)


def test_spec309_buffer_invalid_request_goes_upstream_while_it_is_active() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[list[int]] = TestSubscriber(0)
    Flow(pub).buffer(3).subscribe(ts)
    ts.request(-1)
    assert pub.requested == [-1]  # rule 3.9: upstream signals the error too


def test_spec213_reduce_to_none_is_the_rule_213_error_and_cancels_upstream() -> None:
    pub = PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow(pub).reduce(lambda a, b: None).subscribe(ts)
    pub.push(1, 2)
    assert pub.cancelled
    ts.assert_values().assert_error(TypeError)
    assert str(ts.errors[0]) == "rule 2.13: a publisher must not signal on_next(None)"


def test_reduce_and_fold_emit_one_value_under_demand() -> None:
    ops: list[tuple[Callable[[Flow[int]], Flow[int]], int]] = [
        (lambda f: f.reduce(lambda a, b: a + b), 6),
        (lambda f: f.fold(lambda a, b: a + b, 10), 16),
    ]
    for flow, expected in ops:
        pub = PushPublisher()
        ts: TestSubscriber[int] = TestSubscriber(0)
        flow(Flow(pub)).subscribe(ts)
        pub.push(1, 2, 3)
        pub.complete()
        ts.assert_no_terminal()
        ts.request(1)
        ts.assert_values(expected).assert_complete()


def test_reduce_of_nothing_completes_empty_and_fold_gives_its_initial() -> None:
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.from_iterable([]).reduce(lambda a, b: a + b).subscribe(ts)
    ts.assert_values().assert_complete()
    ts2: TestSubscriber[int] = TestSubscriber(1)
    Flow.from_iterable([]).fold(lambda a, b: a + b, 7).subscribe(ts2)
    ts2.assert_values(7).assert_complete()


def test_reduce_and_fold_name_themselves_in_the_trace() -> None:
    def run() -> None:
        Flow.just(1, 2).reduce(lambda a, b: a + b).subscribe(TestSubscriber(1))
        Flow.just(1, 2).fold(lambda a, b: a + b, 0).subscribe(TestSubscriber(1))

    assert traced_hops(run) == ["reduce", "just", "fold", "just"]
