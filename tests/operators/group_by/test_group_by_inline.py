"""group_by's inline round: an element of an open group whose queue is empty goes to the
group's subscriber at once when it has demand, and waits in the queue otherwise (rule
1.1); a cancel or a raise inside that ``on_next`` takes effect at once (rules 3.12,
2.13)."""

from __future__ import annotations

from typing import Any

from reactive_streams import Flow
from reactive_streams.api import Subscription


class _GroupSink:
    """A group's subscriber: requests ``initial``; ``cancel_at``/``raise_at`` an element."""

    def __init__(self, initial: int, cancel_at: object = None, raise_at: object = None) -> None:
        self.initial = initial
        self.cancel_at = cancel_at
        self.raise_at = raise_at
        self.values: list[Any] = []
        self.ends: list[str] = []
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        self.subscription = subscription
        if self.initial:
            subscription.request(self.initial)

    def on_next(self, item: Any) -> None:
        self.values.append(item)
        if item == self.cancel_at and self.subscription is not None:
            self.subscription.cancel()
        if item == self.raise_at:
            raise RuntimeError("group consumer broke")

    def on_error(self, error: BaseException) -> None:
        self.ends.append(f"error {error}")

    def on_complete(self) -> None:
        self.ends.append("complete")


def _two_groups(sinks: dict[int, _GroupSink]) -> list[str]:
    """Each key's first group to ``sinks[key]``; a group reopened after a cancel (its
    key's next element) to a new sink that takes everything."""
    ends: list[str] = []

    def route(group: Any) -> None:
        group.subscribe(sinks.pop(group.key, None) or _GroupSink(2**63 - 1))

    Flow.range(0, 20).group_by(lambda x: x % 2).subscribe(
        route, lambda e: ends.append(f"error {e}"), lambda: ends.append("complete")
    )
    return ends


def test_a_group_gets_exactly_its_demand_then_the_rest_on_request() -> None:
    even, odd = _GroupSink(3), _GroupSink(2**63 - 1)
    _two_groups({0: even, 1: odd})
    assert even.values == [0, 2, 4]
    assert odd.values == list(range(1, 20, 2))
    assert even.subscription is not None
    even.subscription.request(1)
    assert even.values == [0, 2, 4, 6]
    even.subscription.request(2**63 - 1)
    assert even.values == list(range(0, 20, 2))
    assert even.ends == ["complete"]


def test_a_group_with_no_demand_gets_nothing_until_it_requests() -> None:
    even, odd = _GroupSink(0), _GroupSink(2**63 - 1)
    _two_groups({0: even, 1: odd})
    assert even.values == []
    assert even.subscription is not None
    even.subscription.request(2)
    assert even.values == [0, 2]


def test_a_cancel_inside_a_group_on_next_stops_that_group_at_once() -> None:
    even, odd = _GroupSink(2**63 - 1, cancel_at=6), _GroupSink(2**63 - 1)
    ends = _two_groups({0: even, 1: odd})
    assert even.values == [0, 2, 4, 6]
    assert even.ends == []
    assert odd.values == list(range(1, 20, 2))
    assert ends == ["complete"]


def test_a_raise_inside_a_group_on_next_cancels_that_group() -> None:
    even, odd = _GroupSink(2**63 - 1, raise_at=4), _GroupSink(2**63 - 1)
    _two_groups({0: even, 1: odd})
    assert even.values == [0, 2, 4]
    assert even.ends == []
    assert odd.values == list(range(1, 20, 2))
