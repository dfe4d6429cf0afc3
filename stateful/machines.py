"""Reusable parts of the state machines: a probe Subscriber and ``TracedMachine``.

How to write a machine for a publisher, operator or processor
-------------------------------------------------------------
1. Subclass ``TracedMachine``. Its rules are the spec's actions in snake_case
   (``request``, ``cancel``, ``run_task``; plus ``arm`` for calls made from inside a
   Subscriber method); write a ``subscribe`` rule that builds your publisher on
   ``self.executor`` (``None`` for synchronous mode) and calls
   ``self.attach(publisher, Probe(...))``.
2. Every subscription made while the machine runs is traced by the core's tracing
   hook (``reactive_streams.tracing``), so every signal of an operator's upstream
   and downstream is replayed too. After each step the new events are replayed
   against the Python transcription of ``spec/ReactiveStreams.tla``
   (``reactive_streams.trace.model``): an event whose spec action is not enabled
   fails the step with the rule it breaks, and the ``@invariant`` methods (named
   like the spec's invariants) check every subscription's state.
3. Whenever nothing is queued (always, in synchronous mode) and when an example ends
   (``teardown`` first runs the executor dry), the properties at rest are checked:
   onSubscribe answered, invalid requests answered, cancel observed, references
   dropped, demand served, completion when everything was requested.
   ``check_at_rest`` can be extended for your component.
4. ``untraced = True`` (drawn by ``initialize``) switches the core tracer off so the
   fast paths run; the probe's own subscriber-side log is replayed instead (the
   subscriber view of docs/trace-format.md).
5. Set ``RS_TRACE_DIR`` to write each example's trace there (``make traces`` does).

Hypothesis draws happen only in rules, on the test thread; ``ManualExecutor.run(i)``
with a drawn ``i`` is how a machine chooses thread interleavings deterministically.
"""

from __future__ import annotations

import gc
import itertools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from reactive_streams._core import tracer as core_tracing
from reactive_streams.api import Publisher, Subscription
from reactive_streams.executors import ManualExecutor
from reactive_streams.trace.expand import expand_subscriber_view
from reactive_streams.trace.format import Event, Header, Trace, event_from_dict, write_trace
from reactive_streams.trace.model import Replay
from reactive_streams.trace.transitions import MAX_DEMAND, is_valid_n, sat_add
from reactive_streams.tracing import start_tracing

from . import invariants as inv

__all__ = ["Arm", "Probe", "TracedMachine", "arms", "request_sizes"]

_counter = itertools.count(1)

#: request(n) arguments: valid, huge, overflowing, and invalid ones (rule 3.9)
request_sizes: st.SearchStrategy[Any] = st.one_of(
    st.integers(1, 4),
    st.sampled_from([2**62, MAX_DEMAND - 1, MAX_DEMAND, 2**63, 2**64]),
    st.sampled_from([0, -1, -(2**63), True, False, 1.5, "1", None]),
)


class SubscriberFault(Exception):
    """Raised on purpose by a Probe (rule 2.13: the publisher must cancel, not crash)."""


@dataclass(frozen=True)
class Arm:
    """What a Probe does once, inside its next ``signal`` call: request(n), cancel, raise."""

    signal: str  # on_subscribe | on_next | on_complete | on_error
    action: str  # request | cancel | raise
    n: Any = 1
    skip: int = 0  # let this many matching calls pass first

    def __repr__(self) -> str:
        arg = f"({self.n!r})" if self.action == "request" else ""
        later = f" after {self.skip}" if self.skip else ""
        return f"Arm({self.signal}{later}: {self.action}{arg})"


#: one instruction for a Probe's next on* call
arms: st.SearchStrategy[Arm] = st.builds(
    Arm,
    signal=st.sampled_from(["on_subscribe", "on_next", "on_next", "on_complete", "on_error"]),
    action=st.sampled_from(["request", "request", "cancel", "raise"]),
    n=request_sizes,
    skip=st.integers(0, 3),
)


