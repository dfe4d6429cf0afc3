"""The trace format: JSON Lines, one event per line, an optional header line first.

See docs/trace-format.md for the full description. This module reads and writes
traces and checks their shape (fields, types, ranges, clock order); whether the events
obey the rules is decided by :mod:`reactive_streams.trace.model` and by TLC.

A header is a line with a ``"format"`` field and no ``"sig"``::

    {"format": "reactive-streams-trace", "version": 2, "mode": "async",
     "view": "full", "quiescent": true}

* ``version``: 1 or 2 (2 adds ``end_request``/``end_cancel`` and ``error_type``; a
  version 1 trace is read as before: every request/cancel call returns at once).
* ``mode``: ``"sync"`` (requests are received and signals delivered at once, rule
  3.10/3.11) or ``"async"`` (default).
* ``view``: ``"full"`` (both ends of every signal are logged, default) or
  ``"subscriber"`` (only the Subscriber's side).
* ``quiescent``: the recording ended with nothing running or queued, so end-of-trace
  checks apply.
* ``expect`` (fixtures only): ``{"event": int, "rule": str}``, the verdict a mutated
  trace must get.

Anything else is malformed and named by its line: invalid UTF-8, a line that is not one
flat JSON object, duplicate keys, ``NaN``/``Infinity``, lone surrogates, unknown
fields, wrong types and numbers out of range (see ``_LIMITS``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

__all__ = [
    "CALL_ENDS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "FULL_SIGNALS",
    "INT64_MAX",
    "INT64_MIN",
    "SUBSCRIBER_SIGNALS",
    "Event",
    "FormatError",
    "Header",
    "Trace",
    "event_from_dict",
    "is_type_name",
    "parse_bytes",
    "parse_lines",
    "read_trace",
    "write_trace",
]

FORMAT_NAME = "reactive-streams-trace"
FORMAT_VERSION = 2
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

SIGNAL_NAMES = ("on_subscribe", "on_next", "on_complete", "on_error")
CALL_ENDS = frozenset({"end_request", "end_cancel"})

SUBSCRIBER_SIGNALS = frozenset(
    {"subscribe", "request", "cancel"}
    | CALL_ENDS
    | {f"begin_{s}" for s in SIGNAL_NAMES}
    | {f"end_{s}" for s in SIGNAL_NAMES}
)
FULL_SIGNALS = SUBSCRIBER_SIGNALS | frozenset(
    {"recv_request", "recv_cancel"} | {f"send_{s}" for s in SIGNAL_NAMES}
)

_N_SIGS = frozenset({"request", "recv_request"})
_SEQ_SIGS = frozenset({"send_on_next", "begin_on_next", "end_on_next"})
_ERROR_SIGS = frozenset({"send_on_error", "begin_on_error", "end_on_error"})
_KNOWN_ORDER = (
    "clock",
    "sub",
    "sig",
    "n",
    "seq",
    "error",
    "error_type",
    "raised",
    "thread",
    "hop",
)
_ANY_SIG = frozenset({"clock", "sub", "sig", "thread"})
_FIELD_SIGS = {
    "n": _N_SIGS,
    "seq": _SEQ_SIGS,
    "error": _ERROR_SIGS,
    "error_type": _ERROR_SIGS,
    "raised": frozenset(s for s in FULL_SIGNALS if s.startswith("end_")),
    "hop": frozenset({"subscribe"}),
}
_HEADER_KNOWN = frozenset({"format", "version", "mode", "view", "quiescent", "expect"})
#: a number literal longer than this is malformed before it is converted
_MAX_DIGITS = 40
_MAX_TEXT = 10_000  # ``hop``; an ``error`` text may be of any length
_MAX_TYPE = 1_000
#: one part of a class name: a Python identifier, or a Java binary name part with ``$``
#: (``Main$1``, ``Outer$Inner``, ``$Proxy12``)
_TYPE_PART = re.compile(r"(?!\d)[\w$]+")
#: events that open or close a frame on their thread (rules 1.3, 2.7: judged per thread)
_OPENS = {f"begin_{s}": s for s in SIGNAL_NAMES} | {"request": "request", "cancel": "cancel"}
_CLOSES = {f"end_{s}": s for s in SIGNAL_NAMES} | {"end_request": "request", "end_cancel": "cancel"}


class FormatError(ValueError):
    """A malformed line. ``line`` is the 1-based line of the file; ``index`` the 1-based
    index of the event it would have been (0 for the header)."""

    def __init__(self, index: int, message: str, line: int | None = None) -> None:
        self.index = index
        self.line = line if line is not None else index
        self.detail = message
        super().__init__(f"malformed at line {self.line}: {message}")


@dataclass(frozen=True)
class Event:
    """One trace event. ``n`` is None for a request whose argument was not an int.

    ``error_type`` is the class name of a ``send_on_error``'s exception (version 2);
    ``cause`` is the spec's onError cause (``"invalid"``/``"source"``), filled in by the
    validator from the state of the subscription, never read from a file. ``hop``: on a
    ``subscribe`` event, the name of the Publisher side (``"range"``, ``"map"``, ...);
    empty when the trace does not say."""

    index: int  # 1-based position among the events of the file
    clock: int
    sub: int
    sig: str
    n: int | None = None
    seq: int | None = None
    error: str | None = None
    raised: bool = False
    thread: int | None = None
    error_type: str | None = None
    cause: str | None = None
    hop: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clock": self.clock, "sub": self.sub, "sig": self.sig}
        if self.sig in _N_SIGS:
            out["n"] = self.n
        if self.seq is not None:
            out["seq"] = self.seq
        if self.error is not None:
            out["error"] = self.error
        if self.error_type is not None:
            out["error_type"] = self.error_type
        if self.sig.startswith("end_"):
            out["raised"] = self.raised
        if self.thread is not None:
            out["thread"] = self.thread
        if self.hop:
            out["hop"] = self.hop
        return out


@dataclass(frozen=True)
class Header:
    mode: str = "async"
    view: str = "full"
    quiescent: bool = False
    expect: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    version: int = FORMAT_VERSION

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": self.version,
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


# ------------------------------------------------------------------ JSON, strictly
class _Bad(Exception):
    """Raised by the decoder hooks; becomes a FormatError naming the line."""


def _no_constant(name: str) -> NoReturn:
    raise _Bad(f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _Bad(f"number {text[:12]}... has more than {_MAX_DIGITS} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > _MAX_DIGITS:
        raise _Bad(f"number {text[:12]}... is longer than {_MAX_DIGITS} characters")
    return float(text)


def _check_text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(f"{what} holds a lone surrogate (not valid Unicode)") from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Bad(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    for key, value in pairs:
        _check_text(key, "a key")
        if isinstance(value, str):
            _check_text(value, f"field {key!r}")
    return _object(pairs)


def _check_array_texts(value: Any) -> None:
    """Arrays are not checked by the object hook; walk them without recursion."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            _check_text(item, "a string")
        elif isinstance(item, list):
            todo.extend(item)


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_no_constant)
#: for lines with a \u escape (the only way to write a lone surrogate in UTF-8 input) or
#: a long number literal
_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_strict_object,
    parse_constant=_no_constant,
    parse_int=_bounded_int,
    parse_float=_bounded_float,
)
_LONG_NUMBER = re.compile(rf"\d{{{_MAX_DIGITS + 1}}}")


