"""The trace format: JSON Lines, one event per line, an optional header line first.

See docs/trace-format.md for the full description. This module reads and writes
traces and checks their shape (fields, types, clock order); whether the events obey
the rules is decided by :mod:`reactive_streams.trace.model` and by TLC.

A header is a line with a ``"format"`` field and no ``"sig"``::

    {"format": "reactive-streams-trace", "version": 1, "mode": "async",
     "view": "full", "quiescent": true}

* ``mode``: ``"sync"`` (requests are received and signals delivered at once, rule
  3.10/3.11; recursion is checked for rule 3.3) or ``"async"`` (default).
* ``view``: ``"full"`` (both ends of every signal are logged, default) or
  ``"subscriber"`` (only ``subscribe``, ``request``, ``cancel``, ``begin_*``, ``end_*``).
* ``quiescent``: the recording ended with nothing running or queued, so end-of-trace
  checks apply (every message received, every signal delivered, rule 3.9's onError).
* ``expect`` (fixtures only): ``{"event": int, "rule": str}``, the verdict a mutated
  trace must get.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FORMAT_NAME",
    "FULL_SIGNALS",
    "SUBSCRIBER_SIGNALS",
    "Event",
    "FormatError",
    "Header",
    "Trace",
    "event_from_dict",
    "parse_lines",
    "read_trace",
    "write_trace",
]

FORMAT_NAME = "reactive-streams-trace"

SIGNAL_NAMES = ("on_subscribe", "on_next", "on_complete", "on_error")

SUBSCRIBER_SIGNALS = frozenset(
    {"subscribe", "request", "cancel"}
    | {f"begin_{s}" for s in SIGNAL_NAMES}
    | {f"end_{s}" for s in SIGNAL_NAMES}
)
FULL_SIGNALS = SUBSCRIBER_SIGNALS | frozenset(
    {"recv_request", "recv_cancel"} | {f"send_{s}" for s in SIGNAL_NAMES}
)


class FormatError(ValueError):
    """A line that is not a well-formed trace event; ``index`` is the 1-based event index."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"event {index}: format: {message}")
        self.index = index
        self.detail = message


@dataclass(frozen=True)
class Event:
    """One trace event. ``n`` is None for a request whose argument was not an int."""

    index: int  # 1-based position among the events of the file
    clock: int
    sub: int
    sig: str
    n: int | None = None
    seq: int | None = None
    error: str | None = None
    raised: bool = False
    thread: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clock": self.clock, "sub": self.sub, "sig": self.sig}
        if self.sig in ("request", "recv_request"):
            out["n"] = self.n
        if self.seq is not None:
            out["seq"] = self.seq
        if self.error is not None:
            out["error"] = self.error
        if self.sig.startswith("end_"):
            out["raised"] = self.raised
        if self.thread is not None:
            out["thread"] = self.thread
        return out


@dataclass(frozen=True)
class Header:
    mode: str = "async"
    view: str = "full"
    quiescent: bool = False
    expect: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": 1,
            "mode": self.mode,
            "view": self.view,
            "quiescent": self.quiescent,
        }
        if self.expect is not None:
            out["expect"] = dict(self.expect)
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Trace:
    header: Header
    events: tuple[Event, ...]
    name: str = "<trace>"


def _int_field(raw: Mapping[str, Any], key: str, index: int, *, required: bool) -> int | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise FormatError(index, f"field {key!r} is required")
        return None
    if type(value) is not int:
        raise FormatError(index, f"field {key!r} must be an int, got {value!r}")
    return value


def _event(raw: Mapping[str, Any], index: int, view: str) -> Event:
    sig = raw.get("sig")
    allowed = SUBSCRIBER_SIGNALS if view == "subscriber" else FULL_SIGNALS
    if not isinstance(sig, str) or sig not in allowed:
        raise FormatError(index, f"unknown sig {sig!r} for a {view!r} trace")
    clock = _int_field(raw, "clock", index, required=True)
    sub = _int_field(raw, "sub", index, required=True)
    assert clock is not None
    assert sub is not None
    n = _int_field(raw, "n", index, required=False) if "request" in sig else None
    seq = _int_field(raw, "seq", index, required=False) if sig.endswith("on_next") else None
    if seq is None and sig in ("send_on_next", "begin_on_next", "end_on_next") and view == "full":
        raise FormatError(index, f"{sig} needs field 'seq'")
    raised = raw.get("raised", False)
    if sig.startswith("end_") and type(raised) is not bool:
        raise FormatError(index, f"field 'raised' must be true or false, got {raised!r}")
    error = raw.get("error")
    if error is not None and not isinstance(error, str):
        error = str(error)
    thread = raw.get("thread")
    return Event(
        index=index,
        clock=clock,
        sub=sub,
        sig=sig,
        n=n,
        seq=seq,
        error=error,
        raised=bool(raised),
        thread=thread if type(thread) is int else None,
    )


def _header(raw: Mapping[str, Any]) -> Header:
    if raw.get("format") != FORMAT_NAME:
        raise FormatError(0, f"header 'format' must be {FORMAT_NAME!r}")
    mode = raw.get("mode", "async")
    view = raw.get("view", "full")
    if mode not in ("sync", "async"):
        raise FormatError(0, f"header 'mode' must be 'sync' or 'async', got {mode!r}")
    if view not in ("full", "subscriber"):
        raise FormatError(0, f"header 'view' must be 'full' or 'subscriber', got {view!r}")
    known = {"format", "version", "mode", "view", "quiescent", "expect"}
    return Header(
        mode=mode,
        view=view,
        quiescent=bool(raw.get("quiescent", False)),
        expect=raw.get("expect"),
        extra={k: v for k, v in raw.items() if k not in known},
    )


def event_from_dict(raw: Mapping[str, Any], index: int, view: str = "full") -> Event:
    """One event from its JSON object (e.g. an item of ``Tracer.events``)."""
    return _event(raw, index, view)


def parse_lines(lines: Iterable[str], name: str = "<trace>") -> Trace:
    """Parse JSON Lines; raises ``FormatError`` naming the first malformed event."""
    header = Header()
    events: list[Event] = []
    last_clock: int | None = None
    for raw_line in lines:
        line = raw_line.strip()
        if not line:
            continue
        index = len(events) + 1
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(index, f"not JSON: {exc.msg}") from None
        if not isinstance(raw, dict):
            raise FormatError(index, "each line must be a JSON object")
        if "sig" not in raw and "format" in raw:
            if events:
                raise FormatError(index, "the header must be the first line")
            header = _header(raw)
            continue
        event = _event(raw, index, header.view)
        if last_clock is not None and event.clock <= last_clock:
            raise FormatError(
                index, f"clock {event.clock} does not increase (previous {last_clock})"
            )
        last_clock = event.clock
        events.append(event)
    return Trace(header, tuple(events), name)


def read_trace(path: str | os.PathLike[str]) -> Trace:
    with open(path, encoding="utf-8") as lines:
        return parse_lines(lines, os.fspath(path))


def write_trace(
    path: str | os.PathLike[str],
    events: Iterable[Mapping[str, Any]],
    header: Header | None = None,
) -> None:
    """Write a header (if given) and raw event dicts (e.g. ``Tracer.events``) as JSON Lines."""
    with open(path, "w", encoding="utf-8") as out:
        if header is not None:
            out.write(json.dumps(header.to_json(), separators=(",", ":")) + "\n")
        for event in events:
            out.write(json.dumps(dict(event), separators=(",", ":")) + "\n")
