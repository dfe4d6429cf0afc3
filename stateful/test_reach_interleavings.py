"""State machine that reaches the interleavings the publisher machine rarely shows.

Driven by the trace coverage report (``spec/trace_coverage.py``): the spec lets the
Subscriber call ``request``/``cancel`` from another thread at any moment, also between
the moment a signal is committed (``send_*``) and the moment its ``on_*`` call begins.
Here a rule ``interpose`` schedules such a call: when the publisher is about to begin
the next signal of that subscription, the call runs to completion on a helper thread,
then the signal begins. The run is deterministic (the helper is joined), and the trace
shows a real interleaving: the call crosses a committed signal in flight, and a cancel
may be received while a signal is in flight (rule 2.8: it is still delivered).

Runs are shaped like the small model the coverage is measured on (``rs_coverage``:
2 elements, requests of 0, 2 or unbounded): sources of 0..3 elements, request(n) with
n in {2, 2**63-1, 0}. A helper call is made only while
no other request/cancel of that subscription is running (rule 2.7: calls are serial),
and only in executor mode: a synchronous publisher's trace promises that nothing
happens between a commit and its delivery (rule 3.10), which a second thread breaks.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from reactive_streams._core import tracer as core_tracing
from reactive_streams.sources import IterablePublisher
from reactive_streams.trace.format import event_from_dict
from reactive_streams.trace.invariants import serial_calls_inv, spec213_fault_cancels_prop
from reactive_streams.trace.model import Replay, SubState
from reactive_streams.trace.transitions import MAX_DEMAND

from .machines import Arm, Probe, TracedMachine
from .test_publisher_machine import SOURCES, SourceFailure, make_publisher

_WAIT = 10.0


@dataclass(frozen=True)
class Interlude:
    """A call made on another thread right before a signal begins (after ``skip`` of them)."""

    action: str  # request | cancel
    n: Any = 1
    skip: int = 0
    before: str = "any"  # the signal it precedes: any | on_next | on_complete | on_error


class CountingProbe(Probe):
    """A Probe that knows how many of its request()/cancel() calls are running."""

    def __init__(self, log: list[dict[str, Any]], sub: int, initial: Any = None) -> None:
        super().__init__(log, sub, initial)
        self.calling = 0
        self.interludes: deque[Interlude] = deque()

    def request(self, n: Any) -> None:
        self.calling += 1
        try:
            super().request(n)
        finally:
            self.calling -= 1

    def cancel(self) -> None:
        self.calling += 1
        try:
            super().cancel()
        finally:
            self.calling -= 1


class InterposingTracer(core_tracing.Tracer):
    """The core tracer, plus: right before a ``begin_on_*`` event, run the next
    scheduled interlude of that subscription's probe on a helper thread."""

    def __init__(self, probes: list[Probe]) -> None:
        super().__init__()
        self._probes = probes
        self.active = True
        self.failures: list[str] = []

    def emit(self, sub: int, sig: str, **fields: Any) -> None:
        if sig.startswith("begin_on_"):
            self._interpose(sub, sig[len("begin_") :])
        super().emit(sub, sig, **fields)

    def _probe(self, sub: int) -> CountingProbe | None:
        for probe in self._probes:
            subscription = probe.subscription
            if (
                isinstance(probe, CountingProbe)
                and subscription is not None
                and getattr(subscription, "subscription_id", None) == sub
            ):
                return probe
        return None

    def _interpose(self, sub: int, signal: str) -> None:
        probe = self._probe(sub) if self.active else None
        if probe is None or probe.calling or not probe.interludes:
            return  # no Subscription yet, or a call is running (rule 2.7)
        step = probe.interludes[0]
        if step.before not in ("any", signal):
            return
        if step.skip:
            probe.interludes[0] = replace(step, skip=step.skip - 1)
            return
        probe.interludes.popleft()
        errors: list[BaseException] = []

        def call() -> None:
            try:
                if step.action == "request":
                    probe.request(step.n)
                else:
                    probe.cancel()
            except BaseException as exc:  # reported by the machine's invariant
                errors.append(exc)

        helper = threading.Thread(target=call, name=f"interlude-{sub}")
        helper.start()
        helper.join(_WAIT)
        if helper.is_alive():
            self.failures.append(f"{step} on subscription {sub} did not return within {_WAIT} s")
        self.failures.extend(f"{step} on subscription {sub} raised {e!r}" for e in errors)


