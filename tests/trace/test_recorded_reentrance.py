"""Recorded runs of re-entrant publishers (issue: legal re-entrance accepted by the
replay). A publisher in the style of reactive-streams-jvm's RangePublisher delivers
elements inside ``request(n)``, including the first ``request`` made from
``on_subscribe``; it guards against re-entrant requests from ``on_next`` so the
onNext -> request -> onNext depth stays 1. The same publisher without the guard recurses,
and the trace is rejected for rule 3.3 at the first nested ``on_next``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reactive_streams.trace.format import Header, write_trace
from reactive_streams.trace.validate import validate_files
from reactive_streams.tracing import Tracer, error_type


class _Subscription:
    """Emits ``0..count-1`` inside request(); ``guarded``: a re-entrant request only adds
    demand and the outer call keeps emitting (rule 3.3)."""

    def __init__(self, tracer: Tracer, sub: int, subscriber: _Subscriber, count: int) -> None:
        self.tracer, self.sub, self.subscriber, self.count = tracer, sub, subscriber, count
        self.demand = 0
        self.next = 0
        self.emitting = False
        self.done = False
        self.guarded = True

    def request(self, n: int) -> None:
        self.tracer.emit(self.sub, "request", n=n)
        try:
            self._request(n)
        finally:
            self.tracer.emit(self.sub, "end_request")

    def _request(self, n: int) -> None:
        if self.done:
            return
        self.tracer.emit(self.sub, "recv_request", n=n)
        if n <= 0:
            self.done = True
            error = ValueError(f"rule 3.9: request(n) requires n > 0, got {n}")
            self.tracer.emit(
                self.sub, "send_on_error", error=str(error), error_type=error_type(error)
            )
            self.subscriber.signal("on_error")
            return
        self.demand += n
        if self.emitting and self.guarded:
            return  # the outer request() delivers it
        self.emitting = True
        while self.demand > 0 and self.next < self.count and not self.done:
            self.demand -= 1
            self.next += 1
            self.tracer.emit(self.sub, "send_on_next", seq=self.next)
            self.subscriber.signal("on_next", seq=self.next)
        if self.next == self.count and not self.done:
            self.done = True
            self.tracer.emit(self.sub, "send_on_complete")
            self.subscriber.signal("on_complete")
        self.emitting = False


class _Subscriber:
    def __init__(self, tracer: Tracer, sub: int, on_signal: Callable[[_Subscriber, str], None]):
        self.tracer, self.sub, self.on_signal = tracer, sub, on_signal
        self.subscription: _Subscription | None = None

    def signal(self, name: str, **fields: int) -> None:
        self.tracer.emit(self.sub, f"begin_{name}", **fields)
        self.on_signal(self, name)
        self.tracer.emit(self.sub, f"end_{name}", **fields, raised=False)


def _record(tmp_path: Path, guarded: bool, first: int) -> Path:
    tracer = Tracer()
    sub = tracer.new_subscription_id()

    def on_signal(subscriber: _Subscriber, name: str) -> None:
        assert subscriber.subscription is not None
        if name == "on_subscribe":
            subscriber.subscription.request(first)
        elif name == "on_next":
            subscriber.subscription.request(1)  # one more per element

    subscriber = _Subscriber(tracer, sub, on_signal)
    tracer.emit(sub, "subscribe")
    subscription = _Subscription(tracer, sub, subscriber, count=4)
    subscription.guarded = guarded
    subscriber.subscription = subscription
    tracer.emit(sub, "send_on_subscribe")
    subscriber.signal("on_subscribe")
    path = tmp_path / f"range-{guarded}-{first}.jsonl"
    write_trace(path, tracer.events, Header(mode="sync", quiescent=True))
    return path


def test_a_recorded_range_publisher_is_valid(tmp_path: Path) -> None:
    paths = [_record(tmp_path, True, first) for first in (1, 2, 10)]
    verdicts, _ = validate_files(paths, use_tlc=False)
    assert all(v.ok for v in verdicts), [v.line() for v in verdicts]
    text = paths[0].read_text()
    assert '"sig":"end_request"' in text  # the elements really were delivered inside it


def test_a_recorded_unguarded_recursion_is_rule_303(tmp_path: Path) -> None:
    path = _record(tmp_path, False, 1)
    [verdict], _ = validate_files([path], use_tlc=False)
    assert not verdict.ok
    assert verdict.rule == "3.3", verdict.line()
    assert verdict.sig == "send_on_next"  # synchronous: the nested onNext is due at once
    [deeper], _ = validate_files([path], use_tlc=False, max_depth=10)
    assert deeper.ok, deeper.line()
