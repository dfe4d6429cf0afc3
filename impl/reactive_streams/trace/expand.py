"""Complete a subscriber-side trace (``"view": "subscriber"``) into a full one.

A subscriber-side emitter logs only ``subscribe``, ``request``, ``cancel`` and
``begin_*``/``end_*``. The publisher's events are implied, deterministically:

* ``send_X`` right before each ``begin_X`` (the signal was committed just before the
  subscriber ran it);
* a ``cancel`` right after an ``end_*`` that raised, unless the Subscriber had
  cancelled already (rule 2.13: the implementation cancels for it), followed by an
  ``end_cancel`` when the trace logs the return of calls (format version 2);
* ``recv_request`` for every pending valid request right before the next
  ``send_on_next``/``send_on_complete`` (the most demand the publisher could have
  seen), up to the first invalid request (elements sent after it are covered by the
  earlier demand only); all pending requests before a ``send_on_error``;
* at the end of a quiescent trace, the remaining valid requests, and the cancel (with
  every request before it);
* for a synchronous trace (``"mode": "sync"``) a request or cancel is received at
  once, as rule 3.10 and the spec's ``Sync`` say, so 1.8, 3.3, 3.9 and 3.12 are
  checked as on a full trace.

What this can check: rules 1.1 (onNext beyond the requests made so far), 1.3 (calls
overlap), 1.7 (anything after a terminal signal), 1.9 (onSubscribe first), 2.12, and
3.9 at rest (a request(n <= 0) answered by onError). What it cannot: when the
publisher saw a cancel (1.8, 3.12: elements in flight are legal, rule 2.8), 3.3
recursion depth, and 3.9's "no onComplete after an invalid request" (the publisher
may have completed before receiving it) -- all of these for asynchronous traces.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from .format import CALL_ENDS, Event, Trace
from .model import has_call_ends
from .transitions import is_valid_n

__all__ = ["expand_subscriber_view"]


@dataclass
class _Sub:
    pending: deque[int | None] = field(default_factory=deque)
    cancel_pending: bool = False
    cancelled: bool = False
    faulted: bool = False
    done: bool = False  # a terminal signal was committed
    seq: int = 0


def expand_subscriber_view(trace: Trace) -> tuple[Event, ...]:
    """The full event list for a subscriber-side trace (implied events keep the index of
    the event that implies them)."""
    subs: dict[int, _Sub] = {}
    out: list[Event] = []
    sync = trace.header.mode == "sync"
    call_ends = has_call_ends(trace.events)

    def implied(at: Event, sig: str, **fields: object) -> Event:
        values: dict[str, object] = {
            "n": None,
            "seq": None,
            "error": None,
            "raised": False,
            "error_type": None,
            "cause": None,
        }
        values.update(fields)
        return replace(at, sig=sig, **values)  # type: ignore[arg-type]

    def receive(at: Event, st: _Sub, invalid_too: bool) -> None:
        while st.pending and (invalid_too or is_valid_n(st.pending[0])):
            out.append(implied(at, "recv_request", n=st.pending.popleft()))

    def cancel(event: Event, st: _Sub) -> None:
        if not st.cancelled and not st.done:  # the spec's Cancel sends only the first
            if sync:  # rule 3.10: a synchronous publisher takes it at once
                out.append(implied(event, "recv_cancel"))
                st.pending.clear()
            else:
                st.cancel_pending = True
        st.cancelled = True

    for event in trace.events:
        st = subs.setdefault(event.sub, _Sub())
        sig = event.sig
        out.append(event)
        if sig == "request":
            if not (st.cancelled or st.faulted or st.done):  # else a no-op (rule 3.6)
                st.pending.append(event.n)
                if sync:
                    receive(event, st, invalid_too=True)
        elif sig == "cancel":
            cancel(event, st)
        elif sig.startswith("end_") and sig not in CALL_ENDS and event.raised:
            st.faulted = True  # rule 2.13: the implementation cancels for the Subscriber
            if not st.cancelled:
                out.append(implied(event, "cancel"))
                cancel(event, st)
                if call_ends:  # version 2: the implied call returns at once
                    out.append(implied(event, "end_cancel"))
        elif sig.startswith("begin_"):
            out.pop()
            name = sig[len("begin_") :]
            if name in ("on_next", "on_complete"):
                receive(event, st, invalid_too=False)
            elif name == "on_error":
                receive(event, st, invalid_too=True)
            if name == "on_next":
                st.seq += 1
                seq = event.seq if event.seq is not None else st.seq
                out.append(implied(event, "send_on_next", seq=seq))
                event = replace(event, seq=seq)
            else:
                out.append(
                    implied(event, "send_" + name, error=event.error, error_type=event.error_type)
                )
            if name in ("on_complete", "on_error"):
                st.done = True
                st.pending.clear()
                st.cancel_pending = False
            out.append(event)
    if trace.header.quiescent and trace.events:
        last = trace.events[-1]
        for sub, st in subs.items():
            at = replace(last, sub=sub)
            if st.done:
                continue
            receive(at, st, invalid_too=st.cancel_pending)
            if st.cancel_pending:
                out.append(implied(at, "recv_cancel"))
    return tuple(out)
