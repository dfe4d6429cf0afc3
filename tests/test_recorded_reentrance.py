"""Recorded re-entrance: legal nesting is accepted, a depth beyond the bound is not.

The Python port of the reactive-streams-jvm ``RangePublisher`` (tests/tck/reference)
emits ``on_next`` inside the ``request(n)`` that ``on_subscribe`` makes. A recording
Subscriber writes the subscriber view of such a run (docs/trace-format.md, version 2:
every call with its end and its thread), and the trace checker judges the file with its
Python replay and with TLC (``spec/TraceReactiveStreams.tla``): accepted (rules 3.2,
3.3). A publisher that recurses (``on_next -> request -> on_next`` inline) gives a
depth-2 recording: rejected with the default bound 1 (rule 3.3), accepted with bound 2.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.api import Subscriber, Subscription
from reactive_streams.trace.format import Header, read_trace, write_trace
from reactive_streams.trace.validate import (
    TlcUnavailable,
    Verdict,
    find_jar,
    find_spec_dir,
    validate_traces,
)
from tck.reference.range_publisher import RangePublisher

pytestmark = pytest.mark.timeout(300)


class RecordedSubscription:
    """Wraps a Subscription: logs each request/cancel call and its return."""

    def __init__(self, inner: Subscription, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    def request(self, n: int) -> None:
        self._recorder.log("request", n=n)
        try:
            self._inner.request(n)
        finally:
            self._recorder.log("end_request")

    def cancel(self) -> None:
        self._recorder.log("cancel")
        try:
            self._inner.cancel()
        finally:
            self._recorder.log("end_cancel")


class Recorder:
    """A Subscriber that records its side of the protocol (the subscriber view).

    ``on_subscribe_request``: requested from on_subscribe; ``on_next_request(k)``: what to
    request from the k-th on_next (None: nothing)."""

    def __init__(
        self, on_subscribe_request: int, on_next_request: Callable[[int], int | None]
    ) -> None:
        self.events: list[dict[str, Any]] = []
        self._clock = itertools.count(1)
        self._on_subscribe_request = on_subscribe_request
        self._on_next_request = on_next_request
        self.subscription: RecordedSubscription | None = None
        self.received: list[int] = []
        self.completed = False

    def log(self, sig: str, **fields: Any) -> None:
        event: dict[str, Any] = {"clock": next(self._clock), "sub": 1, "sig": sig}
        event.update(fields)
        event["thread"] = threading.get_ident()
        self.events.append(event)

    def subscribe_to(self, publisher: Any) -> None:
        self.log("subscribe")
        publisher.subscribe(self)

    def on_subscribe(self, subscription: Subscription) -> None:
        self.log("begin_on_subscribe")
        self.subscription = RecordedSubscription(subscription, self)
        self.subscription.request(self._on_subscribe_request)
        self.log("end_on_subscribe", raised=False)

    def on_next(self, item: int) -> None:
        self.received.append(item)
        seq = len(self.received)
        self.log("begin_on_next", seq=seq)
        more = self._on_next_request(seq)
        if more is not None:
            assert self.subscription is not None
            self.subscription.request(more)
        self.log("end_on_next", seq=seq, raised=False)

    def on_error(self, error: BaseException) -> None:
        self.log("begin_on_error", error=str(error), error_type=type(error).__name__)
        self.log("end_on_error", raised=False)

    def on_complete(self) -> None:
        self.log("begin_on_complete")
        self.completed = True
        self.log("end_on_complete", raised=False)


class RecursivePublisher:
    """Emits inside request(), whoever calls it: a request made from on_next nests the
    next on_next inside the running one (``on_next -> request -> on_next``)."""

    def __init__(self, count: int) -> None:
        self.count = count

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        subscriber.on_subscribe(_RecursiveSubscription(subscriber, self.count))


class _RecursiveSubscription:
    def __init__(self, subscriber: Subscriber[int], count: int) -> None:
        self._subscriber = subscriber
        self._left = count
        self._demand = 0
        self._done = False

    def request(self, n: int) -> None:
        self._demand += n
        while self._demand > 0 and self._left > 0:
            self._demand -= 1
            self._left -= 1
            self._subscriber.on_next(self._left)
        if self._left == 0 and not self._done:
            self._done = True
            self._subscriber.on_complete()

    def cancel(self) -> None:
        self._left = 0


def _record(tmp_path: Path, name: str, recorder: Recorder, mode: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    header = Header(mode=mode, view="subscriber", quiescent=True)
    write_trace(path, recorder.events, header)
    return path


def _judge(path: Path, *, use_tlc: bool, max_depth: int = 1) -> Verdict:
    [verdict] = validate_traces([read_trace(path)], use_tlc=use_tlc, max_depth=max_depth)
    return verdict


def _tlc_available() -> bool:
    import shutil

    return shutil.which("java") is not None and find_jar() is not None and bool(find_spec_dir())


needs_tlc = pytest.mark.skipif(not _tlc_available(), reason="TLC needs Java and tla2tools.jar")


def _range_run() -> Recorder:
    """RangePublisher(1, 5): request(2) from on_subscribe, request(1) from each on_next."""
    recorder = Recorder(2, lambda seq: 1)
    recorder.subscribe_to(RangePublisher(1, 5))
    assert recorder.received == [1, 2, 3, 4, 5]
    assert recorder.completed
    return recorder


def _recursive_run() -> Recorder:
    """request(1) from on_subscribe; on_next #1 requests 1, which emits #2 inside it."""
    recorder = Recorder(1, lambda seq: 1 if seq == 1 else None)
    recorder.subscribe_to(RecursivePublisher(2))
    assert len(recorder.received) == 2
    assert recorder.completed
    return recorder