class Probe:
    """A Subscriber that logs its side of the protocol and obeys ``Arm`` instructions.

    ``initial`` is requested from ``on_subscribe``. Its log is the subscriber view of
    the trace (events ``subscribe``, ``request``, ``cancel``, ``begin_*``, ``end_*``).
    """

    def __init__(self, log: list[dict[str, Any]], sub: int, initial: Any = None) -> None:
        self._log = log
        self.sub = sub
        self.initial = initial
        self.subscription: Subscription | None = None
        self.arms: deque[Arm] = deque()
        self.received = 0
        self.requested = 0  # valid demand, saturating (what the publisher owes)
        self.invalid = False
        self.cancelled = False
        self.faulted = False
        self.completed = False
        self.errors: list[BaseException] = []
        self.changed = threading.Condition()  # notified after every signal

    def _notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Wait (bounded) until ``predicate()`` holds after some signal; False on timeout."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    def __repr__(self) -> str:
        return f"Probe#{self.sub}(received={self.received}, requested={self.requested})"

    def log(self, sig: str, **fields: Any) -> None:
        event = {"clock": next(_counter), "sub": self.sub, "sig": sig}
        event.update(fields)
        self._log.append(event)

    @property
    def terminated(self) -> bool:
        return self.completed or bool(self.errors)

    # ----------------------------------------------------------- subscriber side
    def request(self, n: Any) -> None:
        assert self.subscription is not None
        self.log("request", n=n if type(n) is int else None)
        if is_valid_n(n if type(n) is int else None):
            self.requested = sat_add(self.requested, n)
        else:
            self.invalid = True
        self.subscription.request(n)

    def cancel(self) -> None:
        assert self.subscription is not None
        self.log("cancel")
        self.cancelled = True
        self.subscription.cancel()

    def _armed(self, signal: str) -> None:
        arm = next((a for a in self.arms if a.signal == signal), None)
        if arm is not None and arm.skip > 0:
            self.arms[self.arms.index(arm)] = replace(arm, skip=arm.skip - 1)
            arm = None
        if arm is not None:
            self.arms.remove(arm)
            if arm.action == "request":
                self.request(arm.n)
            elif arm.action == "cancel":
                self.cancel()
            else:
                self.faulted = True
                self.log(f"end_{signal}", raised=True)
                raise SubscriberFault(f"{signal} raised on purpose")

    # ------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        self.log("begin_on_subscribe")
        self.subscription = subscription
        if self.initial is not None:
            self.request(self.initial)
        self._armed("on_subscribe")
        self.log("end_on_subscribe", raised=False)
        self._notify()

    def on_next(self, item: Any) -> None:
        self.received += 1
        self.log("begin_on_next", seq=self.received)
        self._armed("on_next")
        self.log("end_on_next", seq=self.received, raised=False)
        self._notify()

    def on_complete(self) -> None:
        self.log("begin_on_complete")
        self.completed = True
        self._armed("on_complete")
        self.log("end_on_complete", raised=False)
        self._notify()

    def on_error(self, error: BaseException) -> None:
        self.log("begin_on_error", error=f"{type(error).__name__}: {error}")
        self.errors.append(error)
        self._armed("on_error")
        self.log("end_on_error", raised=False)
        self._notify()