_kinds = st.sampled_from(SOURCES)
_sizes = st.sampled_from([2, 2, MAX_DEMAND, 0])  # the model's Sizes {2, MaxDemand, 0}
_interludes = st.builds(
    Interlude,
    action=st.sampled_from(["request", "request", "cancel"]),
    n=_sizes,
    skip=st.integers(0, 2),
    before=st.sampled_from(["any", "any", "on_next", "on_complete", "on_error"]),
)
_arms = st.builds(
    Arm,
    signal=st.sampled_from(["on_subscribe", "on_next", "on_next", "on_complete", "on_error"]),
    action=st.sampled_from(["request", "cancel", "raise"]),
    n=_sizes,
    skip=st.integers(0, 1),
)
_initials = st.one_of(st.none(), _sizes)
_presets = st.lists(_arms, max_size=2)


class ReachMachine(TracedMachine):
    tracer_with_interludes: InterposingTracer | None = None

    @initialize(
        sync=st.booleans(),
        kind=_kinds,
        length=st.integers(0, 3),
        batch=st.integers(1, 3),
        initial=_initials,
        preset=_presets,
        interludes=st.lists(_interludes, max_size=2),
    )
    def setup(
        self,
        sync: bool,
        kind: str,
        length: int,
        batch: int,
        initial: Any,
        preset: list[Arm],
        interludes: list[Interlude],
    ) -> None:
        """Always traced; the tracer runs the interludes."""
        self.configure(sync, untraced=False)
        tracer = InterposingTracer(self.probes)
        tracer.active = not sync  # rule 3.10: a synchronous trace has no interludes
        core_tracing._tracer = tracer
        self.tracer = self.tracer_with_interludes = tracer
        self.subscribe(kind, length, batch, initial, preset, interludes)

    @precondition(lambda self: len(self.probes) < self.max_subscriptions)
    @rule(
        kind=_kinds,
        length=st.integers(0, 3),
        batch=st.integers(1, 3),
        initial=_initials,
        preset=_presets,
        interludes=st.lists(_interludes, max_size=2),
    )
    def subscribe(
        self,
        kind: str,
        length: int,
        batch: int,
        initial: Any,
        preset: list[Arm],
        interludes: list[Interlude],
    ) -> None:
        """Subscribe a probe to a short source (rules 1.9, 1.10)."""
        probe = CountingProbe(self.probe_log, len(self.probes) + 1, initial)
        probe.arms.extend(preset)
        probe.interludes.extend(interludes)
        self.attach(make_publisher(kind, length, self.executor, batch), probe, length)

    @precondition(lambda self: bool(self.probes))
    @rule(data=st.data(), step=_interludes)
    def interpose(self, data: st.DataObject, step: Interlude) -> None:
        """Another thread calls request/cancel right before the probe's next signal begins
        (after the publisher committed it)."""
        probe = data.draw(st.sampled_from(self.probes), label="probe")
        assert isinstance(probe, CountingProbe)
        probe.interludes.append(step)

    @precondition(lambda self: any(p.subscription is not None for p in self.probes))
    @rule(data=st.data(), n=_sizes)
    def request(self, data: st.DataObject, n: Any) -> None:
        """Subscriber calls request(n), n of the model's sizes (rules 3.9, 3.17)."""
        probe = data.draw(st.sampled_from(self.live()), label="probe")
        probe.request(n)

    @precondition(lambda self: bool(self.probes))
    @rule(data=st.data(), arm=_arms)
    def arm(self, data: st.DataObject, arm: Arm) -> None:
        """The probe's next ``arm.signal`` call requests, cancels or raises from inside
        (rules 2.13, 3.2, 3.3)."""
        probe = data.draw(st.sampled_from(self.probes), label="probe")
        probe.arms.append(arm)

    @invariant()
    def spec207_serial_calls(self) -> None:
        self.check_trace()
        if not self._replay.ends_seen:
            return  # version 1: calls return at once, nothing can overlap
        for sub, state in self._replay.subs.items():
            self._failed = not serial_calls_inv(state)
            assert not self._failed, f"rule 2.7: overlapping calls on subscription {sub}"

    def check_at_rest(self) -> None:
        super().check_at_rest()
        for sub, state in self._replay.subs.items():
            self._failed = not spec213_fault_cancels_prop(state)
            assert not self._failed, f"rule 2.13: subscription {sub} raised, never cancelled"

    @invariant()
    def interludes_returned(self) -> None:
        tracer = self.tracer_with_interludes
        failures = [] if tracer is None else tracer.failures
        self._failed = bool(failures)
        assert not failures, failures


