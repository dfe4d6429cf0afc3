"""The pass-through hops on the one downstream core (``Relay``): the same code path with
tracing on and off, a raising subscriber dropped by the hop it raised into (2.13, 3.13),
nothing passed on after an invalid request (3.9), a fused pipeline traced as the one
hop it is, and ``from_observable``'s subscribe returning normally (1.9)."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import sources
from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing

from ._util import PushPublisher

Build = Callable[[Flow[int]], Flow[Any]]

#: every pass-through hop, over a source of at least 6 elements; the values the
#: subscriber sees first are listed for the checks below
HOPS: dict[str, Build] = {
    "map": lambda f: f.map(lambda x: x + 1),
    "filter": lambda f: f.filter(lambda x: x % 2 == 0),
    "scan": lambda f: f.scan(lambda a, x: a + x, 0),
    "take": lambda f: f.take(5),
    "skip": lambda f: f.skip(1),
    "take_while": lambda f: f.take_while(lambda x: x < 100),
    "do_on_next": lambda f: f.do_on_next(lambda x: None),
    "do_on_request": lambda f: f.do_on_request(lambda n: None),
    "do_on_cancel": lambda f: f.do_on_cancel(lambda: None),
    "buffer": lambda f: f.buffer(1),
    "on_backpressure_drop": lambda f: f.on_backpressure_drop(),
}


class Fault(Exception):
    pass


@pytest.fixture(params=[False, True], ids=["untraced", "traced"])
def traced(request: pytest.FixtureRequest) -> Iterator[bool]:
    if request.param:
        with tracing():
            yield True
    else:
        yield False


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    logging.disable(logging.ERROR)  # faults on purpose are logged by the library (2.13)
    yield
    logging.disable(logging.NOTSET)


def _run(executor: ManualExecutor) -> None:
    for _ in range(1000):
        if not len(executor):
            return
        executor.run_next()
    raise AssertionError("tasks still pending after 1000 runs")


def _one_value_no_terminal(ts: TestSubscriber[Any]) -> None:
    assert len(ts.values) == 1, ts
    ts.assert_no_terminal()


def _raise(ts: TestSubscriber[Any], x: object) -> None:
    raise Fault("the subscriber raises on purpose")


@pytest.mark.parametrize("name", sorted(HOPS))
def test_a_raising_subscriber_is_dropped_by_its_hop(name: str, traced: bool) -> None:
    """Rule 2.13: the hop the subscriber raised into cancels (upstream too) and, 3.13,
    references it no more. Before the core, the untraced hop let the exception reach
    its source and kept the subscriber."""
    cancelled: list[bool] = []
    source = Flow(sources.range(0, 10)).do_on_cancel(lambda: cancelled.append(True))
    ts: TestSubscriber[Any] = TestSubscriber(4, on_next_hook=_raise)
    HOPS[name](source).subscribe(ts)
    _one_value_no_terminal(ts)
    assert ts not in gc.get_referents(ts.subscription), f"rule 3.13: {ts.subscription!r}"
    assert cancelled == [True], "upstream was not cancelled"
    ts.subscription.request(1)  # type: ignore[union-attr]  # a no-op now (3.6)
    _one_value_no_terminal(ts)


@pytest.mark.parametrize("name", sorted(HOPS))
def test_the_log_of_a_raising_subscriber_carries_the_exception_it_raised(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Rule 2.13: the fault reaches someone who can act on it: the record carries the
    very exception the subscriber raised, not a stand-in."""
    raised: list[Fault] = []

    def hook(ts: TestSubscriber[Any], x: object) -> None:
        raised.append(Fault("the subscriber raises on purpose"))
        raise raised[-1]

    logging.disable(logging.NOTSET)
    source = Flow(sources.range(0, 10)).do_on_cancel(lambda: None)
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        HOPS[name](source).subscribe(TestSubscriber(4, on_next_hook=hook))
    logged = [r.exc_info[1] for r in caplog.records if "rule 2.13" in r.getMessage() and r.exc_info]
    assert raised
    assert logged == raised


def test_a_raising_subscriber_is_dropped_by_subscribe_on(traced: bool) -> None:
    """Rule 3.13 on subscribe_on (the machine's ``test_rule_313_references_dropped``)."""
    executor = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber(4, on_next_hook=_raise)
    Flow(sources.range(0, 10)).subscribe_on(executor).subscribe(ts)
    _run(executor)
    _one_value_no_terminal(ts)
    assert ts not in gc.get_referents(ts.subscription), f"rule 3.13: {ts.subscription!r}"
    ts.subscription.request(1)  # type: ignore[union-attr]
    _run(executor)
    _one_value_no_terminal(ts)


