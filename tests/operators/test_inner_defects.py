"""Issue 21, defects 6, 7 and 8: inner subscriptions, do_on_request's fault, and
sources whose ``subscribe`` raises. Each window is forced (an Event handshake at a
function boundary); every wait is bounded."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import ManualExecutor
from reactive_streams.api import Publisher, Subscriber
from reactive_streams.flow import Flow
from reactive_streams.operators import _transform
from reactive_streams.testing import TestSubscriber

WAIT = 10.0


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    logging.disable(logging.ERROR)  # faults on purpose are logged by the library
    yield
    logging.disable(logging.NOTSET)


# ------------------------------------------------------------- 6: rule 2.7 on inners


class _BlockingInner:
    """A Publisher whose first ``request`` (made on the subscribing thread) emits
    ``count`` elements on a thread of its own and returns only after they were taken:
    the operator's drain then runs on that thread and replenishes from there, while
    the first call is still in progress. ``overlaps`` counts calls that met another."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.subscriber: Subscriber[Any] | None = None
        self.overlaps = 0
        self.calls = 0
        self.timed_out = False
        self._inside = 0
        self._lock = threading.Lock()

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)

    def _enter(self) -> bool:
        with self._lock:
            self._inside += 1
            self.calls += 1
            if self._inside > 1:
                self.overlaps += 1  # rule 2.7: two calls at once
            return self.calls == 1

    def _leave(self) -> None:
        with self._lock:
            self._inside -= 1

    def request(self, n: int) -> None:
        first = self._enter()
        try:
            if first:
                sent = threading.Event()
                threading.Thread(target=self._emit, args=(sent,), daemon=True).start()
                self.timed_out = not sent.wait(WAIT)
        finally:
            self._leave()

    def _emit(self, sent: threading.Event) -> None:
        subscriber = self.subscriber
        assert subscriber is not None
        for i in range(self.count):
            subscriber.on_next(("b", i))
        sent.set()

    def cancel(self) -> None:
        self._enter()
        self._leave()


def _pushed_then(make: Callable[[Flow[Any]], Flow[Any]]) -> Callable[[Any], Flow[Any]]:
    """``make`` over an upstream the test pushes from its own thread, outside any
    drain (a synchronous upstream would subscribe the inner from inside the drain)."""

    def build(inner: _BlockingInner) -> Flow[Any]:
        source = _Pushed()
        flow = make(Flow.from_publisher(source))
        return Flow.from_publisher(_PushOnSubscribe(flow, source, lambda _: inner))

    return build


class _PushOnSubscribe:
    """Subscribes ``flow``, then pushes one element into ``source`` (mapped by the
    operator under test to the inner)."""

    def __init__(self, flow: Flow[Any], source: _Pushed, _: Callable[[Any], Any]) -> None:
        self._flow = flow
        self._source = source

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self._flow.subscribe(subscriber)
        upstream = self._source.subscriber
        assert upstream is not None
        upstream.on_next(0)


_INNER_OPERATORS: dict[str, Callable[[_BlockingInner], Flow[Any]]] = {
    "zip": lambda inner: Flow.zip(Flow.range(0, 100), inner, prefetch=4),
    "flat_map": lambda inner: _pushed_then(lambda f: f.flat_map(lambda _: inner, prefetch=4))(
        inner
    ),
    "concat_map": lambda inner: _pushed_then(lambda f: f.concat_map(lambda _: inner, prefetch=4))(
        inner
    ),
}


@pytest.mark.parametrize("name", sorted(_INNER_OPERATORS))
def test_inner_subscription_calls_are_serial(name: str) -> None:
    """Rule 2.7: the prefetch request (on_subscribe's thread) and the replenishing one
    (the drain, run by the inner's own thread meanwhile) never overlap on an inner.
    (merge subscribes its inners from inside its drain: the same ``QueuedInner``.)"""
    inner = _BlockingInner(count=3)  # prefetch 4: replenished after 3
    ts: TestSubscriber[Any] = TestSubscriber(initial_request=100)
    _INNER_OPERATORS[name](inner).subscribe(ts)
    assert not inner.timed_out, "the inner's emission did not return"
    ts.await_count(3, WAIT)
    assert inner.calls >= 2, f"{name}: the inner was not replenished ({inner.calls} calls)"
    assert inner.overlaps == 0, f"{name}: rule 2.7: {inner.overlaps} overlapping calls"
    ts.cancel()


# ------------------------------------------------- 7: do_on_request's fault, 1.3/1.7


class _Pushed:
    def __init__(self) -> None:
        self.subscriber: Subscriber[Any] | None = None

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


class _Recorder(TestSubscriber[Any]):
    """Records whether an element arrived while the fault's terminal was on its way."""

    def __init__(self) -> None:
        super().__init__()
        self.in_window = threading.Event()  # the fault is being delivered
        self.late: list[Any] = []

    def on_next(self, item: Any) -> None:
        if self.in_window.is_set():
            self.late.append(item)  # rules 1.3, 1.7: beside or after on_error
        super().on_next(item)


class _Fault(Exception):
    pass


