"""``take_until(other)`` and ``skip_until(other)`` (operators/_until.py): the trigger (an
element or the completion of ``other``), errors from either side, demand (rule 1.1), the
cancel of both (3.12), rule 2.13, the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def wired(skip: bool, demand: int = 0) -> tuple[PushPublisher, PushPublisher, TestSubscriber[Any]]:
    main, other = PushPublisher(), PushPublisher()
    ts: TestSubscriber[Any] = TestSubscriber(demand)
    flow = Flow(main).skip_until(other) if skip else Flow(main).take_until(other)
    flow.subscribe(ts)
    return main, other, ts


def test_take_until_passes_elements_until_other_emits_then_cancels_both() -> None:
    main, other, ts = wired(skip=False, demand=10)
    assert other.requested == [1]  # one element is all it takes
    main.push(1, 2)
    other.push("stop")
    ts.assert_values(1, 2).assert_complete()
    assert main.cancelled
    assert other.cancelled
    main.push(3)  # rule 2.8: late, ignored
    ts.assert_values(1, 2).assert_no_violations()


def test_take_until_completes_when_other_completes_empty_as_reactor() -> None:
    main, other, ts = wired(skip=False, demand=10)
    main.push(1)
    other.complete()
    ts.assert_values(1).assert_complete()
    assert main.cancelled


def test_take_until_other_firing_at_subscribe_never_subscribes_the_main_flow() -> None:
    subscribed: list[int] = []
    main = Flow.defer(lambda: subscribed.append(1) or Flow.range(5))  # type: ignore[func-returns-value]
    assert main.take_until(Flow.just(0)).to_list(timeout=5) == []
    assert subscribed == []


def test_take_until_never_firing_is_the_flow() -> None:
    assert Flow.range(5).take_until(Flow.never()).to_list(timeout=5) == [0, 1, 2, 3, 4]


def test_skip_until_drops_elements_before_other_emits_and_replaces_them() -> None:
    main, other, ts = wired(skip=True, demand=10)
    main.push(1, 2)
    ts.assert_values()
    other.push("go")
    assert other.cancelled  # nothing more is needed from other (rule 3.12)
    main.push(3, 4)
    main.complete()
    ts.assert_values(3, 4).assert_complete().assert_no_violations()


def test_skip_until_opens_when_other_completes_empty_as_reactor() -> None:
    main, other, ts = wired(skip=True, demand=10)
    main.push(1)
    other.complete()
    main.push(2)
    main.complete()
    ts.assert_values(2).assert_complete()


def test_skip_until_never_firing_drops_everything() -> None:
    assert Flow.range(5).skip_until(Flow.never()).to_list(timeout=5) == []


@pytest.mark.parametrize("skip", [False, True])
def test_spec101_main_elements_wait_for_demand(skip: bool) -> None:
    main, other, ts = wired(skip=skip, demand=0)
    if skip:
        other.complete()
    assert main.requested == [32]  # prefetch, not downstream demand
    main.push(1, 2, 3)
    ts.assert_values()
    ts.request(2)
    ts.assert_values(1, 2).assert_no_terminal()
    main.complete()
    ts.assert_no_terminal()  # 3 still waits for demand
    ts.request(1)
    ts.assert_values(1, 2, 3).assert_complete().assert_no_violations()


@pytest.mark.parametrize("skip", [False, True])
def test_an_error_of_either_side_fails_the_stream_and_cancels_the_other(skip: bool) -> None:
    main, other, ts = wired(skip=skip, demand=5)
    other.fail(KeyError("other"))
    ts.assert_error(KeyError)
    assert main.cancelled
    main2, other2, ts2 = wired(skip=skip, demand=5)
    main2.fail(LookupError("main"))
    ts2.assert_error(LookupError)
    assert other2.cancelled


@pytest.mark.parametrize("skip", [False, True])
def test_spec312_cancel_mid_stream_cancels_both(skip: bool) -> None:
    main, other, ts = wired(skip=skip, demand=5)
    if skip:
        other.complete()
    main.push(1)
    ts.cancel()
    assert main.cancelled
    assert other.cancelled or skip  # skip_until: other already completed
    main.push(2)
    ts.assert_values(1).assert_no_terminal()


@pytest.mark.parametrize("skip", [False, True])
def test_spec213_on_error_none_and_subscribe_none_are_refused_by_name(skip: bool) -> None:
    main, other, _ts = wired(skip=skip, demand=5)
    for side in (main, other):
        assert side.subscriber is not None
        with pytest.raises(TypeError, match=r"rule 2.13: on_error\(None\)"):
            side.subscriber.on_error(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"rule 1\.9"):
        Flow.just(1).take_until(Flow.never()).source.subscribe(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["take_until", "skip_until"])
def test_bad_arguments_are_refused_naming_them(name: str) -> None:
    with pytest.raises(TypeError, match=f"{name}: other must be a Publisher, got int"):
        getattr(Flow.just(1), name)(3)
    with pytest.raises(ValueError, match=f"{name} prefetch: size must be an int > 0, got 0"):
        getattr(Flow.just(1), name)(Flow.never(), prefetch=0)