def test_range_publisher_recording_nests_on_next_inside_the_request() -> None:
    sigs = [e["sig"] for e in _range_run().events]
    # subscribe, begin_on_subscribe, request(2), then on_next #1 inside that request
    assert sigs[:4] == ["subscribe", "begin_on_subscribe", "request", "begin_on_next"]
    inner = sigs.index("end_request")  # the first request() made from on_next #1
    assert sigs[inner - 1] == "request"
    assert sigs[-2:] == ["end_request", "end_on_subscribe"]  # everything ran inside request(2)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_spec303_range_publisher_reentrance_is_accepted_by_the_replay(
    tmp_path: Path, mode: str
) -> None:
    verdict = _judge(_record(tmp_path, "range", _range_run(), mode), use_tlc=False)
    assert verdict.ok, verdict.line()


@needs_tlc
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_spec303_range_publisher_reentrance_is_accepted_by_tlc(tmp_path: Path, mode: str) -> None:
    verdict = _judge(_record(tmp_path, "range", _range_run(), mode), use_tlc=True)
    assert verdict.ok, verdict.line()
    assert verdict.judge == "tlc"


@pytest.mark.parametrize("use_tlc", [False, pytest.param(True, marks=needs_tlc)])
def test_spec303_depth_2_recording_is_rejected_with_bound_1(tmp_path: Path, use_tlc: bool) -> None:
    verdict = _judge(_record(tmp_path, "deep", _recursive_run(), "sync"), use_tlc=use_tlc)
    assert not verdict.ok
    assert verdict.rule == "3.3", verdict.line()
    assert verdict.judge == ("tlc" if use_tlc else "python")
    assert "disagree" not in verdict.message  # TLC rejects it too, at the same event
    # the offending event is the second begin_on_next, nested in the first on_next
    assert verdict.sig in ("send_on_next", "begin_on_next"), verdict.line()


@pytest.mark.parametrize("use_tlc", [False, pytest.param(True, marks=needs_tlc)])
def test_spec303_depth_2_recording_is_accepted_with_bound_2(tmp_path: Path, use_tlc: bool) -> None:
    path = _record(tmp_path, "deep", _recursive_run(), "sync")
    try:
        verdict = _judge(path, use_tlc=use_tlc, max_depth=2)
    except TlcUnavailable as exc:  # a checker whose TLA+ side cannot take the bound
        pytest.fail(f"TLC cannot check depth 2: {exc}")
    assert verdict.ok, verdict.line()
    assert verdict.judge == ("tlc" if use_tlc else "python")
