"""Turn traces into the ``TraceData`` module read by ``spec/TraceReactiveStreams.tla``.

TLC 2.15 has no JSON module, so a batch of traces becomes TLA+ constants::

    Traces == << << [sig |-> "subscribe", sub |-> 1, n |-> 0, seq |-> 0,
                     cause |-> "none", raised |-> FALSE, thread |-> 1], ... >>, ... >>

Subscription ids and threads are renumbered 1, 2, ... per trace (in order of first
appearance; an event without a thread runs on thread 1); a ``request``/``cancel`` call
without its ``end_request``/``end_cancel`` event (format v1) gets a synthetic one right
after it, i.e. the call returned at once.  ``n`` is clipped to
``[-MAX_DEMAND_TLA, MAX_DEMAND_TLA]`` (None, a non-int argument, becomes -1: both are
invalid for rule 3.9); ``cause`` is the spec's onError cause.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .format import Event
from .model import error_cause

__all__ = ["MAX_DEMAND_TLA", "Prepared", "clip_n", "close_calls", "render_module", "renumber"]

#: what 2**63-1 becomes in TLC's 32-bit integers (with room for Cap = MaxDemand + Elements)
MAX_DEMAND_TLA = 2**30


def clip_n(n: int | None) -> int:
    if n is None:
        return -1
    return max(-MAX_DEMAND_TLA, min(n, MAX_DEMAND_TLA))


@dataclass(frozen=True)
class Prepared:
    """One trace ready for TLC: full-view events with subscriptions renumbered."""

    events: tuple[Event, ...]
    quiescent: bool


_ENDS = {"request": "end_request", "cancel": "end_cancel"}


def renumber(events: Sequence[Event]) -> tuple[Event, ...]:
    """Subscriptions and threads numbered 1, 2, ... in order of first appearance."""
    ids: dict[int, int] = {}
    threads: dict[int, int] = {}
    out = []
    for e in events:
        sub = ids.setdefault(e.sub, len(ids) + 1)
        thread = 1 if e.thread is None else threads.setdefault(e.thread, len(threads) + 1)
        out.append(dataclasses.replace(e, sub=sub, thread=thread))
    return close_calls(out)


def close_calls(events: Sequence[Event]) -> tuple[Event, ...]:
    """Insert an end_request/end_cancel right after a v1 call that never ends.

    A call ends at the first later end event of the same kind, subscription and thread
    that no nested call of that kind claims first.
    """
    out: list[Event] = []
    for k, e in enumerate(events):
        out.append(e)
        end = _ENDS.get(e.sig)
        if end is not None and not _has_end(events, k, end):
            out.append(dataclasses.replace(e, sig=end, n=None))
    return tuple(out)


def _has_end(events: Sequence[Event], k: int, end: str) -> bool:
    call = events[k]
    depth = 0
    for e in events[k + 1 :]:
        if e.sub != call.sub or e.thread != call.thread:
            continue
        if e.sig == call.sig:
            depth += 1
        elif e.sig == end:
            if depth == 0:
                return True
            depth -= 1
    return False


def _record(e: Event) -> str:
    n = clip_n(e.n) if e.sig in ("request", "recv_request") else 0
    cause = error_cause(e) if e.sig == "send_on_error" else "none"
    return (
        f'[sig |-> "{e.sig}", sub |-> {e.sub}, n |-> {n}, seq |-> {e.seq or 0}, '
        f'cause |-> "{cause}", raised |-> {"TRUE" if e.raised else "FALSE"}, '
        f"thread |-> {e.thread or 1}]"
    )


def render_module(
    batch: Sequence[Prepared], sync: bool, name: str = "TraceData", depth: int = 1
) -> str:
    """The text of module ``name`` holding ``batch`` (all in one mode).

    ``depth`` bounds the onNext -> request -> onNext nesting (rule 3.3; the JVM TCK's
    ``boundedDepthOfOnNextAndRequestRecursion``, default 1).
    """
    if not batch:
        raise ValueError("empty batch")
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
        "Traces == <<",
    ]
    for k, p in enumerate(batch):
        body = ",\n    ".join(_record(e) for e in p.events)
        sep = "," if k < len(batch) - 1 else ""
        lines.append(f"  << {body} >>{sep}" if p.events else f"  << >>{sep}")
    lines.append(">>")
    lines.append("====")
    return "\n".join(lines) + "\n"
