"""Replay a trace against a Python transcription of ``spec/ReactiveStreams.tla``.

Each event is one spec action (``subscribe`` -> ``Subscribe``, ``recv_request`` ->
``RecvRequest``, ``begin_on_next`` -> ``BeginOnNext``, ...). ``Replay.step`` checks the
action's enabling condition exactly as the spec states it (with ``Bug = "None"``,
``EarlyEnd``, ``SourceFails`` and ``Raises`` all TRUE, unbounded ``Elements`` and
queues) and, when it does not hold, says which rule the event breaks. TLC is the
judge of acceptance (:mod:`reactive_streams.trace.validate`); this replay names the
rule and runs the invariant twins of :mod:`reactive_streams.trace.invariants`.

Demand is exact here (64-bit, saturating at 2**63-1); the TLA+ side maps every n to
``min(n, MaxDemand)``, which accepts the same traces while fewer than ``MaxDemand``
elements are delivered (docs/verification.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from .format import Event
from .transitions import (
    DONE,
    MAX_DEMAND,
    after_signal,
    is_valid_n,
    sat_add,
    signal_refusal,
    take_one,
)

__all__ = ["Open", "Replay", "Sent", "SubState", "Violation"]

_SIG = {
    "on_subscribe": "onSubscribe",
    "on_next": "onNext",
    "on_complete": "onComplete",
    "on_error": "onError",
}


@dataclass(frozen=True)
class Sent:
    """A committed signal: the spec's ``Signal(sig, seq, err)``."""

    sig: str
    seq: int = 0
    err: str = "none"


@dataclass
class Open:
    """An on* call in progress: the spec's ``[sig, depth, req]``."""

    sig: str
    depth: int
    req: bool = False


@dataclass
class SubState:
    """The spec's variables for one subscription (``pub[s]``, ``demand[s]``, ...)."""

    pub: str = "idle"
    emitted: int = 0
    demand: int = 0
    requested: int = 0  # exact sum of valid n received (the spec caps it, see unbounded)
    unbounded: bool = False  # outstanding demand reached 2**63-1 (the spec's Unbounded)
    invalid: bool = False
    ref: bool = False
    cutoff: int = 0
    up: deque[tuple[str, int | None]] = field(default_factory=deque)
    sent: list[Sent] = field(default_factory=list)
    delivered: int = 0
    open: list[Open] = field(default_factory=list)
    cancels: int = 0
    calls: int = 0
    faulted: bool = False

    def count(self, sig: str) -> int:
        return sum(1 for m in self.sent if m.sig == sig)

    @property
    def next_count(self) -> int:
        return self.emitted

    @property
    def in_flight(self) -> int:
        return len(self.sent) - self.delivered

    @property
    def cancelled(self) -> bool:
        return self.cancels > 0


@dataclass(frozen=True)
class Violation:
    """The first event that cannot be matched: ``index`` is 1-based (0 = end of trace)."""

    index: int
    sig: str
    message: str

    def rule(self) -> str | None:
        """The rule id the message names first ("1.1"), if any."""
        if self.message.startswith("rule "):
            return self.message[5:].split(":", 1)[0].split()[0]
        return None

    def __str__(self) -> str:
        where = "end of trace" if self.index == 0 else f"event {self.index} ({self.sig})"
        return f"{where}: {self.message}"