class TracedMachine(RuleBasedStateMachine):
    """Base machine: executor, tracing, probes, replay against the spec, invariants."""

    max_subscriptions = 3

    def __init__(self) -> None:
        super().__init__()
        self.executor: ManualExecutor | None = None
        self.sync = True
        self.untraced = False
        self.probes: list[Probe] = []
        self.lengths: list[int | None] = []  # source length per probe (None: unknown)
        self.probe_log: list[dict[str, Any]] = []
        self.tracer: core_tracing.Tracer | None = None
        self._previous = core_tracing._tracer
        self._replay = Replay(sync=True)
        self._cursor = 0
        self._seen = -1
        self._configured = False
        self._failed = False  # a check failed: teardown skips the checks at rest

    # ------------------------------------------------------------------ setup
    def configure(self, sync: bool, untraced: bool) -> None:
        """Call from an ``@initialize`` rule of the subclass."""
        self.sync = sync
        self.untraced = untraced
        self.executor = None if sync else ManualExecutor()
        # the core tracer records every call's end (format version 2)
        self._replay = Replay(sync=sync, call_ends=None if untraced else True)
        if untraced:
            core_tracing._tracer = None
        else:
            self.tracer = start_tracing()
        self._configured = True

    def attach(self, publisher: Publisher[Any], probe: Probe, length: int | None) -> None:
        """Subscribe ``probe`` to ``publisher`` and remember it for the rules."""
        self.probes.append(probe)
        self.lengths.append(length)
        probe.log("subscribe")
        publisher.subscribe(probe)
        self.check_trace()

    def new_probe(self, initial: Any = None, preset: Iterable[Arm] = ()) -> Probe:
        """A probe that requests ``initial`` in on_subscribe and starts with ``preset`` arms."""
        probe = Probe(self.probe_log, len(self.probes) + 1, initial)
        probe.arms.extend(preset)
        return probe

    # ------------------------------------------------------------ trace replay
    def events(self, at_rest: bool = False) -> tuple[Event, ...]:
        """The trace so far: full (core tracer) or subscriber view (probe log)."""
        if self.tracer is not None:
            raw = self.tracer.events
            return tuple(event_from_dict(e, k + 1) for k, e in enumerate(raw))
        trace = Trace(
            Header(mode="sync" if self.sync else "async", view="subscriber", quiescent=at_rest),
            tuple(event_from_dict(e, k + 1, "subscriber") for k, e in enumerate(self.probe_log)),
        )
        return expand_subscriber_view(trace)

    def check_trace(self, at_rest: bool = False) -> None:
        """Replay the events recorded since the last call; fail on the first violation."""
        size = len(self.tracer.events) if self.tracer is not None else len(self.probe_log)
        if size == self._seen and not at_rest:
            return
        self._seen = size
        if self.tracer is None:  # subscriber view: re-expand the whole log
            self._replay = Replay(sync=self.sync)
            self._cursor = 0
        events = self.events(at_rest)
        for event in events[self._cursor :]:
            why = self._replay.step(event)
            self._failed = why is not None
            assert why is None, f"event {event.index} ({event.sig}, sub {event.sub}): {why}"
            broken = inv.check_all(self._replay.state(event.sub))
            self._failed = bool(broken)
            assert not broken, f"event {event.index} ({event.sig}): {broken}"
        self._cursor = len(events)

    def _all_hold(self, name: str) -> None:
        self.check_trace()
        holds = inv.INVARIANTS[name]
        for sub, state in self._replay.subs.items():
            self._failed = not holds(state)
            assert holds(state), f"{name} broken for subscription {sub}: {state}"

    # ------------------------------------------------------------------ rules
    def live(self) -> list[Probe]:
        return [p for p in self.probes if p.subscription is not None]

    @precondition(lambda self: any(p.subscription is not None for p in self.probes))
    @rule(data=st.data(), n=request_sizes)
    def request(self, data: st.DataObject, n: Any) -> None:
        """Subscriber calls request(n) (rules 3.6, 3.9, 3.17)."""
        probe = data.draw(st.sampled_from(self.live()), label="probe")
        probe.request(n)

    @precondition(lambda self: any(p.subscription is not None for p in self.probes))
    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        """Subscriber calls cancel() (rules 3.5, 3.7, 3.12)."""
        probe = data.draw(st.sampled_from(self.live()), label="probe")
        probe.cancel()

    @precondition(lambda self: bool(self.probes))
    @rule(data=st.data(), arm=arms)
    def arm(self, data: st.DataObject, arm: Arm) -> None:
        """The probe's next ``arm.signal`` call requests, cancels or raises from inside
        (rules 2.13, 3.2, 3.3)."""
        probe = data.draw(st.sampled_from(self.probes), label="probe")
        probe.arms.append(arm)

    @precondition(lambda self: self.executor is not None and len(self.executor) > 0)
    @rule(i=st.integers(0, 7))
    def run_task(self, i: int) -> None:
        """Run the i-th queued executor task: the machine picks the interleaving."""
        assert self.executor is not None
        self.executor.run(i % len(self.executor))

    # -------------------------------------------------------------- invariants
    @invariant()
    def spec_invariants(self) -> None:
        """Every twin of ``INVARIANTS`` (reactive_streams.trace.invariants) after each step."""
        for name in inv.INVARIANTS:
            self._all_hold(name)

    # ----------------------------------------------------------------- at rest
    @invariant()
    def properties_at_rest(self) -> None:
        """Whenever nothing is queued (always, in synchronous mode), the properties at
        rest must hold: a lost request or a missed wake-up shows at once."""
        if self._configured and (self.executor is None or len(self.executor) == 0):
            self.check_at_rest()

    def check_at_rest(self) -> None:
        """Properties that must hold once nothing is running or queued."""
        self.check_trace(at_rest=True)
        end = self._replay.unfinished()
        self._failed = end is not None
        assert end is None, f"at rest: {end}"
        for sub, state in self._replay.subs.items():
            broken = inv.check_at_rest(state)
            self._failed = bool(broken)
            assert not broken, f"at rest, subscription {sub}: {broken}"
        for probe, length in zip(self.probes, self.lengths, strict=True):
            self._failed = True  # reset below when all hold
            if probe.subscription is not None:
                self.references_dropped(probe, probe.subscription)
            assert inv.spec308_demand_served_prop(probe, length), (
                f"rule 3.8: {probe!r} is owed more of {length} elements, nothing is queued"
            )
            assert inv.spec105_completes_prop(probe, length), (
                f"rule 1.5: {probe!r}: source of {length} not terminated"
            )
        self._failed = False

    @staticmethod
    def references_dropped(probe: Probe, subscription: Subscription) -> None:
        """Rule 3.13 on the real objects (``spec313_drop_reference_prop`` judges the
        replay): a cancelled or terminated subscription no longer references its Subscriber."""
        if probe.cancelled or probe.faulted or probe.terminated:
            assert probe not in gc.get_referents(subscription), (
                f"rule 3.13: {subscription!r} still references {probe!r} after "
                f"{'cancel' if probe.cancelled else 'the end'}"
            )

    def teardown(self) -> None:
        try:
            if self._configured and not self._failed:
                if self.executor is not None:
                    self.executor.run_all(max_steps=10_000)
                self.check_at_rest()
                self._write_trace()
        finally:
            core_tracing._tracer = self._previous

    def _write_trace(self) -> None:
        directory = os.environ.get("RS_TRACE_DIR")
        if not directory:
            return
        path = Path(directory) / f"{type(self).__name__}-{os.getpid()}-{next(_counter)}.jsonl"
        header = Header(
            mode="sync" if self.sync else "async",
            view="full" if self.tracer is not None else "subscriber",
            quiescent=True,
        )
        events = self.tracer.events if self.tracer is not None else self.probe_log
        write_trace(path, events, header)
