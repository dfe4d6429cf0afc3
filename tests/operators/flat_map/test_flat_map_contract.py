"""flat_map's contract at the edges its other tests leave open (issue 27: mutation
survivors): pulled inners longer than one pull batch, an inner's bad ``on_error``,
``items`` answers taken without their iterator, the direct path's cancel and completion
from inside ``on_next``, and the windows another thread can hit (forced here, on one
thread, by a lock that runs the other thread's call at the point it names)."""

from __future__ import annotations

import logging
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow
from reactive_streams.operators import SyncSource, fusion

from .._util import PushPublisher, Recorder

pytestmark = pytest.mark.timeout(60)


def _counted(n: int, pulled: list[int], fail: bool = False) -> Iterator[int]:
    """0 .. n-1 as a generator (no exact length), each recorded as it is pulled."""
    for x in range(n):
        pulled.append(x)
        yield x
    if fail:
        raise ValueError("boom")


def _pulled_flow(
    up: PushPublisher, n: int, prefetch: int, pulled: list[int], fail: bool = False
) -> Flow[int]:
    with fusion(True):
        return Flow(up).flat_map(
            lambda _: Flow.from_iterable(_counted(n, pulled, fail)), 1, prefetch
        )


# ------------------------------------------------------------- pulled inners


def test_an_inner_is_pulled_exactly_prefetch_ahead_across_pull_batches() -> None:
    # 513 = 256 (one batch) + 257: the rest of the first request takes two more pulls
    pulled: list[int] = []
    up = PushPublisher()
    rec = Recorder(initial=0)
    _pulled_flow(up, 2000, 513, pulled).subscribe(rec)
    up.push(0)
    assert len(pulled) == 513  # rule 3.17: the inner's first request(prefetch), no more
    assert rec.values == []
    rec.subscription.request(5)
    assert rec.values == [0, 1, 2, 3, 4]


def test_an_inner_that_ends_within_its_first_request_completes() -> None:
    pulled: list[int] = []
    up = PushPublisher()
    rec = Recorder()
    _pulled_flow(up, 400, 513, pulled).subscribe(rec)
    up.push(0)
    up.complete()
    assert rec.values == list(range(400))
    assert rec.ends == ["complete"]  # rule 1.5: the inner's end, then upstream's
    assert up.requested == [1, 1]  # the completed inner is replenished (limit 1)


def test_an_inner_failing_in_a_replenishing_pull_signals_its_own_error() -> None:
    pulled: list[int] = []
    up = PushPublisher()
    rec = Recorder()
    _pulled_flow(up, 10, 4, pulled, fail=True).subscribe(rec)
    up.push(0)
    assert rec.values == list(range(10))
    assert rec.ends == ["error ValueError: boom"]  # rule 1.4: after its elements
    assert up.cancelled


@pytest.mark.parametrize("side", ["upstream", "inner"])
def test_an_on_error_none_raises_rule_2_13(side: str) -> None:
    up = PushPublisher()
    inner = PushPublisher()
    rec = Recorder()
    Flow(up).flat_map(lambda _: inner).subscribe(rec)
    up.push(0)
    source = up if side == "upstream" else inner
    assert source.subscriber is not None
    with pytest.raises(TypeError) as raised:
        source.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"


def test_a_subscribed_inner_is_replenished_after_three_quarters_of_prefetch() -> None:
    up = PushPublisher()
    inner = PushPublisher()
    rec = Recorder(2)
    Flow(up).flat_map(lambda _: inner, 1, 4).subscribe(rec)
    up.push(0)
    inner.push(10, 11)
    assert (rec.values, inner.requested) == ([10, 11], [4])
    rec.subscription.request(1)
    inner.push(12)
    assert (rec.values, inner.requested) == ([10, 11, 12], [4, 3])  # rule 3.17: 75 % of 4


class _Items:
    """A synchronous source answering ``items`` (or ``scalar`` for one element): its
    elements are ``value``, so flat_map never needs its iterator (``factories`` counts the
    iterators asked for)."""

    kind = "items"

    def __init__(self, *items: int) -> None:
        self.items = items
        self.factories = 0

    def __rs_sync__(self) -> SyncSource:
        if self.kind == "scalar":
            return SyncSource(self._factory, "scalar", self.items[0], nulls=None)
        return SyncSource(self._factory, "items", self.items, nulls=None)

    def _factory(self) -> Iterator[int]:
        self.factories += 1
        return iter(self.items)

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        Flow.from_iterable(self.items).subscribe(subscriber)


