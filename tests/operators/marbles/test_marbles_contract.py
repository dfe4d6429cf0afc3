"""The marbles hop (operators/_marbles.py): a diagram played on a virtual clock from
the subscription time; elements wait for demand (1.1), the terminal follows them."""

from __future__ import annotations

from typing import Any

from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber, marbles


def test_marbles_play_at_their_frames_from_the_subscription_time() -> None:
    ex = ManualExecutor()
    ex.advance_by(5.0)  # the diagram starts when subscribed, not at 0
    ts: TestSubscriber[Any] = TestSubscriber(10)
    marbles("-a-b|", scheduler=ex, values={"a": 1}).subscribe(ts)
    ts.assert_values()
    ex.advance_by(0.99)
    ts.assert_values()
    ex.advance_by(0.01)
    ts.assert_values(1)
    ex.advance_by(1.0)
    ts.assert_values(1).assert_no_terminal()
    ex.advance_by(1.0)
    ts.assert_values(1, "b").assert_no_terminal()
    ex.advance_by(1.0)
    ts.assert_values(1, "b").assert_complete()


def test_marbles_elements_wait_for_demand_then_the_error_follows() -> None:
    ex = ManualExecutor()
    boom = ValueError("boom")
    ts: TestSubscriber[Any] = TestSubscriber(0)
    marbles("(ab)#", scheduler=ex, error=boom).subscribe(ts)
    ex.advance_by(10.0)
    ts.assert_values().assert_no_terminal()  # rule 1.1: the elements wait
    ts.request(1)
    ts.assert_values("a").assert_no_terminal()
    ts.request(1)
    ts.assert_values("a", "b")
    assert ts.errors == [boom]


def test_marbles_default_error_names_the_diagram() -> None:
    ex = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber(1)
    marbles("-#", scheduler=ex).subscribe(ts)
    ex.advance_by(1.0)
    ts.assert_error(RuntimeError)
    assert str(ts.errors[0]) == "marbles '-#': #"


def test_marbles_arm_one_timer_at_a_time_and_none_after_the_end() -> None:
    ex = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    marbles("a--b|", scheduler=ex).subscribe(ts)
    ex.advance_by(0.0)
    ts.assert_values("a")
    assert ex.scheduled == 1
    ex.advance_by(10.0)
    ts.assert_values("a", "b").assert_complete()
    assert not ex.scheduled


def test_marbles_any_other_character_is_an_element_and_the_hop_is_named() -> None:
    from reactive_streams.tracing import tracing

    ex = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber(10)
    with tracing() as tracer:
        marbles("(XY)|", scheduler=ex).subscribe(ts)
        ex.advance_by(1.0)
    ts.assert_values("X", "Y").assert_complete()
    assert "marbles" in [e.get("hop") for e in tracer.events if e["sig"] == "subscribe"]