class Replay:
    """Steps the spec's state through a trace's events; ``sync`` selects the spec's Sync."""

    def __init__(self, sync: bool = False) -> None:
        self.sync = sync
        self.subs: dict[int, SubState] = {}

    def state(self, sub: int) -> SubState:
        state = self.subs.get(sub)
        if state is None:
            state = self.subs[sub] = SubState()
        return state

    # ---------------------------------------------------------------- helpers
    def _sync_quiet(self, s: SubState) -> bool:
        return not self.sync or (not s.up and s.in_flight == 0)

    def _sync_top(self, s: SubState) -> bool:
        return not self.sync or not s.open

    def _sync_refusal(self, s: SubState, what: str) -> str | None:
        if self._sync_quiet(s):
            return None
        if s.up:
            return f"rule 3.10: synchronous publisher did not receive {s.up[0][0]} before {what}"
        return f"rule 1.3: synchronous {what} while a committed signal was not yet delivered"

    # ------------------------------------------------------------------ steps
    def step(self, event: Event) -> str | None:
        """Take the action ``event`` names; returns why it is not enabled (None: taken)."""
        s = self.state(event.sub)
        sig = event.sig
        if sig == "subscribe":
            return self._subscribe(s)
        if sig == "request":
            return self._request(s, event.n)
        if sig == "cancel":
            return self._cancel(s)
        if sig == "recv_request":
            return self._recv_request(s, event.n)
        if sig == "recv_cancel":
            return self._recv_cancel(s)
        if sig.startswith("send_"):
            return self._send(s, _SIG[sig[5:]], event)
        if sig.startswith("begin_"):
            return self._begin(s, _SIG[sig[6:]], event)
        if sig.startswith("end_"):
            return self._end(s, _SIG[sig[4:]], event.raised)
        return f"unknown sig {sig!r}"

    def _subscribe(self, s: SubState) -> str | None:
        if s.pub != "idle":
            return "rule 1.10: subscribe twice on one subscription id"
        s.pub = "subscribed"
        s.ref = True
        return None

    def _request(self, s: SubState, n: int | None) -> str | None:
        if s.delivered < 1:
            return "rule 1.9: request before the Subscriber received onSubscribe"
        refusal = self._sync_refusal(s, "request")
        if refusal is not None:
            return refusal
        s.calls += 1
        if not (s.cancelled or s.faulted or s.pub in DONE):  # rule 3.6: else a no-op
            s.up.append(("request", n))
        if self.sync and s.open:
            s.open[-1].req = True
        return None

    def _cancel(self, s: SubState) -> str | None:
        if s.delivered < 1:
            return "rule 1.9: cancel before the Subscriber received onSubscribe"
        refusal = self._sync_refusal(s, "cancel")
        if refusal is not None:
            return refusal
        if s.cancels == 0 and s.pub not in DONE:
            s.up.append(("cancel", None))
        s.cancels += 1  # later calls are no-ops (rule 3.7)
        return None

    def _recv_request(self, s: SubState, n: int | None) -> str | None:
        if not s.up:
            if s.cancelled or s.faulted:
                return "rule 3.6: a request made after cancel was received by the Publisher"
            if s.pub in DONE:
                return "rule 3.6: a request made after the terminal signal was received"
            return "recv_request without a pending request"
        kind, pending = s.up[0]
        if kind != "request":
            return "rule 3.6: recv_request after the cancel (requests after cancel are no-ops)"
        if pending != n:
            return f"recv_request n={n} does not match the oldest pending request n={pending}"
        s.up.popleft()
        if not is_valid_n(n):
            s.invalid = True  # rule 3.9
            return None
        assert n is not None
        outstanding = s.demand
        s.demand = sat_add(outstanding, n)  # rule 3.17
        if s.demand == MAX_DEMAND:
            s.unbounded = True  # rule 3.17: "effectively unbounded" for good
        s.requested += n
        return None

    def _recv_cancel(self, s: SubState) -> str | None:
        if not s.up:
            if s.cancels == 0:
                return "recv_cancel without a cancel"
            return "rule 3.7: the cancel was received twice, or after the Publisher finished"
        if s.up[0][0] != "cancel":
            return "recv_cancel before the pending request(s) were received (FIFO)"
        s.pub = "cancelled"
        s.ref = False  # rule 3.13
        s.up.clear()
        s.cutoff = len(s.sent)
        return None

    def _send(self, s: SubState, sig: str, event: Event) -> str | None:
        refusal = signal_refusal(s.pub, sig)
        if refusal is not None:
            return refusal
        if sig == "onNext":
            if event.seq != s.emitted + 1:
                return (
                    f"onNext seq {event.seq}, expected {s.emitted + 1} (elements count 1, 2, ...)"
                )
            if s.invalid:
                return "rule 3.9: onNext after request(n <= 0) was received; onError is due"
            if s.demand <= 0:
                return (
                    f"rule 1.1: onNext #{event.seq} exceeds the demand received "
                    f"(total {s.requested})"
                )
        elif sig == "onComplete" and s.invalid:
            return "rule 3.9: onComplete after request(n <= 0); it must be onError"
        elif sig == "onError" and _error_cause(event) == "invalid" and not s.invalid:
            return "rule 3.9: onError for an invalid request that was never received"
        what = f"{sig}"
        refusal = self._sync_refusal(s, what)
        if refusal is not None:
            return refusal
        if not self._sync_top(s):
            return f"rule 3.3: synchronous {sig} committed inside the Subscriber's {s.open[-1].sig}"
        if sig == "onNext":
            s.emitted += 1
            s.sent.append(Sent("onNext", s.emitted))
            s.demand = take_one(s.demand)
            return None
        s.pub = after_signal(s.pub, sig)
        if sig == "onSubscribe":
            s.sent.append(Sent("onSubscribe"))
            return None
        s.sent.append(Sent(sig, 0, _error_cause(event) if sig == "onError" else "none"))
        s.ref = False  # Release: rules 3.13, 1.6
        s.up.clear()
        return None

    def _begin(self, s: SubState, sig: str, event: Event) -> str | None:
        if s.delivered >= len(s.sent):
            return f"{sig} runs but the Publisher never committed it (no send_ event)"
        pending = s.sent[s.delivered]
        if pending.sig != sig:
            return f"{sig} runs but the next committed signal is {pending.sig} (order)"
        if self.sync and s.up:
            return f"rule 3.10: synchronous publisher did not receive {s.up[0][0]} first"
        if s.open:
            top = s.open[-1]
            if self.sync and top.req:
                return f"rule 3.3: {sig} called recursively from request() inside {top.sig}"
            return f"rule 1.3: {sig} overlaps {top.sig} (signals must be serial)"
        if sig == "onNext" and event.seq is not None and event.seq != pending.seq:
            return f"onNext seq {event.seq} runs, but seq {pending.seq} is next"
        s.delivered += 1
        s.open.append(Open(sig, 1))
        return None

    def _end(self, s: SubState, sig: str, raised: bool) -> str | None:
        if not s.open or s.open[-1].sig != sig:
            running = s.open[-1].sig if s.open else "nothing"
            return f"end of {sig} while {running} is running"
        s.open.pop()
        s.faulted = s.faulted or raised
        return None

    # ------------------------------------------------------------ end of trace
    def unfinished(self) -> str | None:
        """End-of-trace checks for a quiescent recording (the spec's liveness, at rest)."""
        for sub, s in self.subs.items():
            if s.pub == "subscribed":
                return f"rule 1.9: sub {sub}: subscribe was never answered by onSubscribe"
            if s.in_flight or s.open:
                return f"rule 1.3: sub {sub}: a committed signal was never (fully) delivered"
            if s.invalid and s.count("onError") == 0 and s.pub != "cancelled":
                return f"rule 3.9: sub {sub}: request(n <= 0) was never answered by onError"
            if s.up and s.pub not in DONE:
                kind, n = s.up[0]
                if kind == "request" and not is_valid_n(n):
                    return f"rule 3.9: sub {sub}: request({n}) was never answered by onError"
                if kind == "cancel":
                    return f"rule 1.8: sub {sub}: the cancel was never observed"
                return f"rule 3.8: sub {sub}: request({n}) was never received (lost wake-up)"
        return None


def _error_cause(event: Event) -> str:
    """The spec's onError cause: "invalid" for the rule 3.9 error, "source" otherwise."""
    return "invalid" if event.error is not None and "rule 3.9" in event.error else "source"


def error_cause(event: Event) -> str:
    return _error_cause(event)


def replay(events: Iterable[Event], sync: bool = False) -> tuple[Replay, Violation | None]:
    """Replay ``events`` (without end-of-trace checks); the first violation, if any."""
    from .invariants import check_all

    model = Replay(sync)
    for event in events:
        why = model.step(event)
        if why is None:
            broken = check_all(model.state(event.sub))
            if broken:
                why = f"{broken[0]} (invariant broken after the step)"
        if why is not None:
            return model, Violation(event.index, event.sig, why)
    return model, None
