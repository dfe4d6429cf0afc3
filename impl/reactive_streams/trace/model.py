"""Replay a trace against a Python transcription of ``spec/ReactiveStreams.tla``.

Each event is one spec action (``subscribe`` -> ``Subscribe``, ``recv_request`` ->
``RecvRequest``, ``begin_on_next`` -> ``BeginOnNext``, ...). ``Replay.step`` checks the
action's enabling condition as the spec states it (unbounded ``Elements`` and queues)
and, when it does not hold, says which rule the event breaks. TLC is the judge of
acceptance (:mod:`reactive_streams.trace.validate`); this replay names the rule and runs
the invariant twins of :mod:`reactive_streams.trace.invariants`.

Calls nest per thread (docs/trace-format.md, "Nesting and threads"):

* a signal begun on the thread of an open ``request``/``cancel`` call is nested in it,
  which is legal (rule 3.2) up to ``max_depth`` onNext frames open at once (rule 3.3,
  the JVM TCK's ``boundedDepthOfOnNextAndRequestRecursion``, default 1);
* a signal begun while another one runs on a different thread, or directly inside
  another signal, breaks rule 1.3;
* a ``request``/``cancel`` begun while one runs on a different thread, or directly
  inside one on the same thread (no signal between them), breaks rule 2.7; except the
  first ``cancel`` after an on* method raised, which the implementation makes for the
  Subscriber (rule 2.13) and may begin directly inside a ``request`` on its thread.

``call_ends`` says how calls end: ``True`` (format version 2: ``end_request`` /
``end_cancel`` close them), ``False`` (version 1: every call returns at once) or
``None`` (not known in advance, e.g. a live recording: a call stays open until its end
event or the next call on its thread, and 2.7 is checked once an end event was seen).

Every step costs O(1) (amortised): the state keeps counters, not histories.
Demand is exact here (64-bit, saturating at 2**63-1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .format import CALL_ENDS, Event, is_type_name
from .state import Msg, Open, Sent, SubState
from .transitions import (
    DONE,
    MAX_DEMAND,
    after_signal,
    is_valid_n,
    sat_add,
    signal_refusal,
    take_one,
)

__all__ = [
    "INVALID_ANSWER_TYPES",
    "Msg",
    "Open",
    "Replay",
    "Sent",
    "SubState",
    "Violation",
    "error_cause",
    "error_type_of",
    "has_call_ends",
    "replay",
]

_SIG = {
    "on_subscribe": "onSubscribe",
    "on_next": "onNext",
    "on_complete": "onComplete",
    "on_error": "onError",
}
_CALLS = ("request", "cancel")

#: rule 3.9's answer: the error classes that mean "illegal argument" (Python, Java)
INVALID_ANSWER_TYPES = frozenset(
    {"ValueError", "IllegalArgumentException", "java.lang.IllegalArgumentException"}
)


@dataclass(frozen=True)
class Violation:
    """The first event that cannot be matched: ``index`` is 1-based (0 = end of trace).

    ``at_end``: found by the end-of-trace checks of a quiescent trace; ``index`` then
    names the event the missing answer belongs to (e.g. the unanswered request)."""

    index: int
    sig: str
    message: str
    at_end: bool = False

    def rule(self) -> str | None:
        """The rule id the message names first ("1.1"), if any."""
        if self.message.startswith("rule "):
            return self.message[5:].split(":", 1)[0].split()[0]
        return None

    def __str__(self) -> str:
        where = "end of trace" if self.index == 0 else f"event {self.index} ({self.sig})"
        return f"{where}: {self.message}"


def error_type_of(event: Event) -> str | None:
    """The exception class of an onError event: ``error_type``, or for a version 1
    trace the ``Name`` of an ``error`` text of the form ``"Name: message"``."""
    if event.error_type is not None:
        return event.error_type
    if event.error is None:
        return None
    name = event.error.split(":", 1)[0].strip()
    return name if is_type_name(name) else None


def _is_invalid_answer(event: Event) -> bool:
    return error_type_of(event) in INVALID_ANSWER_TYPES


def error_cause(event: Event) -> str:
    """The spec's onError cause: ``event.cause`` when the validator resolved it, else
    "invalid" for a rule 3.9 error class and "source" otherwise."""
    if event.cause is not None:
        return event.cause
    return "invalid" if _is_invalid_answer(event) else "source"


def has_call_ends(events: Iterable[Event]) -> bool:
    """The trace logs the return of request/cancel calls (format version 2)."""
    return any(e.sig in CALL_ENDS for e in events)


def _can_fault_cancel(s: SubState, kind: str, stack: list[Open]) -> bool:
    """The spec's CanFaultCancel: the first cancel after an on* method raised is the
    implementation's, made where it caught the exception (rule 2.13), so it may begin
    directly inside a request() on that thread; rule 2.7 binds the Subscriber's own calls
    (its check across threads comes first in ``_call``)."""
    return kind == "cancel" and s.faulted and not s.cancelled and stack[-1].sig == "request"


def _thread(t: int | None) -> str:
    return "?" if t is None else str(t)


class Replay:
    """Steps the spec's state through a trace's events; ``sync`` selects the spec's Sync."""

    def __init__(
        self, sync: bool = False, max_depth: int = 1, call_ends: bool | None = None
    ) -> None:
        if max_depth < 1:
            raise ValueError(f"max_depth must be >= 1, got {max_depth}")
        self.sync = sync
        self.max_depth = max_depth
        self.call_ends = call_ends
        self.ends_seen = call_ends is True
        self.subs: dict[int, SubState] = {}

    def state(self, sub: int) -> SubState:
        state = self.subs.get(sub)
        if state is None:
            state = self.subs[sub] = SubState(max_depth=self.max_depth)
        return state

    # ---------------------------------------------------------------- helpers
    def _sync_refusal(self, s: SubState, what: str) -> str | None:
        if not self.sync or (not s.up and s.in_flight == 0):
            return None
        if s.up:
            return f"rule 3.10: synchronous publisher did not receive {s.up[0].kind} before {what}"
        return f"rule 1.3: synchronous {what} while a committed signal was not yet delivered"

    def _lazy(self) -> bool:
        """Calls may have returned without an end event (ends not seen yet)."""
        return self.call_ends is None and not self.ends_seen

    def _pop_frame(self, s: SubState, stack: list[Open]) -> Open:
        frame = stack.pop()
        if frame.sig in _CALLS:
            left = s.call_threads[frame.thread] - 1
            if left:
                s.call_threads[frame.thread] = left
            else:
                del s.call_threads[frame.thread]
        else:
            s.open.pop()
            if frame.sig == "onNext":
                s.depth -= 1
            if not frame.nested:
                s.top_level -= 1
        return frame

    def _drop_returned_calls(self, s: SubState, stack: list[Open]) -> None:
        """Lazy mode: a call still on top of its thread's stack returned long ago."""
        while stack and stack[-1].sig in _CALLS:
            self._pop_frame(s, stack)

    # ------------------------------------------------------------------ steps
    def step(self, event: Event) -> str | None:
        """Take the action ``event`` names; returns why it is not enabled (None: taken)."""
        s = self.state(event.sub)
        sig = event.sig
        if sig == "subscribe":
            return self._subscribe(s, event)
        if sig in _CALLS:
            return self._call(s, sig, event)
        if sig in CALL_ENDS:
            return self._end_call(s, sig[4:], event)
        if sig == "recv_request":
            return self._recv_request(s, event.n)
        if sig == "recv_cancel":
            return self._recv_cancel(s)
        if sig.startswith("send_"):
            return self._send(s, _SIG[sig[5:]], event)
        if sig.startswith("begin_"):
            return self._begin(s, _SIG[sig[6:]], event)
        if sig.startswith("end_"):
            return self._end(s, _SIG[sig[4:]], event)
        return f"unknown sig {sig!r}"

    def _subscribe(self, s: SubState, event: Event) -> str | None:
        if s.pub != "idle":
            return "rule 1.10: subscribe twice on one subscription id"
        s.pub = "subscribed"
        s.ref = True
        s.subscribe_at = event.index
        return None

    def _call(self, s: SubState, kind: str, event: Event) -> str | None:
        if s.delivered < 1:
            return f"rule 1.9: {kind} before the Subscriber received onSubscribe"
        refusal = self._sync_refusal(s, kind)
        if refusal is not None:
            return refusal
        thread = event.thread
        stack = s.stacks.setdefault(thread, [])
        if self._lazy():
            self._drop_returned_calls(s, stack)
        elif self.call_ends is not False:
            others = [t for t in s.call_threads if t != thread]  # at most one
            if others:
                other = others[0]
                busy = next(f for f in s.stacks[other] if f.sig in _CALLS)
                return (
                    f"rule 2.7: {kind} on thread {_thread(thread)} while {busy.sig} (event "
                    f"{busy.index}) has not returned on thread {_thread(other)}; calls on a "
                    "Subscription must be serial"
                )
            if stack and stack[-1].sig in _CALLS and not _can_fault_cancel(s, kind, stack):
                # no signal runs the Subscriber's code there
                return (
                    f"rule 2.7: {kind} on thread {_thread(thread)} directly inside "
                    f"{stack[-1].sig} (event {stack[-1].index}), which has not returned; "
                    "calls on a Subscription must be serial"
                )
        if kind == "request":
            s.calls += 1
            if not (s.cancelled or s.faulted or s.pub in DONE):  # rule 3.6: else a no-op
                s.push_up(Msg("request", event.n, event.index))
        else:
            if s.cancels == 0:
                s.cancel_at = event.index
                if s.pub not in DONE:
                    s.push_up(Msg("cancel", None, event.index))
            s.cancels += 1  # later calls are no-ops (rule 3.7)
        if self.call_ends is not False:
            stack.append(Open(kind, s.depth, thread=thread, index=event.index))
            s.call_threads[thread] = s.call_threads.get(thread, 0) + 1
        return None

    def _end_call(self, s: SubState, kind: str, event: Event) -> str | None:
        if self.call_ends is False:
            return None  # a version 1 reader: the call returned at once
        if not self.ends_seen:  # lazy mode learns that calls end explicitly
            self.ends_seen = True
            for sub in self.subs.values():
                for thread, frames in sub.stacks.items():
                    if thread != event.thread:
                        self._drop_returned_calls(sub, frames)
        stack = s.stacks.get(event.thread)
        if not stack or stack[-1].sig != kind:
            running = stack[-1].sig if stack else "nothing"
            return (
                f"end of {kind}() on thread {_thread(event.thread)} while {running} is "
                "running there"
            )
        self._pop_frame(s, stack)
        if event.raised:  # rules 3.15, 3.16: the spec's EndRequest/EndCancel need ~raised
            rule = "3.16" if kind == "request" else "3.15"
            return f"rule {rule}: {kind}() raised; calling {kind} must return normally"
        return None

    def _recv_request(self, s: SubState, n: int | None) -> str | None:
        if not s.up:
            if s.cancelled or s.faulted:
                return "rule 3.6: a request made after cancel was received by the Publisher"
            if s.pub in DONE:
                return "rule 3.6: a request made after the terminal signal was received"
            return "recv_request without a pending request"
        head = s.up[0]
        if head.kind != "request":
            return "rule 3.6: recv_request after the cancel (requests after cancel are no-ops)"
        if head.n != n:
            return f"recv_request n={n} does not match the oldest pending request n={head.n}"
        s.pop_up()
        if not is_valid_n(n):
            if not s.invalid:
                s.invalid_at = head.at
            s.invalid = True  # rule 3.9
            return None
        assert n is not None
        s.demand = sat_add(s.demand, n)  # rule 3.17
        if s.demand == MAX_DEMAND:
            s.unbounded = True  # rule 3.17: "effectively unbounded" for good
        s.requested += n
        return None

    def _recv_cancel(self, s: SubState) -> str | None:
        if not s.up:
            if s.cancels == 0:
                return "recv_cancel without a cancel"
            return "rule 3.7: the cancel was received twice, or after the Publisher finished"
        if s.up[0].kind != "cancel":
            return "recv_cancel before the pending request(s) were received (FIFO)"
        s.pub = "cancelled"
        s.ref = False  # rule 3.13
        s.clear_up()
        s.cutoff = s.sent_total
        return None

    def _commit(self, s: SubState, sent: Sent) -> None:
        if s.first_sent is None:
            s.first_sent = sent.sig
        if s.counts.get("onComplete", 0) + s.counts.get("onError", 0):
            s.after_terminal += 1  # rule 1.7 (refused by signal_refusal; the twin checks)
        s.sent_total += 1
        s.counts[sent.sig] = s.counts.get(sent.sig, 0) + 1
        s.pending.append(sent)

    def _send(self, s: SubState, sig: str, event: Event) -> str | None:
        refusal = signal_refusal(s.pub, sig)
        if refusal is not None:
            return refusal
        cause = "none"
        if sig == "onNext":
            if event.seq != s.emitted + 1:
                return (
                    f"onNext seq {event.seq}, expected {s.emitted + 1} (elements count 1, 2, ...)"
                )
            # rule 3.9 asks for onError after request(n <= 0), not for silence before it:
            # an onNext within the demand may still come first (the error is due at rest)
            if s.demand <= 0:
                return (
                    f"rule 1.1: onNext #{event.seq} exceeds the demand received "
                    f"(total {s.requested})"
                )
        elif sig == "onComplete" and s.invalid:
            return (
                f"rule 3.9: onComplete after request(n <= 0) (event {s.invalid_at}) was "
                "received; it must be onError"
            )
        elif sig == "onError":
            answer = _is_invalid_answer(event)
            if s.invalid and not answer:
                return (
                    f"rule 3.9: request(n <= 0) (event {s.invalid_at}) must be answered by "
                    f"onError(ValueError or IllegalArgumentException), got onError("
                    f"{error_type_of(event) or 'unknown type'})"
                )
            cause = "invalid" if s.invalid and answer else "source"
        refusal = self._sync_refusal(s, sig)
        if refusal is not None:
            return refusal
        if self.sync:  # delivered at once (rule 3.10): it must be deliverable now
            stack = s.stacks.get(event.thread)
            if stack and stack[-1].sig not in _CALLS:
                return (
                    f"rule 3.3: synchronous {sig} committed inside the Subscriber's {stack[-1].sig}"
                )
            if s.open and s.open[-1].thread != event.thread:
                return (
                    f"rule 1.3: synchronous {sig} committed on thread {_thread(event.thread)} "
                    f"while {s.open[-1].sig} runs on thread {_thread(s.open[-1].thread)}"
                )
            if sig == "onNext" and s.depth + 1 > self.max_depth:
                return (
                    f"rule 3.3: synchronous onNext would be nested {s.depth + 1} deep "
                    f"(onNext -> request -> onNext); the bound is {self.max_depth}"
                )
        if sig == "onNext":
            s.emitted += 1
            self._commit(s, Sent("onNext", s.emitted, index=event.index))
            s.demand = take_one(s.demand)
            return None
        s.pub = after_signal(s.pub, sig)
        self._commit(s, Sent(sig, 0, cause, event.index))
        if sig != "onSubscribe":
            s.ref = False  # Release: rules 3.13, 1.6
            s.clear_up()
        return None

    def _begin(self, s: SubState, sig: str, event: Event) -> str | None:
        if not s.pending:
            return f"{sig} runs but the Publisher never committed it (no send_ event)"
        ready = s.pending[0]
        if ready.sig != sig:
            return f"{sig} runs but the next committed signal is {ready.sig} (order)"
        if self.sync and s.up:
            return f"rule 3.10: synchronous publisher did not receive {s.up[0].kind} first"
        thread = event.thread
        if s.open and s.open[-1].thread != thread:
            top = s.open[-1]
            return (
                f"rule 1.3: {sig} on thread {_thread(thread)} while {top.sig} (event "
                f"{top.index}) runs on thread {_thread(top.thread)}: signals must not be "
                "concurrent"
            )
        stack = s.stacks.setdefault(thread, [])
        nested = False
        if stack and stack[-1].sig in _CALLS:
            nested = bool(s.open)  # rule 3.2: a signal inside a call made from a signal
        elif stack:
            top = stack[-1]
            return f"rule 1.3: {sig} overlaps {top.sig} (event {top.index}); signals must be serial"
        depth = s.depth + (sig == "onNext")
        if depth > self.max_depth:
            return (
                f"rule 3.3: onNext nested {depth} deep (onNext -> request -> onNext); "
                f"the bound is {self.max_depth}"
            )
        if sig == "onNext" and event.seq is not None and event.seq != ready.seq:
            return f"onNext seq {event.seq} runs, but seq {ready.seq} is next"
        s.pending.popleft()
        s.delivered += 1
        frame = Open(sig, depth, thread=thread, index=event.index, nested=nested)
        stack.append(frame)
        s.open.append(frame)
        s.depth = depth
        s.top_level += not nested
        return None

    def _end(self, s: SubState, sig: str, event: Event) -> str | None:
        stack = s.stacks.get(event.thread)
        if stack and self._lazy():
            self._drop_returned_calls(s, stack)
        if not stack or stack[-1].sig != sig:
            running = stack[-1].sig if stack else "nothing"
            if running in _CALLS:
                assert stack
                return (
                    f"end of {sig} while the {running}() it made (event {stack[-1].index}) "
                    "has not returned"
                )
            return f"end of {sig} on thread {_thread(event.thread)} while {running} is running"
        self._pop_frame(s, stack)
        if event.raised and not s.faulted:
            s.fault_at, s.fault_sig = event.index, event.sig
        s.faulted = s.faulted or event.raised
        return None

    # ------------------------------------------------------------ end of trace
    def unfinished_at(self) -> Violation | None:
        """End-of-trace checks for a quiescent recording (the spec's liveness, at rest).

        The violation names the event whose answer never came."""
        for sub, s in self.subs.items():
            why = self._at_rest(sub, s)
            if why is not None:
                index, sig, message = why
                return Violation(index, sig, message, at_end=True)
        return None

    def unfinished(self) -> str | None:
        """``unfinished_at()`` as text (None: nothing due)."""
        found = self.unfinished_at()
        return None if found is None else found.message

    def _at_rest(self, sub: int, s: SubState) -> tuple[int, str, str] | None:
        if s.pub == "subscribed":
            return (
                s.subscribe_at,
                "subscribe",
                f"rule 1.9: sub {sub}: subscribe was never answered by onSubscribe",
            )
        if s.pending:
            sent = s.pending[0]
            name = "send_" + _snake(sent.sig)
            return (
                sent.index,
                name,
                f"rule 1.3: sub {sub}: {sent.sig} was committed but never delivered",
            )
        if s.open:
            top = s.open[-1]
            return (
                top.index,
                "begin_" + _snake(top.sig),
                f"rule 1.3: sub {sub}: {top.sig} never returned",
            )
        if not self._lazy():
            for stack in s.stacks.values():
                for frame in stack:
                    rule = "3.4" if frame.sig == "request" else "3.5"
                    return (
                        frame.index,
                        frame.sig,
                        f"rule {rule}: sub {sub}: {frame.sig}() never returned",
                    )
        if s.faulted and not s.cancelled:  # rule 2.13 at rest (the spec's AtRest)
            method = s.fault_sig[len("end_") :]
            return (
                s.fault_at,
                s.fault_sig,
                f"rule 2.13: sub {sub}: {method} raised (event {s.fault_at}) and the "
                "Subscription was never cancelled",
            )
        if s.invalid and s.count("onError") == 0 and s.pub != "cancelled":
            return (
                s.invalid_at,
                "request",
                f"rule 3.9: sub {sub}: request(n <= 0) was never answered by onError",
            )
        if s.up and s.pub not in DONE:
            kind, n, index = s.up[0]
            if kind == "request" and not is_valid_n(n):
                return (
                    index,
                    kind,
                    f"rule 3.9: sub {sub}: request({n}) was never answered by onError",
                )
            if kind == "cancel":
                return index, kind, f"rule 1.8: sub {sub}: the cancel was never observed"
            return (
                index,
                kind,
                f"rule 3.8: sub {sub}: request({n}) was never received (lost wake-up)",
            )
        return None


def _snake(sig: str) -> str:
    return {v: k for k, v in _SIG.items()}.get(sig, sig)


def replay(
    events: Iterable[Event],
    sync: bool = False,
    *,
    max_depth: int = 1,
    call_ends: bool | None = None,
) -> tuple[Replay, Violation | None]:
    """Replay ``events`` (without end-of-trace checks); the first violation, if any."""
    from .invariants import check_all

    model = Replay(sync, max_depth, call_ends)
    for event in events:
        why = model.step(event)
        if why is None:
            broken = check_all(model.state(event.sub))
            if broken:
                why = f"{broken[0]} (invariant broken after the step)"
        if why is not None:
            return model, Violation(event.index, event.sig, why)
    return model, None