def _loads(text: str) -> Any:
    strict = "\\u" in text or _LONG_NUMBER.search(text) is not None
    try:
        value = (_STRICT_DECODER if strict else _DECODER).decode(text)
    except json.JSONDecodeError as exc:
        raise _Bad(f"not JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise _Bad("JSON nested too deeply") from None
    except ValueError as exc:  # e.g. int conversion limits
        raise _Bad(f"not a usable JSON value: {exc}") from None
    if strict and isinstance(value, list):
        _check_array_texts(value)
    return value


# --------------------------------------------------------------------- fields
def _int_field(
    raw: Mapping[str, Any], key: str, *, low: int, high: int, required: bool, clip: bool = False
) -> int | None:
    if key not in raw:
        if required:
            raise _Bad(f"field {key!r} is required")
        return None
    value = raw[key]
    if type(value) is not int:
        raise _Bad(f"field {key!r} must be an integer, got {_show(value)}")
    if low <= value <= high:
        return value
    if clip:
        return max(low, min(value, high))
    raise _Bad(f"field {key!r} = {value} is outside {low}..{high}")


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, dict | list) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _text_field(raw: Mapping[str, Any], key: str, limit: int | None = _MAX_TEXT) -> str | None:
    value = raw.get(key)
    if key not in raw:
        return None
    if not isinstance(value, str):
        raise _Bad(f"field {key!r} must be a string, got {_show(value)}")
    if limit is not None and len(value) > limit:
        raise _Bad(f"field {key!r} is longer than {_MAX_TEXT} characters")
    return value