@pytest.mark.parametrize("name", sorted(set(HOPS) - {"skip", "filter"}))
def test_nothing_passes_after_an_invalid_request(name: str, traced: bool) -> None:
    """Rule 3.9: after request(0) the hop passes no element on; its terminal signal is
    the ValueError. The source emits a batch on an executor and receives the request
    only at its next task, so the hop must hold the rest of the batch back."""
    executor = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber(
        4, on_next_hook=lambda ts, x: ts.request(0) if len(ts.values) == 1 else None
    )
    HOPS[name](Flow(sources.range(0, 10, executor=executor))).subscribe(ts)
    _run(executor)
    assert len(ts.values) == 1, ts
    ts.assert_error(ValueError, "rule 3.9")


def test_a_fused_pipeline_is_traced_as_the_hop_it_is(fusion: bool) -> None:
    """Tracing does not turn fusion off, and the fused source names what it runs."""
    with tracing() as tracer:
        ts: TestSubscriber[int] = TestSubscriber(100)
        Flow.range(0, 6).map(lambda x: x + 1).filter(lambda x: x % 2 == 0).subscribe(ts)
    ts.assert_values(2, 4, 6).assert_complete()
    hops = [e["hop"] for e in tracer.events if e["sig"] == "subscribe"]
    if fusion:
        assert hops == ["range+map+filter"], hops
    else:
        assert sorted(hops) == ["filter", "map", "range"], hops


@pytest.mark.parametrize(
    ("build", "hop"),
    [
        (lambda: Flow.just(1, 2).map(str), "just+map"),
        (lambda: Flow.just(1).filter(bool), "just+filter"),
        (lambda: Flow.from_iterable([1, 2]).map(str), "from_iterable+map"),
        (lambda: Flow.from_callable(lambda: 1).map(str), "from_callable+map"),
    ],
)
def test_fused_hop_names(build: Callable[[], Flow[Any]], hop: str) -> None:
    with tracing() as tracer:
        ts: TestSubscriber[Any] = TestSubscriber(10)
        build().subscribe(ts)
    ts.assert_complete()
    assert [e["hop"] for e in tracer.events if e["sig"] == "subscribe"] == [hop]


def test_tracing_does_not_change_what_the_subscriber_sees() -> None:
    """One pipeline, a subscriber that raises at its third element: the same signals
    with tracing on and off (one code path)."""

    def run() -> list[str]:
        ts: TestSubscriber[Any] = TestSubscriber(
            2, on_next_hook=lambda ts, x: _raise(ts, x) if x > 4 else ts.request(1)
        )
        Flow(sources.range(0, 10)).map(lambda x: x + 1).filter(bool).take(8).subscribe(ts)
        return [f"{s.kind} {s.value!r}" for s in ts.signals[1:]]

    untraced = run()
    with tracing():
        traced = run()
    assert traced == untraced == ["on_next 1", "on_next 2", "on_next 3", "on_next 4", "on_next 5"]


