"""Turn traces into the ``TraceData`` module read by ``spec/TraceReactiveStreams.tla``.

TLC 2.15 has no JSON module, so a batch of traces becomes TLA+ constants. Each event is
a short tuple of integers, ``<<code, arg, thread>>`` (``<<code, arg, thread, sub>>``
when ``sub`` is not 1), which the spec reads back as the record
``[sig, sub, n, seq, cause, raised, thread]`` (``Ev`` there)::

    Traces == << << <<1, 0, 1>>, <<2, 3, 1>>, ... >>, ... >>

``code`` is the position of ``sig`` in :data:`EVENT_CODES` (the spec's ``EventNames``);
``arg`` is ``n`` for request/recv_request, ``seq`` for the onNext events, the cause for
send_on_error (1 source, 2 invalid) and ``raised`` (0/1) for the end events. TLC 2.15
parses integers faster than records, and parsing is a large part of a long trace's cost
(``python -m bench.trace_long``).

Threads are renumbered 1, 2, ... per trace (in order of first appearance; an event
without a thread runs on thread 1); a ``request``/``cancel`` call without its
``end_request``/``end_cancel`` event (format v1) gets a synthetic one right after it,
i.e. the call returned at once.  :func:`split_subscriptions` then makes each
Subscription a trace of its own.  ``n`` is clipped to
``[-MAX_DEMAND_TLA, MAX_DEMAND_TLA]`` (None, a non-int argument, becomes -1: both are
invalid for rule 3.9); ``cause`` is the spec's onError cause.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .format import Event
from .model import error_cause

__all__ = [
    "CAUSE_CODES",
    "EVENT_CODES",
    "MAX_DEMAND_TLA",
    "Part",
    "Prepared",
    "clip_n",
    "close_calls",
    "relabel",
    "render_module",
    "renumber",
    "split_subscriptions",
]

#: what 2**63-1 becomes in TLC's 32-bit integers (with room for Cap = MaxDemand + Elements)
MAX_DEMAND_TLA = 2**30


def clip_n(n: int | None) -> int:
    """A request's ``n`` in TLC's 32-bit integers: clipped to ``[-MAX_DEMAND_TLA,
    MAX_DEMAND_TLA]``; None (a non-int argument) becomes -1, invalid like any n <= 0."""
    if n is None:
        return -1
    return max(-MAX_DEMAND_TLA, min(n, MAX_DEMAND_TLA))


@dataclass(frozen=True)
class Prepared:
    """One trace ready for TLC: full-view events with subscriptions renumbered."""

    events: tuple[Event, ...]
    quiescent: bool


_ENDS = {"request": "end_request", "cancel": "end_cancel"}
_CALL_OF = {end: call for call, end in _ENDS.items()}


def relabel(e: Event, sub: int, thread: int) -> Event:
    """``e`` with another subscription and thread (``dataclasses.replace``, twice as
    fast: this runs once or twice per event of every trace)."""
    return Event(
        e.index, e.clock, sub, e.sig, e.n, e.seq, e.error, e.raised, thread, e.error_type,
        e.cause, e.hop,
    )  # fmt: skip


def renumber(events: Sequence[Event]) -> tuple[Event, ...]:
    """Subscriptions and threads numbered 1, 2, ... in order of first appearance."""
    ids: dict[int, int] = {}
    threads: dict[int, int] = {}
    out = []
    for e in events:
        sub = ids.setdefault(e.sub, len(ids) + 1)
        thread = 1 if e.thread is None else threads.setdefault(e.thread, len(threads) + 1)
        out.append(relabel(e, sub, thread))
    return close_calls(out)


def close_calls(events: Sequence[Event]) -> tuple[Event, ...]:
    """Insert an end_request/end_cancel right after a v1 call that never ends.

    A call ends at the first later end event of the same kind, subscription and thread
    that no nested call of that kind claims first: calls and ends pair like brackets,
    one stack per (subscription, thread, kind), in one pass.
    """
    open_calls: dict[tuple[int, int | None, str], list[int]] = {}
    ended: set[int] = set()
    for k, e in enumerate(events):
        if e.sig in _ENDS:
            open_calls.setdefault((e.sub, e.thread, e.sig), []).append(k)
        elif e.sig in _CALL_OF:
            stack = open_calls.get((e.sub, e.thread, _CALL_OF[e.sig]))
            if stack:
                ended.add(stack.pop())
    out: list[Event] = []
    for k, e in enumerate(events):
        out.append(e)
        end = _ENDS.get(e.sig)
        if end is not None and k not in ended:
            out.append(dataclasses.replace(e, sig=end, n=None))
    return tuple(out)


@dataclass(frozen=True)
class Part:
    """The events of one Subscription of a prepared trace, as a trace of its own:
    ``sub`` is 1, threads are numbered 1, 2, ... within it; ``positions[k]`` is the
    0-based position of its event ``k`` in the prepared trace."""

    prepared: Prepared
    positions: tuple[int, ...]


def split_subscriptions(prepared: Prepared) -> list[Part]:
    """One part per Subscription (in order of first appearance; one empty part for a
    trace without events). The spec's Subscriptions share no state, so a trace is
    accepted when every part is, and its first unmatched event is the earliest of its
    parts'. Each TLC state then holds one Subscription, whatever the trace's size."""
    subs: dict[int, tuple[list[Event], list[int], dict[int, int]]] = {}
    for k, e in enumerate(prepared.events):
        events, positions, threads = subs.setdefault(e.sub, ([], [], {}))
        thread = threads.setdefault(e.thread or 1, len(threads) + 1)
        events.append(relabel(e, 1, thread))
        positions.append(k)
    if not subs:
        return [Part(prepared, ())]
    return [
        Part(Prepared(tuple(events), prepared.quiescent), tuple(positions))
        for events, positions, _ in subs.values()
    ]


#: the spec's EventNames: an event's code is its 1-based position here
EVENT_CODES = (
    "subscribe",
    "request",
    "end_request",
    "cancel",
    "end_cancel",
    "recv_request",
    "recv_cancel",
    "send_on_subscribe",
    "send_on_next",
    "send_on_complete",
    "send_on_error",
    "begin_on_subscribe",
    "begin_on_next",
    "begin_on_complete",
    "begin_on_error",
    "end_on_subscribe",
    "end_on_next",
    "end_on_complete",
    "end_on_error",
)
_CODE = {sig: k for k, sig in enumerate(EVENT_CODES, start=1)}
#: the spec's Causes: send_on_error's arg
CAUSE_CODES = ("source", "invalid")


def _arg(e: Event) -> int:
    if e.sig in ("request", "recv_request"):
        return clip_n(e.n)
    if e.sig == "send_on_error":
        return CAUSE_CODES.index(error_cause(e)) + 1
    if e.sig.startswith("end_"):
        return int(e.raised)
    return e.seq or 0


def _record(e: Event) -> str:
    row = f"<<{_CODE[e.sig]},{_arg(e)},{e.thread or 1}"
    return f"{row},{e.sub}>>" if e.sub != 1 else f"{row}>>"


def render_module(
    batch: Sequence[Prepared],
    sync: bool,
    name: str = "TraceData",
    depth: int = 1,
    hints: Sequence[int] | None = None,
) -> str:
    """The text of module ``name`` holding ``batch`` (all in one mode).

    ``depth`` bounds the onNext -> request -> onNext nesting (rule 3.3; the JVM TCK's
    ``boundedDepthOfOnNextAndRequestRecursion``, default 1). ``hints[t]``: the event of
    trace t where the replay first objected (``len + 1`` when it did not), so that TLC
    tests "no action matches" there only; 0 (the default) tests it at every event.
    """
    if not batch:
        raise ValueError("empty batch")
    if hints is None:
        hints = [0] * len(batch)
    if len(hints) != len(batch):
        raise ValueError(f"{len(hints)} hints for {len(batch)} traces")
    if depth < 1:
        raise ValueError(f"rule 3.3: the recursion depth bound must be >= 1, got {depth}")
    subs = max((max((e.sub for e in p.events), default=1) for p in batch), default=1)
    threads = max((max((e.thread or 1 for e in p.events), default=1) for p in batch), default=1)
    sizes = {1}
    elements = 1
    calls = 1
    cancels = 1
    length = 1
    for p in batch:
        length = max(length, len(p.events) + 1)
        per_calls: dict[int, int] = {}
        per_cancels: dict[int, int] = {}
        for e in p.events:
            if e.sig in ("request", "recv_request"):
                sizes.add(clip_n(e.n))
            if e.sig == "request":
                per_calls[e.sub] = per_calls.get(e.sub, 0) + 1
            if e.sig == "cancel":
                per_cancels[e.sub] = per_cancels.get(e.sub, 0) + 1
            if e.seq is not None:
                elements = max(elements, e.seq)
        calls = max([calls, *per_calls.values()])
        cancels = max([cancels, *per_cancels.values()])
    if elements >= MAX_DEMAND_TLA // 2:
        raise ValueError(f"a trace delivers {elements} elements; at most {MAX_DEMAND_TLA // 2}")
    lines = [
        f"---- MODULE {name} ----",
        "EXTENDS Integers, Sequences",
        f"TraceSync == {'TRUE' if sync else 'FALSE'}",
        f"TraceSubs == 1..{subs}",
        f"TraceThreads == 1..{threads}",
        f"TraceDepth == {depth}",
        f"TraceElements == {elements}",
        f"TraceSizes == {{{', '.join(str(n) for n in sorted(sizes))}}}",
        f"TraceMaxDemand == {MAX_DEMAND_TLA}",
        f"TraceMaxCalls == {calls}",
        f"TraceMaxCancels == {cancels}",
        f"TraceQueueBound == {length}",
        "Quiescent == << " + ", ".join("TRUE" if p.quiescent else "FALSE" for p in batch) + " >>",
        "Hint == << " + ", ".join(str(h) for h in hints) + " >>",
        "Traces == <<",
    ]
    for k, p in enumerate(batch):
        body = ",\n".join(_record(e) for e in p.events)
        sep = "," if k < len(batch) - 1 else ""
        lines.append(f"  << {body} >>{sep}" if p.events else f"  << >>{sep}")
    lines.append(">>")
    lines.append("====")
    return "\n".join(lines) + "\n"
