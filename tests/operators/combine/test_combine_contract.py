"""combine_latest's and with_latest_from's contract at the edges their other tests leave
open (issue 27: mutation survivors): arrivals without demand, completion rules, errors
and the combiner's None, the subscription order, reprs and a None subscriber."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.flow import Flow

from .._util import PushPublisher, Recorder, traced_hops

pytestmark = pytest.mark.timeout(60)


class _Ordered(PushPublisher):
    """A PushPublisher that records when it was subscribed."""

    def __init__(self, name: str, order: list[str]) -> None:
        super().__init__()
        self.name = name
        self.order = order

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.order.append(self.name)
        super().subscribe(subscriber)


def _combined(rec: Recorder, n: int = 2, prefetch: int = 32, **kw: Any) -> list[PushPublisher]:
    sources = [PushPublisher() for _ in range(n)]
    Flow.combine_latest(*sources, prefetch=prefetch, **kw).subscribe(rec)
    return sources


def _with_latest(rec: Recorder, prefetch: int = 32) -> tuple[PushPublisher, PushPublisher]:
    main, other = PushPublisher(), PushPublisher()
    Flow(main).with_latest_from(other, prefetch=prefetch).subscribe(rec)
    return main, other


def test_combine_latest_emits_for_every_arrival_once_each_source_has_a_value() -> None:
    rec = Recorder()
    a, b = _combined(rec)
    a.push(1, 2)  # no value of b yet: consumed, not emitted
    b.push(10)
    a.push(3)
    b.push(20)
    assert rec.values == [(2, 10), (3, 10), (3, 20)]  # type: ignore[comparison-overlap]


def test_arrivals_that_cannot_emit_are_consumed_without_demand() -> None:
    rec = Recorder(0)
    a, b = _combined(rec, prefetch=4)
    a.push(1, 2, 3)  # b has no value: nothing can emit, each is consumed
    assert a.requested == [4, 3]  # rule 3.17: replenished at 75 % of prefetch
    b.push(10)  # can emit: waits for demand
    rec.subscription.request(1)
    assert rec.values == [(3, 10)]  # type: ignore[comparison-overlap]


def test_an_emitting_arrival_waits_for_demand() -> None:
    rec = Recorder(1)
    a, b = _combined(rec)
    b.push(10)
    a.push(1, 2)
    assert rec.values == [(1, 10)]  # type: ignore[comparison-overlap]
    rec.subscription.request(1)
    assert rec.values == [(1, 10), (2, 10)]  # type: ignore[comparison-overlap]


def test_combine_latest_completes_at_once_when_a_source_ends_without_a_value() -> None:
    rec = Recorder()
    a, b = _combined(rec)
    a.push(1)
    b.complete()
    assert rec.ends == ["complete"]  # no combination can ever be made
    assert a.cancelled  # rule 3.13


def test_combine_latest_completes_when_every_source_has_and_arrivals_are_delivered() -> None:
    rec = Recorder(0)
    a, b = _combined(rec)
    a.push(1)
    b.push(10, 20)
    a.complete()
    assert rec.ends == []
    b.complete()
    assert rec.ends == []  # rule 1.5: the waiting arrivals first
    rec.subscription.request(5)
    assert rec.values == [(1, 10), (1, 20)]  # type: ignore[comparison-overlap]
    assert rec.ends == ["complete"]


def test_a_source_error_is_signalled_at_once_and_cancels_the_others() -> None:
    rec = Recorder(0)
    a, b = _combined(rec)
    a.push(1)
    b.push(10)
    b.fail(ValueError("b"))
    assert (rec.values, rec.ends) == ([], ["error ValueError: b"])
    assert a.cancelled


@pytest.mark.parametrize("hop", ["combine_latest", "with_latest_from"])
def test_a_combiner_returning_none_is_on_error_naming_the_hop(hop: str) -> None:
    def nothing(*values: Any) -> None:
        return None

    rec = Recorder()
    a, b = PushPublisher(), PushPublisher()
    if hop == "combine_latest":
        Flow.combine_latest(a, b, combiner=nothing).subscribe(rec)
    else:
        Flow(a).with_latest_from(b, combiner=nothing).subscribe(rec)
    b.push(10)
    a.push(1)
    assert rec.ends == [
        f"error TypeError: rule 2.13: {hop}(nothing): returned None, "
        "and on_next(None) is not allowed"
    ]
    assert (a.cancelled, b.cancelled) == (True, True)


def test_a_combiner_raising_is_on_error() -> None:
    def boom(*values: Any) -> Any:
        raise KeyError(values)

    rec = Recorder()
    a, b = _combined(rec, combiner=boom)
    b.push(10)
    a.push(1)
    assert rec.ends == ["error KeyError: (1, 10)"]


def test_with_latest_from_drops_main_arrivals_before_the_others_have_a_value() -> None:
    rec = Recorder()
    main, other = _with_latest(rec)
    main.push(1)
    other.push(10, 20)  # the others never emit
    main.push(2)
    assert rec.values == [(2, 20)]  # type: ignore[comparison-overlap]


def test_with_latest_from_completes_with_its_main_source() -> None:
    rec = Recorder()
    main, other = _with_latest(rec)
    other.push(10)
    main.push(1)
    main.complete()
    assert (rec.values, rec.ends) == ([(1, 10)], ["complete"])  # type: ignore[comparison-overlap]
    assert other.cancelled


def test_with_latest_from_waits_for_its_main_arrivals_before_completing() -> None:
    rec = Recorder(0)
    main, other = _with_latest(rec)
    other.push(10)
    main.push(1)
    main.complete()
    assert rec.ends == []
    rec.subscription.request(1)
    assert rec.ends == ["complete"]


def test_with_latest_from_subscribes_the_others_first() -> None:
    order: list[str] = []
    main, other = _Ordered("main", order), _Ordered("other", order)
    Flow(main).with_latest_from(other).subscribe(Recorder())
    assert order == ["other", "main"]
    order.clear()
    Flow.combine_latest(main, other).subscribe(Recorder())
    assert order == ["main", "other"]


def test_the_reprs_and_a_none_subscriber() -> None:
    combined = Flow.combine_latest(Flow.just(1), Flow.just(2)).source
    latest = Flow.just(1).with_latest_from(Flow.just(2)).source
    assert (repr(combined), repr(latest)) == ("<combine_latest>", "<with_latest_from>")
    with pytest.raises(TypeError) as raised:
        combined.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"


def test_a_cancel_releases_every_source() -> None:
    rec = Recorder()
    a, b, c = _combined(rec, 3)
    rec.subscription.cancel()
    assert [s.cancelled for s in (a, b, c)] == [True, True, True]  # rule 3.13


def test_the_hops_name_themselves_in_the_trace() -> None:
    def run() -> None:
        Flow.combine_latest(Flow.just(1), Flow.just(2)).subscribe(Recorder())
        Flow.just(1).with_latest_from(Flow.just(2)).subscribe(Recorder())

    hops = traced_hops(run)
    assert [h for h in hops if h != "just"] == ["combine_latest", "with_latest_from"]


def test_an_arrival_left_waiting_for_demand_is_not_sent_without_it() -> None:
    rec = Recorder(0)
    a, b = _combined(rec)
    a.push(1)
    b.push(10)
    a.push(2)  # two arrivals can emit: (1, 10) and (2, 10)
    rec.subscription.request(1)
    assert rec.values == [(1, 10)]  # type: ignore[comparison-overlap]
    b.push(11)  # a round with no demand left: (2, 10) still waits
    assert rec.values == [(1, 10)]  # type: ignore[comparison-overlap]  # rule 1.1
    rec.subscription.request(2)
    assert rec.values == [(1, 10), (2, 10), (2, 11)]  # type: ignore[comparison-overlap]
    a.push(3)  # the two asked for were sent: (3, 11) waits
    assert len(rec.values) == 3


def test_with_latest_from_goes_on_past_an_other_sources_arrival_in_one_round() -> None:
    rec = Recorder(0)
    main, other = _with_latest(rec)
    other.push(10)
    main.push(1)  # waits for demand
    other.push(20)  # queued behind it
    main.push(2)
    rec.subscription.request(2)  # one round: (1, 10), 20 taken as the latest, (2, 20)
    assert rec.values == [(1, 10), (2, 20)]  # type: ignore[comparison-overlap]
