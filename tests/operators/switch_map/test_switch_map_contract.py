"""switch_map's contract at the edges its other tests leave open (issue 27: mutation
survivors): a former inner's late signals, completion and errors against queued elements,
the release of the current inner, demand, the repr and the refusal of a None subscriber."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow

from .._util import PushPublisher, Recorder, traced_hops

pytestmark = pytest.mark.timeout(60)


def _switched(rec: Recorder, *inners: PushPublisher, prefetch: int = 32) -> PushPublisher:
    up = PushPublisher()
    Flow(up).switch_map(lambda x: inners[x], prefetch=prefetch).subscribe(rec)
    return up


def test_upstream_is_unbounded_and_an_element_subscribes_its_inner() -> None:
    inner = PushPublisher()
    rec = Recorder()
    up = _switched(rec, inner, prefetch=4)
    assert up.requested == [2**63 - 1]  # rule 3.17: every element only switches
    up.push(0)
    assert inner.requested == [4]
    inner.push(1, 2)
    assert rec.values == [1, 2]


def test_a_former_inner_is_cancelled_and_its_late_signals_ignored() -> None:
    first, second = PushPublisher(), PushPublisher()
    rec = Recorder(0)
    up = _switched(rec, first, second)
    up.push(0)
    first.push(1)  # queued: no demand
    up.push(1)
    assert first.cancelled  # rule 3.12
    first.push(2)
    first.fail(ValueError("late"))  # rule 2.8: a cancelled inner is silent
    rec.subscription.request(5)
    second.push(3)
    assert (rec.values, rec.ends) == ([3], [])


def test_completion_waits_for_the_current_inners_queued_elements() -> None:
    inner = PushPublisher()
    rec = Recorder(0)
    up = _switched(rec, inner)
    up.push(0)
    inner.push(1, 2)
    inner.complete()
    up.complete()
    assert rec.ends == []  # rule 1.5: its elements first
    rec.subscription.request(1)
    assert (rec.values, rec.ends) == ([1], [])
    rec.subscription.request(1)
    assert (rec.values, rec.ends) == ([1, 2], ["complete"])


def test_completion_waits_for_the_current_inner() -> None:
    inner = PushPublisher()
    rec = Recorder()
    up = _switched(rec, inner)
    up.push(0)
    up.complete()
    assert rec.ends == []
    inner.complete()
    assert rec.ends == ["complete"]


def test_upstream_completing_before_any_element_completes() -> None:
    rec = Recorder()
    up = _switched(rec)
    up.complete()
    assert rec.ends == ["complete"]


def test_an_inner_error_is_signalled_at_once_over_queued_elements() -> None:
    inner = PushPublisher()
    rec = Recorder(0)
    up = _switched(rec, inner)
    up.push(0)
    inner.push(1)
    inner.fail(ValueError("inner"))
    assert (rec.values, rec.ends) == ([], ["error ValueError: inner"])  # at once
    assert up.cancelled  # rule 3.13


def test_the_mapper_raising_is_on_error_and_cancels_upstream() -> None:
    rec = Recorder()
    up = PushPublisher()

    def mapper(x: int) -> Any:
        raise KeyError(x)

    Flow(up).switch_map(mapper).subscribe(rec)
    up.push(7)
    assert rec.ends == ["error KeyError: 7"]
    assert up.cancelled


def test_a_cancel_releases_upstream_and_the_current_inner() -> None:
    inner = PushPublisher()
    rec = Recorder()
    up = _switched(rec, inner)
    up.push(0)
    rec.subscription.cancel()
    assert (up.cancelled, inner.cancelled) == (True, True)  # rule 3.13


def test_delivery_stops_at_the_demand() -> None:
    inner = PushPublisher()
    rec = Recorder(2)
    up = _switched(rec, inner)
    up.push(0)
    inner.push(1, 2, 3)
    assert rec.values == [1, 2]  # rule 1.1


def test_the_repr_and_a_none_subscriber() -> None:
    publisher = Flow.just(1).switch_map(Flow.just).source
    assert repr(publisher) == "<switch_map>"
    with pytest.raises(TypeError) as raised:
        publisher.subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"


def test_the_hop_names_itself_in_the_trace() -> None:
    def run() -> None:
        Flow.just(1).switch_map(lambda x: Flow.just(x)).subscribe(Recorder())

    assert traced_hops(run) == ["switch_map", "just", "just"]


def test_an_inner_whose_subscribe_raises_is_on_error() -> None:
    class Refusing:
        def subscribe(self, subscriber: Any) -> None:
            raise RuntimeError("refused")

    rec = Recorder()
    up = PushPublisher()
    Flow(up).switch_map(lambda x: Refusing()).subscribe(rec)
    up.push(0)  # rule 1.9: the refusal reaches the subscriber as on_error
    assert rec.ends == ["error RuntimeError: refused"]
    assert up.cancelled  # rule 3.13


def test_queued_elements_are_delivered_only_as_far_as_the_demand() -> None:
    inner = PushPublisher()
    rec = Recorder(0)
    up = _switched(rec, inner)
    up.push(0)
    inner.push(1, 2, 3)  # queued: no demand
    rec.subscription.request(2)
    assert rec.values == [1, 2]  # rule 1.1: one drain round, two of three
    rec.subscription.request(1)
    assert rec.values == [1, 2, 3]