def test_an_items_answer_as_long_as_prefetch_is_taken_without_its_iterator() -> None:
    up = PushPublisher()
    inner = _Items(1, 2, 3)
    rec = Recorder()
    with fusion(True):
        Flow(up).flat_map(lambda _: inner, 4, 3).subscribe(rec)
    up.push(0)
    up.complete()
    assert (rec.values, rec.ends) == ([1, 2, 3], ["complete"])
    assert inner.factories == 0


class _Scalar(_Items):
    kind = "scalar"


def test_a_scalar_answer_is_taken_without_its_iterator() -> None:
    up = PushPublisher()
    inner = _Scalar(5)
    rec = Recorder()
    with fusion(True):
        Flow(up).flat_map(lambda _: inner).subscribe(rec)
    up.push(0)
    up.complete()
    assert (rec.values, rec.ends) == ([5], ["complete"])
    assert inner.factories == 0


# ------------------------------------------------- the direct path (whole inners)


def test_a_cancel_from_on_next_on_the_direct_path_reaches_upstream() -> None:
    up = PushPublisher()
    rec = Recorder(10, act=lambda _: rec.subscription.cancel())
    with fusion(True):
        Flow(up).flat_map(lambda _: Flow.range(0, 3)).subscribe(rec)
    up.push(0)
    assert rec.values == [0]  # rule 3.12: emission stops
    assert up.cancelled  # rule 3.13
    assert rec.ends == []


def test_upstream_completing_from_on_next_on_the_direct_path_completes() -> None:
    up = PushPublisher()
    rec = Recorder(10, act=lambda _: up.complete())
    with fusion(True):
        Flow(up).flat_map(lambda _: Flow.just(7)).subscribe(rec)
    up.push(0)
    assert (rec.values, rec.ends) == ([7], ["complete"])  # rule 1.5


# ------------------------------------------------------ another thread's window


class _WindowLock:
    """The drain's lock; once, where the ``with`` in a function named like ``frames[0]``
    (called from one named like ``frames[1]``...) enters or exits it, runs ``action``: the
    call another thread could make just then, made deterministic."""

    def __init__(
        self, lock: Any, at: str, frames: tuple[str, ...], action: Callable[[], None]
    ) -> None:
        self._lock = lock
        self._at = at
        self._frames = frames
        self._action: Callable[[], None] | None = action
        self.hit = False

    def _window(self, at: str) -> None:
        action = self._action
        if action is None or at != self._at:
            return
        for depth, name in enumerate(self._frames, start=2):
            if name not in sys._getframe(depth).f_code.co_name:
                return
        self._action = None
        self.hit = True
        action()

    def __enter__(self) -> bool:
        self._window("enter")
        return bool(self._lock.__enter__())

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)
        self._window("exit")


def _just_flow(up: PushPublisher, rec: Recorder) -> Any:
    with fusion(True):
        Flow(up).flat_map(Flow.just).subscribe(rec)
    parent = rec.subscription  # the flat_map hop is its subscriber's Subscription
    assert isinstance(parent._lock, type(threading.Lock()))
    return parent


def _window(
    parent: Any, at: str, frames: tuple[str, ...], action: Callable[[], None]
) -> _WindowLock:
    lock = _WindowLock(parent._lock, at, frames, action)
    parent._lock = lock
    return lock


def test_a_bad_request_as_a_whole_inner_takes_the_drain_stops_it_before_its_element() -> None:
    up = PushPublisher()
    rec = Recorder(5)
    parent = _just_flow(up, rec)
    window = _window(parent, "exit", ("_enter", "_take"), lambda: rec.subscription.request(-1))
    up.push(1)
    assert window.hit
    assert rec.values == []  # rule 3.9: its error is due, not the element
    assert len(rec.ends) == 1
    assert rec.ends[0].startswith("error ValueError: rule 3.9")
    assert up.cancelled


def test_a_cancel_as_a_whole_inner_takes_the_drain_stops_it_before_its_element() -> None:
    up = PushPublisher()
    rec = Recorder(5)
    parent = _just_flow(up, rec)
    window = _window(parent, "exit", ("_enter", "_take"), lambda: rec.subscription.cancel())
    up.push(1)
    assert window.hit
    assert (rec.values, rec.ends) == ([], [])  # rule 3.12
    assert up.cancelled  # rule 3.13


@pytest.mark.parametrize("at", ["enter", "exit"])
def test_an_inner_joining_a_run_as_it_is_spent_is_delivered(at: str) -> None:
    up = PushPublisher()
    rec = Recorder(0)
    parent = _just_flow(up, rec)
    up.push(1)  # no demand: queued as a run
    window = _window(parent, at, ("_run_delivered",), lambda: up.push(2))
    rec.subscription.request(5)
    assert window.hit
    up.complete()
    assert (rec.values, rec.ends) == ([1, 2], ["complete"])