def test_from_observable_subscribe_returns_when_on_subscribe_raises() -> None:
    """Rules 1.9 and 2.13: the Subscriber's on_subscribe raising does not escape
    ``subscribe``; the Observable is not subscribed, nothing else is signalled."""
    reactivex = pytest.importorskip("reactivex")
    from reactive_streams.rx import from_observable

    subscribed: list[bool] = []

    def on_subscribe(observer: Any, scheduler: Any = None) -> Any:
        subscribed.append(True)
        observer.on_next(1)
        observer.on_completed()

    class Faulty(TestSubscriber[Any]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            raise Fault("on_subscribe raises on purpose")

    for strategy in ("buffer", "drop", "latest", "error"):
        ts = Faulty(10)
        from_observable(reactivex.create(on_subscribe), strategy).subscribe(ts)
        assert [s.kind for s in ts.signals] == ["on_subscribe"], (strategy, ts)
    assert not subscribed


# ------------------------------------- the hop classes' on_next (make mutation, 2.13)


def test_a_hop_class_gets_its_on_next_from_its_apply_and_keeps_its_own() -> None:
    from reactive_streams._core.relay import Relay

    class Twice(Relay[int, int]):
        hop = "twice"

        def _apply(self, item: int) -> int:
            return item * 2

    class Own(Relay[int, int]):
        hop = "own"

        def on_next(self, item: int) -> None:
            downstream = self._out
            if downstream is not None:
                self._send(downstream, -item)

    class Both(Twice):
        def on_next(self, item: int) -> None:
            Own.on_next(self, item)  # type: ignore[arg-type]

    assert "on_next" in Twice.__dict__  # generated for the class (``_core.inline``)
    for cls, expected in ((Twice, [0, 2, 4]), (Own, [0, -1, -2]), (Both, [0, -1, -2])):
        ts: TestSubscriber[int] = TestSubscriber(10)
        hop = cls(ts)
        sources.range(0, 3).subscribe(hop)
        ts.assert_values(*expected).assert_complete()


def test_a_hop_names_itself_and_its_subscription_id() -> None:
    from reactive_streams._core.relay import Relay

    ts: TestSubscriber[int] = TestSubscriber(1)
    hop: Relay[int, int] = Relay(ts)
    assert repr(hop) == f"<operator hop {hex(id(hop))}>"
    with tracing():
        traced: Relay[int, int] = Relay(TestSubscriber(1))
    assert traced.subscription_id > 0
    assert repr(traced) == f"<operator hop {traced.subscription_id}>"


def test_spec213_on_error_none_is_refused_by_name() -> None:
    from reactive_streams._core.relay import Relay

    hop: Relay[int, int] = Relay(TestSubscriber(1))
    with pytest.raises(TypeError) as raised:
        hop.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"


# ---------------------------------------- the arbiter's switch (make mutation, 1.1, 3.9)


def test_spec101_a_switch_requests_only_the_demand_left() -> None:

    first, second = PushPublisher(), PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(3)
    Flow(first).concat_with(Flow(second)).subscribe(ts)
    assert first.requested == [3]
    first.push(1, 2)
    first.complete()
    assert second.requested == [1]  # 3 requested, 2 delivered by the first upstream
    ts.assert_values(1, 2)


def test_spec309_an_upstream_error_after_an_invalid_request_is_not_resumed() -> None:

    upstream = PushPublisher()
    asked: list[BaseException] = []

    def fallback(error: BaseException) -> Flow[int]:
        asked.append(error)
        return Flow.just(9)

    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(upstream).on_error_resume(fallback).subscribe(ts)
    ts.request(0)  # rule 3.9: latched; its error ends the stream
    upstream.fail(OSError("late"))
    assert asked == []  # never resumed: rule 3.9's error wins
    assert [type(e) for e in ts.errors] == [ValueError]
    assert "rule 3.9" in str(ts.errors[0])


def test_spec213_an_arbiter_attempt_refuses_on_error_none() -> None:
    from reactive_streams._core.arbiter import _Attempt

    attempt: _Attempt[int] = _Attempt(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError) as raised:
        attempt.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"


class _Deferred:
    """A Publisher that calls ``on_subscribe`` only when the test says so."""

    def __init__(self) -> None:
        self.upstream = PushPublisher()
        self.subscriber: Any = None

    def subscribe(self, subscriber: Any) -> None:
        self.subscriber = subscriber

    def arrive(self) -> None:
        self.upstream.subscriber = self.subscriber
        self.subscriber.on_subscribe(self.upstream)


def test_spec105_an_upstream_arriving_after_the_cancel_is_cancelled_unrequested() -> None:
    late = _Deferred()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(late).concat_with(Flow.just(1)).subscribe(ts)
    ts.cancel()
    late.arrive()
    assert late.upstream.cancelled  # rule 3.12: cancelled during the switch
    assert late.upstream.requested == []


def test_spec205_a_second_on_subscribe_to_an_attempt_is_cancelled() -> None:
    late = _Deferred()
    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow(late).concat_with(Flow.just(1)).subscribe(ts)
    late.arrive()
    again = PushPublisher()
    late.subscriber.on_subscribe(again)
    assert again.cancelled  # rule 2.5
    assert not late.upstream.cancelled
    with pytest.raises(TypeError) as raised:
        late.subscriber.on_subscribe(None)
    assert str(raised.value) == "rule 2.13: on_subscribe(None)"


def test_spec109_a_switch_to_an_upstream_that_raises_in_subscribe_is_its_error() -> None:
    class Broken:
        def subscribe(self, subscriber: Any) -> None:
            raise OSError("cannot subscribe")

    ts: TestSubscriber[int] = TestSubscriber(5)
    Flow.just(1).concat_with(Flow(Broken())).subscribe(ts)
    ts.assert_values(1)
    assert [str(e) for e in ts.errors] == ["cannot subscribe"]


def test_spec109_an_arbiter_whose_first_upstream_is_none_fails_by_name() -> None:
    from reactive_streams._core.arbiter import Arbiter

    class Nothing(Arbiter[int]):
        hop = "nothing"

        def _first(self) -> Any:
            return None

    ts: TestSubscriber[int] = TestSubscriber(1)
    Nothing(ts).start()
    assert [str(e) for e in ts.errors] == ["rule 2.13: nothing: the first Publisher is None"]


def test_spec312_a_resume_function_that_cancels_subscribes_no_fallback() -> None:
    fallback = PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(5)

    def resume(error: BaseException) -> Flow[int]:
        ts.cancel()
        return Flow(fallback)

    Flow.error(OSError("x")).on_error_resume(resume).subscribe(ts)
    assert fallback.subscriber is None  # cancelled before the switch: no new upstream
    ts.assert_no_terminal()


def test_spec213_a_raising_on_subscribe_is_traced_as_raised() -> None:
    class Raising(TestSubscriber[int]):
        def on_subscribe(self, subscription: Any) -> None:
            super().on_subscribe(subscription)
            raise RuntimeError("on_subscribe fault")

    with tracing() as tracer:
        sources.range(0, 3).subscribe(Raising(1))
    ends = [e for e in tracer.events if e["sig"] == "end_on_subscribe"]
    assert [e["raised"] for e in ends] == [True]


# ------------------------------- the survivors of make mutation (relay, arbiter)


def test_a_hop_class_with_its_own_apply_and_on_next_keeps_its_on_next() -> None:
    from reactive_streams._core.relay import Relay

    class Own(Relay[int, int]):
        hop = "own"

        def _apply(self, item: int) -> int:
            return item * 2

        def on_next(self, item: int) -> None:
            downstream = self._out
            if downstream is not None:
                self._send(downstream, -item)

    ts: TestSubscriber[int] = TestSubscriber(10)
    sources.range(0, 3).subscribe(Own(ts))
    ts.assert_values(0, -1, -2).assert_complete()  # its on_next, not one made of _apply


def test_spec213_a_hop_refuses_on_subscribe_none_by_name() -> None:
    from reactive_streams._core.relay import Relay

    hop: Relay[int, int] = Relay(TestSubscriber(1))
    with pytest.raises(TypeError) as raised:
        hop.on_subscribe(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_subscribe(None)"


def test_spec205_a_hops_second_on_subscribe_is_cancelled() -> None:
    from reactive_streams._core.relay import Relay

    first, again = PushPublisher(), PushPublisher()
    ts: TestSubscriber[int] = TestSubscriber(2)
    hop: Relay[int, int] = Relay(ts)
    first.subscribe(hop)
    again.subscribe(hop)
    assert again.cancelled
    assert again.requested == []
    assert not first.cancelled
    assert first.requested == [2]
    first.push(1)
    first.complete()
    ts.assert_values(1).assert_complete()
    ended: Relay[int, int] = Relay(TestSubscriber(2))
    ended.on_complete()  # before any on_subscribe (an upstream's 1.9 breach)
    late = PushPublisher()
    late.subscribe(ended)
    assert late.cancelled
    assert late.requested == []


def test_spec208_a_late_element_after_the_terminal_is_not_applied() -> None:
    upstream = PushPublisher()
    applied: list[int] = []
    ts: TestSubscriber[int] = TestSubscriber(5)

    def seen(x: int) -> int:
        applied.append(x)
        return x

    Flow(upstream).map(seen).subscribe(ts)
    upstream.push(1)
    upstream.complete()
    upstream.push(2)  # rule 2.8: after on_complete the hop holds no downstream (3.13)
    assert applied == [1]
    ts.assert_values(1).assert_complete().assert_no_violations()


def test_spec109_switching_publishers_name_themselves_and_refuse_none() -> None:
    defer = Flow.defer(lambda: Flow.just(1))
    assert repr(defer.source) == "<defer>"
    with pytest.raises(TypeError) as raised:
        defer.source.subscribe(None)  # type: ignore[arg-type]
    expected = "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert str(raised.value) == expected


def test_spec208_a_stale_upstreams_late_on_subscribe_signals_nothing() -> None:
    """An upstream that ended before its ``on_subscribe`` (a 1.9 breach): its late
    ``on_subscribe`` is cancelled and ignored (2.8). A rule 3.9 request made while the
    second upstream is on its way is answered at once (it never waits for an upstream),
    and neither the stale upstream nor the late one signals anything after it."""

    class Early:
        subscriber: Any = None

        def subscribe(self, subscriber: Any) -> None:
            self.subscriber = subscriber
            subscriber.on_complete()

    early, late = Early(), _Deferred()
    ts: TestSubscriber[int] = TestSubscriber(0)
    Flow(early).concat_with(Flow(late)).subscribe(ts)
    ts.request(0)  # rule 3.9: the error now, not when the second upstream arrives
    assert [type(e) for e in ts.errors] == [ValueError]
    assert "rule 3.9" in str(ts.errors[0])
    stale = PushPublisher()
    early.subscriber.on_subscribe(stale)
    assert stale.cancelled
    late.arrive()
    assert late.upstream.cancelled
    assert late.upstream.requested == []
    assert len(ts.errors) == 1
    ts.assert_no_violations()