def _event(raw: Mapping[str, Any], index: int, view: str) -> Event:
    sig = raw.get("sig")
    allowed = SUBSCRIBER_SIGNALS if view == "subscriber" else FULL_SIGNALS
    if not isinstance(sig, str) or sig not in allowed:
        raise _Bad(f"unknown sig {_show(sig)} for a {view!r} trace")
    for key in raw:
        if key in _ANY_SIG:
            continue
        sigs = _FIELD_SIGS.get(key)
        if sigs is None:
            raise _Bad(f"unknown field {key!r} (known: {', '.join(_KNOWN_ORDER)})")
        if sig not in sigs:
            raise _Bad(f"field {key!r} does not apply to {sig!r}")
    clock = _int_field(raw, "clock", low=0, high=INT64_MAX, required=True)
    sub = _int_field(raw, "sub", low=INT64_MIN, high=INT64_MAX, required=True)
    assert clock is not None
    assert sub is not None
    n: int | None = None
    if sig in _N_SIGS:
        if "n" not in raw:
            raise _Bad(f"{sig} needs field 'n' (null for a non-integer argument)")
        if raw["n"] is not None:  # rule 3.17: beyond 64 bits the demand saturates anyway
            n = _int_field(raw, "n", low=INT64_MIN, high=INT64_MAX, required=True, clip=True)
    seq = _int_field(raw, "seq", low=1, high=INT64_MAX, required=False)
    if seq is None and sig in _SEQ_SIGS and view == "full":
        raise _Bad(f"{sig} needs field 'seq'")
    raised = raw.get("raised", False)
    if type(raised) is not bool:
        raise _Bad(f"field 'raised' must be true or false, got {_show(raised)}")
    thread = _int_field(raw, "thread", low=INT64_MIN, high=2**64 - 1, required=False)
    error_type = _text_field(raw, "error_type", _MAX_TYPE)
    if error_type is not None and not is_type_name(error_type):
        raise _Bad(f"field 'error_type' must be a class name, got {_show(error_type)}")
    return Event(
        index=index,
        clock=clock,
        sub=sub,
        sig=sig,
        n=n,
        seq=seq,
        error=_text_field(raw, "error", None),
        raised=raised,
        thread=thread,
        error_type=error_type,
        hop=_text_field(raw, "hop") or "",
    )


def is_type_name(text: str) -> bool:
    """A class name: dotted parts, each an identifier or a Java binary name part
    (``com.example.Main$1``, ``Outer$Inner``)."""
    return 0 < len(text) <= _MAX_TYPE and all(
        _TYPE_PART.fullmatch(part) for part in text.split(".")
    )


def _header(raw: Mapping[str, Any]) -> Header:
    if raw.get("format") != FORMAT_NAME:
        raise _Bad(f"header 'format' must be {FORMAT_NAME!r}")
    version = raw.get("version", 1)
    if type(version) is not int or version not in (1, 2):
        raise _Bad(f"header 'version' must be 1 or 2, got {_show(version)}")
    mode = raw.get("mode", "async")
    view = raw.get("view", "full")
    if mode not in ("sync", "async"):
        raise _Bad(f"header 'mode' must be 'sync' or 'async', got {_show(mode)}")
    if view not in ("full", "subscriber"):
        raise _Bad(f"header 'view' must be 'full' or 'subscriber', got {_show(view)}")
    quiescent = raw.get("quiescent", False)
    if type(quiescent) is not bool:
        raise _Bad(f"header 'quiescent' must be true or false, got {_show(quiescent)}")
    expect = raw.get("expect")
    if expect is not None and not (
        isinstance(expect, dict)
        and set(expect) == {"event", "rule"}
        and type(expect["event"]) is int
        and isinstance(expect["rule"], str)
    ):
        raise _Bad('header \'expect\' must be {"event": int, "rule": str}')
    for key in raw:
        if key not in _HEADER_KNOWN:
            raise _Bad(f"unknown header field {key!r} (known: {', '.join(sorted(_HEADER_KNOWN))})")
    return Header(mode=mode, view=view, quiescent=quiescent, expect=expect, version=version)


