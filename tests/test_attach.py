"""The contract of ``_core/attach.py``: a subscription slot set once against a racing
cancel (``Attach``) and a replaceable timer handle (``Slot``)."""

from __future__ import annotations

import threading

import pytest

from reactive_streams._core import schedpoints
from reactive_streams._core.attach import Attach, Slot
from reactive_streams._core.demand import MAX_DEMAND

pytestmark = pytest.mark.timeout(30)


class Recording:
    def __init__(self) -> None:
        self.requested: list[int] = []
        self.cancels = 0

    def request(self, n: int) -> None:
        self.requested.append(n)

    def cancel(self) -> None:
        self.cancels += 1


def test_requests_before_the_set_are_summed_and_forwarded_once_at_the_set() -> None:
    slot = Attach(early=3)
    slot.request(2)
    slot.request(5)
    upstream = Recording()
    assert slot.set(upstream)
    assert upstream.requested == [10]
    slot.request(4)
    assert upstream.requested == [10, 4]


def test_early_demand_saturates_at_max_demand() -> None:
    slot = Attach()
    slot.request(MAX_DEMAND)
    slot.request(MAX_DEMAND)  # rule 3.17: unbounded stays unbounded, never above
    upstream = Recording()
    slot.set(upstream)
    assert upstream.requested == [MAX_DEMAND]


def test_a_cancel_before_the_set_cancels_what_arrives_and_asks_nothing() -> None:
    slot = Attach(early=8)
    slot.cancel()
    upstream = Recording()
    assert not slot.set(upstream)
    assert upstream.cancels == 1
    assert upstream.requested == []
    slot.request(1)
    assert upstream.requested == []  # rule 3.6


def test_a_second_subscription_is_cancelled_and_the_first_kept() -> None:
    slot = Attach()
    first, second = Recording(), Recording()
    assert slot.set(first)
    assert not slot.set(second)
    assert second.cancels == 1
    assert first.cancels == 0
    slot.cancel()
    slot.cancel()
    assert first.cancels == 1  # rule 3.7: once


def test_an_invalid_request_before_the_set_is_answered_at_once() -> None:
    answers: list[str] = []
    slot = Attach(early=1, on_invalid=answers.append)
    slot.request(0)
    assert len(answers) == 1
    assert answers[0].startswith("rule 3.9")
    upstream = Recording()
    slot.set(upstream)
    assert upstream.requested == [1]  # the invalid request is never forwarded
    with pytest.raises(ValueError, match=r"rule 3\.9: .*got bool"):
        Attach().request(True)  # an owner with no answer of its own: the caller is told


def test_after_the_set_upstream_answers_an_invalid_request() -> None:
    answers: list[str] = []
    slot = Attach(on_invalid=answers.append)
    upstream = Recording()
    slot.set(upstream)
    slot.request(-1)
    assert upstream.requested == [-1]
    assert answers == []


def test_release_drops_the_subscription_without_a_cancel() -> None:
    slot = Attach()
    upstream = Recording()
    slot.set(upstream)
    slot.release()  # rule 2.4: it ended
    slot.cancel()
    slot.request(1)
    assert upstream.cancels == 0
    assert upstream.requested == []
    assert not slot.set(Recording())
    assert not slot.attached


def test_slot_swap_after_dispose_cancels_the_handle() -> None:
    slot: Slot[Recording] = Slot()
    first = Recording()
    assert slot.swap(first)
    slot.dispose()
    assert first.cancels == 1
    late = Recording()
    assert not slot.swap(late)
    assert late.cancels == 1
    assert slot.disposed


def test_slot_claim_is_set_once() -> None:
    slot: Slot[Recording] = Slot()
    one, two = Recording(), Recording()
    assert slot.claim(one)
    assert not slot.claim(two)
    assert two.cancels == 0  # refused, left to the caller


def test_set_and_cancel_are_scheduling_points() -> None:
    seen: list[tuple[str, object]] = []
    previous = schedpoints.install(lambda point, obj: seen.append((point, obj)))
    try:
        slot = Attach()
        timer: Slot[Recording] = Slot()
        slot.set(Recording())
        slot.cancel()
        timer.swap(Recording())
        timer.dispose()
    finally:
        schedpoints.install(previous)
    points = [(p, o) for p, o in seen if p.startswith("attach.")]
    assert points == [
        ("attach.set", slot),
        ("attach.cancel", slot),
        ("attach.set", timer),
        ("attach.cancel", timer),
    ]
    assert {"attach.set", "attach.cancel"} <= set(schedpoints.POINTS)


def _race_once() -> tuple[Recording, list[bool]]:
    """``set`` on one thread and ``cancel`` on another, released together."""
    slot = Attach(early=4)
    upstream = Recording()
    start = threading.Barrier(2, timeout=5)
    results: list[bool] = []

    def attach() -> None:
        start.wait()
        results.append(slot.set(upstream))

    thread = threading.Thread(target=attach)
    thread.start()
    start.wait()
    slot.cancel()
    thread.join(5)
    assert not thread.is_alive()
    return upstream, results


def test_a_set_racing_a_cancel_on_two_threads_always_ends_cancelled() -> None:
    for _ in range(200):
        upstream, results = _race_once()
        assert upstream.cancels == 1  # either refused at the set, or cancelled after it
        assert upstream.requested == ([4] if results == [True] else [])