def test_do_on_request_fault_passes_no_element(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault of ``do_on_request``'s action is handed to the terminal signal in the
    same step that stops elements passing: an upstream element arriving while the
    requesting thread is on its way to ``on_error`` is dropped, not delivered."""
    source = _Pushed()
    ts = _Recorder()

    def action(n: int) -> None:
        if n == 2:
            raise _Fault("do_on_request(2)")

    Flow.from_publisher(source).do_on_request(action).subscribe(ts)
    ts.request(1)
    hop = source.subscriber
    assert hop is not None
    hop.on_next("a")  # passes: no fault yet
    entered = threading.Event()
    release = threading.Event()
    finish = _transform.DoOnRequest._finish

    def blocked_finish(self: Any, error: BaseException | None) -> bool:
        if isinstance(error, _Fault):
            ts.in_window.set()
            entered.set()
            assert release.wait(WAIT), "the test did not release _finish"
        return finish(self, error)

    monkeypatch.setattr(_transform.DoOnRequest, "_finish", blocked_finish)
    requester = threading.Thread(target=ts.request, args=(2,), daemon=True)
    requester.start()
    assert entered.wait(WAIT), "the fault never reached _finish"
    emitter = threading.Thread(target=hop.on_next, args=("b",), daemon=True)
    emitter.start()
    emitter.join(WAIT)
    assert not emitter.is_alive(), "on_next did not return"
    release.set()
    requester.join(WAIT)
    assert not requester.is_alive(), "request did not return"
    assert not ts.late, f"rules 1.3, 1.7: {ts.late} passed while on_error was due"
    assert ts.values == ["a"]
    ts.assert_error(_Fault)


# ----------------------------------------------- 8: a subscribe() that raises (1.9)


class _SubscribeRaises:
    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        raise _Fault("subscribe raised")


class _SubscribesThenRaises:
    """Sends ``on_subscribe``, then raises: the subscription must be cancelled."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(self)
        raise _Fault("subscribe raised after on_subscribe")

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        self.cancelled.set()


def _raising_cases() -> dict[str, Callable[[Publisher[Any]], Flow[Any]]]:
    return {
        "zip-first": lambda bad: Flow.zip(bad, Flow.range(0, 3)),
        "zip-second": lambda bad: Flow.zip(Flow.range(0, 3), bad),
        "flat_map-inner": lambda bad: Flow.range(0, 1).flat_map(lambda _: bad),
        "just-flat_map": lambda bad: Flow.just(0).flat_map(lambda _: bad),  # macro-fused
        "concat_map-inner": lambda bad: Flow.range(0, 2).concat_map(lambda _: bad),
        "merge": lambda bad: Flow.merge(Flow.range(0, 3), bad),
        "flat_map-source": lambda bad: Flow.from_publisher(bad).flat_map(Flow.just),
        "subscribe_on": lambda bad: Flow.from_publisher(bad).subscribe_on(_IMMEDIATE),
    }


class _Immediate:
    def execute(self, task: Callable[[], object]) -> None:
        task()


_IMMEDIATE = _Immediate()


@pytest.mark.parametrize("then_raises", [False, True], ids=["raises", "subscribes-then-raises"])
@pytest.mark.parametrize("case", sorted(_raising_cases()))
def test_subscribe_raising_becomes_on_error(case: str, then_raises: bool) -> None:
    """Rule 1.9: ``subscribe`` returns normally, and a source whose own ``subscribe``
    raises reaches the waiting subscriber as ``on_error``, after ``on_subscribe``."""
    bad: Any = _SubscribesThenRaises() if then_raises else _SubscribeRaises()
    ts: TestSubscriber[Any] = TestSubscriber()
    _raising_cases()[case](bad).subscribe(ts)  # must not raise
    ts.await_terminal(WAIT)
    ts.assert_no_violations()
    ts.assert_error(_Fault)
    if then_raises:
        assert bad.cancelled.wait(WAIT), "rule 3.13: the source's subscription was kept"


def test_subscribe_on_raising_source_on_an_executor() -> None:
    """subscribe_on's subscribe runs as a task: its raise is on_error, not a log line."""
    executor = ManualExecutor()
    ts: TestSubscriber[Any] = TestSubscriber()
    Flow.from_publisher(_SubscribeRaises()).subscribe_on(executor).subscribe(ts)
    for _ in range(10):
        if not len(executor):
            break
        executor.run_next()
    assert len(executor) == 0, "tasks still queued"
    ts.assert_error(_Fault)
    ts.assert_no_violations()


@pytest.mark.parametrize("args", [(Flow.range(0, 2), 42), (42,), (Flow.just(1), None)])
def test_zip_rejects_a_non_publisher_argument(args: tuple[Any, ...]) -> None:
    """A non-Publisher argument is a TypeError at the call, naming its position."""
    position = next(i for i, a in enumerate(args) if not isinstance(a, Flow))
    with pytest.raises(TypeError, match=f"argument {position + 1}"):
        Flow.zip(*args)


def test_zip_with_rejects_a_non_publisher() -> None:
    with pytest.raises(TypeError, match="zip_with"):
        Flow.range(0, 2).zip_with(42)  # type: ignore[arg-type]