# ------------------------------------------- a fused upstream's batch (_direct)


def _batched(n: int, fn: Callable[[int], Any], rec: Recorder) -> None:
    with fusion(True):
        Flow.range(0, n).flat_map(fn).subscribe(rec)


class _Plain:
    """A publisher outside the fusion protocol (no ``__rs_sync__``)."""

    def __init__(self, *items: int) -> None:
        self.items = items

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        Flow.from_iterable(self.items).subscribe(subscriber)


def test_an_inner_outside_the_fusion_protocol_mid_batch_is_subscribed() -> None:
    rec = Recorder()
    _batched(2, lambda x: _Plain(x, x), rec)
    assert (rec.values, rec.ends) == ([0, 0, 1, 1], ["complete"])


class _Asked(_Items):
    """``_Items`` counting the fusion protocol's questions."""

    asked = 0

    def __rs_sync__(self) -> SyncSource:
        self.asked += 1
        return super().__rs_sync__()


def test_an_inner_mid_batch_is_asked_the_fusion_protocol_once() -> None:
    rec = Recorder()
    inners = [_Asked(x) for x in range(3)]
    _batched(3, inners.__getitem__, rec)
    assert (rec.values, rec.ends) == ([0, 1, 2], ["complete"])
    assert [inner.asked for inner in inners] == [1, 1, 1]


def test_a_bad_request_from_on_next_mid_batch_stops_the_batch() -> None:
    rec = Recorder(act=lambda _: rec.subscription.request(0))
    _batched(10, Flow.just, rec)
    assert rec.values == [0]  # rule 3.9: its error is due, not the next element
    assert len(rec.ends) == 1
    assert rec.ends[0].startswith("error ValueError: rule 3.9")


def test_a_cancel_as_a_batch_takes_the_drain_stops_it_before_its_first_element() -> None:
    windows: list[_WindowLock] = []

    def opened(parent: Any) -> None:
        windows.append(_window(parent, "exit", ("_enter", "_take"), parent.cancel))

    rec = Recorder(5, opened=opened)
    pulled: list[int] = []
    with fusion(True):
        Flow.from_iterable(_counted(10, pulled)).flat_map(Flow.just).subscribe(rec)
    assert windows[0].hit
    assert (rec.values, rec.ends) == ([], [])  # rule 3.12


# ------------------------------------------------------ the drain's round


def _subscribed(rec: Recorder) -> tuple[PushPublisher, PushPublisher]:
    up = PushPublisher()
    inner = PushPublisher()
    Flow(up).flat_map(lambda _: inner).subscribe(rec)
    up.push(0)
    return up, inner


def test_a_cancel_from_on_next_of_a_queued_element_releases_upstream_and_inners() -> None:
    rec = Recorder(act=lambda _: rec.subscription.cancel())
    up, inner = _subscribed(rec)
    inner.push(1, 2)
    assert (rec.values, rec.ends) == ([1], [])  # rule 3.12
    assert (up.cancelled, inner.cancelled) == (True, True)  # rule 3.13


def test_a_cancel_as_the_round_takes_the_demand_releases_upstream_and_inners() -> None:
    rec = Recorder()
    up, inner = _subscribed(rec)
    window = _window(rec.subscription, "exit", ("_delivered", "_round"), rec.subscription.cancel)
    inner.push(1)
    assert window.hit
    assert (rec.values, rec.ends) == ([1], [])
    assert (up.cancelled, inner.cancelled) == (True, True)  # rule 3.13


def test_an_inner_failing_from_on_next_of_the_last_element_is_on_error_not_complete() -> None:
    rec = Recorder(act=lambda _: inner.fail(ValueError("late")))
    up, inner = _subscribed(rec)
    up.complete()
    inner.push(1)
    assert (rec.values, rec.ends) == ([1], ["error ValueError: late"])  # rule 1.4


def test_a_cancel_from_the_mapper_cancels_the_inner_it_returns() -> None:
    up = PushPublisher()
    inner = PushPublisher()
    rec = Recorder()

    def mapper(item: int) -> PushPublisher:
        rec.subscription.cancel()
        return inner

    Flow(up).flat_map(mapper).subscribe(rec)
    up.push(0)
    assert up.cancelled
    assert inner.cancelled  # rule 3.13: subscribed after the release, cancelled at once


def test_a_spent_run_is_followed_by_the_next_inner_in_the_same_round() -> None:
    up = PushPublisher()
    inner = PushPublisher()
    rec = Recorder(0)
    Flow(up).flat_map(lambda x: inner if x else Flow.just(1)).subscribe(rec)
    up.push(0, 1)  # a run (1), then a subscribed inner
    inner.push(2)
    rec.subscription.request(10)
    assert rec.values == [1, 2]


