"""Rebuild the mutated-trace fixtures in this directory from fresh recordings.

Each fixture is a correct trace recorded from the implementation with one defect
planted; its header's ``expect`` names the event and the rule the validator must
report. Run: ``python tests/traces/regenerate.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import reactive_streams as rs
from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.format import Header, write_trace
from reactive_streams.tracing import tracing

HERE = Path(__file__).resolve().parent
Raw = list[dict[str, Any]]


def record(sync: bool, script: Callable[[TestSubscriber[int], ManualExecutor | None], None]) -> Raw:
    executor = None if sync else ManualExecutor()
    with tracing() as tracer:
        subscriber: TestSubscriber[int] = TestSubscriber(0)
        rs.range(0, 5, executor=executor).subscribe(subscriber)
        if executor is not None:
            executor.run_all()
        script(subscriber, executor)
        if executor is not None:
            executor.run_all()
    return [{k: v for k, v in e.items() if k != "thread"} for e in tracer.events]


def find(events: Raw, sig: str, nth: int = 1, **fields: Any) -> int:
    """The list position of the nth event with this sig (and fields)."""
    seen = 0
    for k, e in enumerate(events):
        if e["sig"] == sig and all(e.get(f) == v for f, v in fields.items()):
            seen += 1
            if seen == nth:
                return k
    raise LookupError(sig)


def renumber(events: Raw) -> Raw:
    return [dict(e, clock=k + 1) for k, e in enumerate(events)]


def save(name: str, events: Raw, mode: str, event: int, rule: str, view: str = "full") -> None:
    header = Header(mode=mode, view=view, quiescent=True, expect={"event": event, "rule": rule})
    write_trace(HERE / f"{name}.jsonl", renumber(events), header)


def on_next(seq: int) -> Raw:
    return [
        {"sub": 1, "sig": "send_on_next", "seq": seq},
        {"sub": 1, "sig": "begin_on_next", "seq": seq},
        {"sub": 1, "sig": "end_on_next", "seq": seq, "raised": False},
    ]


def main() -> None:
    # extra onNext: request(2) answered by three elements (rule 1.1)
    events = record(True, lambda ts, ex: ts.request(2))
    at = find(events, "end_on_next", seq=2) + 1
    save("extra_on_next", events[:at] + on_next(3) + events[at:], "sync", at + 1, "1.1")

    # a signal after the terminal one (rule 1.7)
    events = record(True, lambda ts, ex: ts.request(10))
    at = find(events, "end_on_complete") + 1
    save("signal_after_terminal", events[:at] + on_next(6), "sync", at + 1, "1.7")

    # onNext after the cancel was observed (rules 3.12, 1.8)
    def cancel_after_one(ts: TestSubscriber[int], ex: ManualExecutor | None) -> None:
        ts.request(3)
        assert ex is not None
        ex.run_all()
        ts.cancel()

    events = record(False, cancel_after_one)
    at = find(events, "recv_cancel") + 1
    save("on_next_after_cancel_observed", events[:at] + on_next(4), "async", at + 1, "3.12")

    # overlapping signals: onNext 2 begins while onNext 1 is still running (rule 1.3)
    events = record(False, lambda ts, ex: ts.request(2))
    first_end = find(events, "end_on_next", seq=1)
    end = events.pop(first_end)
    second_begin = find(events, "begin_on_next", seq=2)
    events.insert(second_begin + 1, end)
    save("overlapping_signals", events, "async", second_begin + 1, "1.3")

    # request(0) never answered by onError: the quiescent trace ends, which proves no
    # answer came; the verdict names the request (rule 3.9)
    events = record(True, lambda ts, ex: ts.request(0))
    at = find(events, "send_on_error")
    save("request_0_no_error", events[:at], "sync", find(events, "request", n=0) + 1, "3.9")

    # request(0) followed by another element within the demand, and never by onError:
    # the element is no fault (3.9 asks for the error, not for silence before it), the
    # missing onError is, named at the request (rule 3.9); with the onError it is valid
    def zero_then_more(ts: TestSubscriber[int], ex: ManualExecutor | None) -> None:
        ts.request(1)
        ts.request(0)

    events = record(True, zero_then_more)
    for sig in ("request", "recv_request"):  # demand for the planted second element
        events[find(events, sig, n=1)]["n"] = 2
    at = find(events, "send_on_error")
    zero = find(events, "request", n=0) + 1
    returns = [e for e in events[at:] if e["sig"] == "end_request"]  # request(0) returns
    save("request_0_then_on_next", events[:at] + on_next(2) + returns, "sync", zero, "3.9")
    write_trace(
        HERE / "valid" / "request_0_then_on_next_then_error.jsonl",
        renumber(events[:at] + on_next(2) + events[at:]),
        Header("sync", quiescent=True),
    )

    # onNext before onSubscribe (rule 1.9)
    events = record(True, lambda ts, ex: ts.request(1))
    at = find(events, "send_on_subscribe")
    save("on_next_before_on_subscribe", events[:at] + on_next(1), "sync", at + 1, "1.9")

    # subscriber view only (what a Java emitter writes): one onNext too many (rule 1.1)
    events = record(False, lambda ts, ex: ts.request(1))
    view = [e for e in events if not e["sig"].startswith(("send_", "recv_"))]
    at = find(view, "end_on_next", seq=1) + 1
    extra = [e for e in on_next(2) if not e["sig"].startswith("send_")]
    save("subscriber_view_extra_on_next", view[:at] + extra, "async", at + 1, "1.1", "subscriber")

    # and a correct subscriber-view trace, for docs/trace-format.md
    path = HERE / "valid" / "subscriber_view.jsonl"
    path.parent.mkdir(exist_ok=True)
    events = record(False, lambda ts, ex: ts.request(10))
    view = [e for e in events if not e["sig"].startswith(("send_", "recv_"))]
    write_trace(path, renumber(view), Header(mode="async", view="subscriber", quiescent=True))

    def two_then_zero(ts: TestSubscriber[int], ex: ManualExecutor | None) -> None:
        ts.request(2)
        ts.request(0)

    events = record(True, two_then_zero)
    write_trace(
        HERE / "valid" / "sync_full.jsonl", renumber(events), Header("sync", quiescent=True)
    )
    print(json.dumps(sorted(p.name for p in HERE.glob("*.jsonl"))))


if __name__ == "__main__":
    main()