def event_from_dict(raw: Mapping[str, Any], index: int, view: str = "full") -> Event:
    """One event from its JSON object (e.g. an item of ``Tracer.events``)."""
    try:
        return _event(raw, index, view)
    except _Bad as exc:
        raise FormatError(index, str(exc)) from None


class _Pairing:
    """The shape of calls and signals: an ``end_*`` closes a ``begin_*`` (or an
    ``end_request``/``end_cancel`` a ``request``/``cancel``) of the same subscription on
    the same thread, and a subscription's calls and signals give ``thread`` on all of
    them or on none (nesting is judged per thread)."""

    def __init__(self) -> None:
        self.open: dict[tuple[int, int | None, str], int] = {}
        self.threaded: dict[int, tuple[bool, int]] = {}  # sub -> (gives threads, line)

    def check(self, event: Event, line: int) -> None:
        kind = _OPENS.get(event.sig) or _CLOSES.get(event.sig)
        if kind is None:
            return
        has = event.thread is not None
        given, first = self.threaded.setdefault(event.sub, (has, line))
        if given != has:
            now = "gives" if has else "has no"
            then = "gives one" if given else "has none"
            raise _Bad(
                f"{event.sig} {now} field 'thread' but line {first} of sub {event.sub} "
                f"{then}: a subscription's calls and signals name their thread on all "
                "lines or on none"
            )
        key = (event.sub, event.thread, kind)
        if event.sig in _OPENS:
            self.open[key] = self.open.get(key, 0) + 1
            return
        if not self.open.get(key):
            opener = kind if kind in ("request", "cancel") else f"begin_{kind}"
            thread = "" if event.thread is None else f", thread {event.thread}"
            raise _Bad(f"{event.sig} without a {opener} before it (sub {event.sub}{thread})")
        self.open[key] -= 1


def parse_lines(lines: Iterable[str | bytes], name: str = "<trace>") -> Trace:
    """Parse JSON Lines (text, or bytes decoded as strict UTF-8); raises ``FormatError``
    naming the first malformed line."""
    header = Header(version=1)
    events: list[Event] = []
    last_clock: int | None = None
    seen_line = False
    pairing = _Pairing()
    for number, raw_line in enumerate(lines, 1):
        index = len(events) + 1
        try:
            if isinstance(raw_line, bytes):
                try:
                    text = raw_line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _Bad(f"invalid UTF-8 at byte {exc.start + 1}") from None
            else:
                text = raw_line
            line = text.strip()
            if not line:
                continue
            raw = _loads(line)
            if not isinstance(raw, dict):
                raise _Bad("each line must be a JSON object")
            if "sig" not in raw and "format" in raw:
                if seen_line:
                    raise _Bad("the header must be the first line")
                seen_line = True
                header = _header(raw)
                continue
            seen_line = True
            event = _event(raw, index, header.view)
            if last_clock is not None and event.clock <= last_clock:
                raise _Bad(f"clock {event.clock} does not increase (previous {last_clock})")
            pairing.check(event, number)
        except _Bad as exc:
            raise FormatError(index, str(exc), number) from None
        last_clock = event.clock
        events.append(event)
    return Trace(header, tuple(events), name)


def parse_bytes(data: bytes, name: str = "<trace>") -> Trace:
    """``parse_lines`` over a whole trace held in memory."""
    return parse_lines(data.split(b"\n"), name)


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace file; raises ``FormatError`` (malformed) or ``OSError`` (unreadable)."""
    with open(path, "rb") as lines:
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
