"""``amb`` (operators/_amb.py): the first signal of any kind wins, the others are
cancelled (3.12); requests go to all until then, to the winner after (1.1); the cancel,
a raising subscribe (1.9), rule 2.13, the arguments."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber

from .._util import PushPublisher


def three() -> tuple[list[PushPublisher], TestSubscriber[Any]]:
    pubs = [PushPublisher() for _ in range(3)]
    ts: TestSubscriber[Any] = TestSubscriber(0)
    Flow.amb(*pubs).subscribe(ts)
    return pubs, ts


def test_the_first_element_wins_and_the_others_are_cancelled() -> None:
    pubs, ts = three()
    ts.request(2)
    assert [p.requested for p in pubs] == [[2], [2], [2]]  # all asked until one wins
    pubs[1].push("b")
    assert pubs[0].cancelled and pubs[2].cancelled  # noqa: PT018
    assert not pubs[1].cancelled
    ts.request(3)
    assert pubs[1].requested == [2, 3]
    assert pubs[0].requested == [2]  # the losers are asked nothing more
    pubs[0].push("a")  # rule 2.8: a loser's late element is ignored
    pubs[1].push("c")
    pubs[1].complete()
    ts.assert_values("b", "c").assert_complete().assert_no_violations()


@pytest.mark.parametrize("signal", ["complete", "error"])
def test_a_terminal_signal_also_wins(signal: str) -> None:
    pubs, ts = three()
    if signal == "complete":
        pubs[2].complete()
        ts.assert_complete()
    else:
        pubs[2].fail(KeyError("k"))
        ts.assert_error(KeyError)
    assert pubs[0].cancelled and pubs[1].cancelled  # noqa: PT018


def test_a_synchronous_winner_means_the_rest_are_never_subscribed() -> None:
    late = PushPublisher()
    assert Flow.amb(Flow.just(1, 2), late).to_list(timeout=5) == [1, 2]
    assert late.subscriber is None
    assert Flow.amb(Flow.never(), Flow.range(3)).to_list(timeout=5) == [0, 1, 2]


def test_spec312_cancel_cancels_every_source() -> None:
    pubs, ts = three()
    ts.cancel()
    assert all(p.cancelled for p in pubs)


def test_spec109_a_raising_subscribe_is_that_sources_error() -> None:
    class Raising:
        def subscribe(self, subscriber: Any) -> None:
            raise LookupError("subscribe")

    ts: TestSubscriber[Any] = TestSubscriber(1)
    Flow.amb(Flow.never(), Raising()).subscribe(ts)
    ts.assert_error(LookupError)


def test_spec213_on_error_none_is_refused_by_name() -> None:
    pubs, _ = three()
    assert pubs[0].subscriber is not None
    with pytest.raises(TypeError, match=r"rule 2\.13: on_error\(None\)"):
        pubs[0].subscriber.on_error(None)  # type: ignore[arg-type]


def test_no_publisher_is_empty_and_bad_arguments_are_named() -> None:
    assert Flow.amb().to_list(timeout=5) == []
    with pytest.raises(TypeError, match=r"amb: publishers\[1\] must be a Publisher, got int"):
        Flow.amb(Flow.never(), 3)  # type: ignore[arg-type]
    assert Flow.just(1).amb_with(Flow.never()).to_list(timeout=5) == [1]


def test_spec309_an_invalid_request_before_any_source_is_subscribed_fails_the_stream() -> None:
    class AsksZero(TestSubscriber[Any]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            subscription.request(0)  # before amb subscribed any source

    ts = AsksZero()
    Flow.amb(Flow.never(), Flow.never()).subscribe(ts)
    ts.assert_error(ValueError)
    assert "rule 3.9" in str(ts.errors[0])