TestReachMachine = ReachMachine.TestCase


def _unopenable() -> list[int]:
    raise SourceFailure("the source cannot be opened")


def test_invalid_request_answered_before_the_source_is_opened() -> None:
    """request(0) from on_subscribe is received first; the answer must be the
    IllegalArgument onError (ValueError), not the source's failure."""
    probe = Probe([], 1, initial=0)
    IterablePublisher(_unopenable).subscribe(probe)
    assert len(probe.errors) == 1
    assert isinstance(probe.errors[0], ValueError), f"rule 3.9: got {probe.errors[0]!r}"


def _replayed(*events: dict[str, Any]) -> SubState:
    replay = Replay(call_ends=True)
    for k, raw in enumerate(events):
        event = event_from_dict({"clock": k + 1, "sub": 1, **raw}, k + 1)
        assert replay.step(event) is None, raw
    return replay.state(1)


_SUBSCRIBED = (
    {"sig": "subscribe", "thread": 1},
    {"sig": "send_on_subscribe", "thread": 1},
    {"sig": "begin_on_subscribe", "thread": 1},
    {"sig": "end_on_subscribe", "thread": 1, "raised": False},
)


def test_spec207_twin_accepts_nested_calls_and_flags_a_second_thread() -> None:
    state = _replayed(
        *_SUBSCRIBED,
        {"sig": "request", "thread": 1, "n": 1},
        {"sig": "recv_request", "thread": 1, "n": 1},
        {"sig": "send_on_next", "thread": 1, "seq": 1},
        {"sig": "begin_on_next", "thread": 1, "seq": 1},
        {"sig": "request", "thread": 1, "n": 1},  # nested on thread 1: serial
    )
    assert serial_calls_inv(state)
    state.call_threads[2] = 1  # a call open on a second thread as well
    assert not serial_calls_inv(state)


def test_spec213_twin_needs_the_cancel_after_a_raise() -> None:
    raised = (
        *_SUBSCRIBED,
        {"sig": "request", "thread": 1, "n": 1},
        {"sig": "end_request", "thread": 1},
        {"sig": "recv_request", "thread": 1, "n": 1},
        {"sig": "send_on_next", "thread": 1, "seq": 1},
        {"sig": "begin_on_next", "thread": 1, "seq": 1},
        {"sig": "end_on_next", "thread": 1, "seq": 1, "raised": True},
    )
    assert not spec213_fault_cancels_prop(_replayed(*raised))
    cancelled = _replayed(
        *raised, {"sig": "cancel", "thread": 1}, {"sig": "end_cancel", "thread": 1}
    )
    assert spec213_fault_cancels_prop(cancelled)