def test_every_inner_is_visited_in_a_round() -> None:
    up = PushPublisher()
    inners = [PushPublisher(), PushPublisher()]
    rec = Recorder()
    Flow(up).flat_map(inners.__getitem__).subscribe(rec)
    up.push(0, 1)
    inners[1].push(5)
    assert rec.values == [5]


def test_signals_of_an_inner_after_its_completion_are_ignored() -> None:
    up = PushPublisher()
    inner = PushPublisher()
    rec = Recorder()
    Flow(up).flat_map(lambda _: inner).subscribe(rec)
    up.push(0)
    inner.push(1)
    inner.complete()
    inner.push(2)  # breaks rule 1.7: dropped, nothing raised back
    inner.fail(ValueError("late"))
    up.complete()
    assert (rec.values, rec.ends) == ([1], ["complete"])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0, 32), "rule 3.9: max_concurrency requires n > 0, got 0"),
        ((1, -1), "rule 3.9: prefetch requires n > 0, got -1"),
    ],
)
def test_a_bad_max_concurrency_or_prefetch_names_the_argument(
    arguments: tuple[int, int], message: str
) -> None:
    with pytest.raises(ValueError, match=r"^rule 3\.9: ") as raised:
        Flow.range(0, 3).flat_map(Flow.just, *arguments)
    assert str(raised.value) == message


def test_the_publisher_refuses_a_none_subscriber_naming_rule_1_9() -> None:
    publisher = Flow.range(0, 3).flat_map(Flow.just).source  # the operator's own Publisher
    with pytest.raises(TypeError) as raised:
        publisher.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"


class _Refusing:
    """A publisher whose ``subscribe`` raises (it breaks rule 1.9)."""

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        raise RuntimeError("refused")


def test_an_upstream_whose_subscribe_raises_is_on_error() -> None:
    rec = Recorder()
    Flow(_Refusing()).flat_map(Flow.just).subscribe(rec)
    assert (rec.values, rec.ends) == ([], ["error RuntimeError: refused"])  # rules 1.9, 1.4


def test_an_upstream_error_is_signalled_once_its_inners_are_cancelled() -> None:
    rec = Recorder()
    up, inner = _subscribed(rec)
    up.fail(ValueError("upstream"))
    assert (rec.values, rec.ends) == ([], ["error ValueError: upstream"])  # rule 1.4
    assert inner.cancelled  # rule 3.13


def test_an_inner_whose_subscribe_raises_is_on_error() -> None:
    up = PushPublisher()
    rec = Recorder()
    Flow(up).flat_map(lambda _: _Refusing()).subscribe(rec)
    up.push(0)
    assert (rec.values, rec.ends) == ([], ["error RuntimeError: refused"])  # rules 1.9, 1.4
    assert up.cancelled


def test_an_on_next_raising_on_a_queued_element_is_logged_with_its_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    boom = ValueError("boom")

    def act(item: int) -> None:
        raise boom

    rec = Recorder(act=act)
    up, inner = _subscribed(rec)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        inner.push(1, 2)
    assert (rec.values, rec.ends) == ([1], [])  # rule 2.13: cancelled, no terminal
    assert (up.cancelled, inner.cancelled) == (True, True)
    faults = [r for r in caplog.records if "rule 2.13: on_next raised" in r.getMessage()]
    assert len(faults) == 1
    assert faults[0].exc_info is not None
    assert faults[0].exc_info[1] is boom


class _Iterator:
    """An iterator that can be weakly referenced: whether its pulled source let it go."""

    def __init__(self, n: int) -> None:
        self._it = iter(range(n))

    def __iter__(self) -> _Iterator:
        return self

    def __next__(self) -> int:
        return next(self._it)


def test_a_cancel_from_on_next_mid_batch_releases_the_pulled_upstream() -> None:
    iterators: list[weakref.ref[_Iterator]] = []

    def factory() -> _Iterator:
        it = _Iterator(20)
        iterators.append(weakref.ref(it))
        return it

    class Source:
        def __iter__(self) -> _Iterator:
            return factory()

    rec = Recorder(act=lambda _: rec.subscription.cancel())
    with fusion(True):
        Flow.from_iterable(Source()).flat_map(Flow.just, 8).subscribe(rec)
    assert (rec.values, rec.ends) == ([0], [])  # rule 3.12
    assert len(iterators) == 1
    assert iterators[0]() is None  # rule 3.13: upstream cancelled, its iterator dropped
