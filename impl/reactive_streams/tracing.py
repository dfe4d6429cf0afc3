"""Tracing hook: records every signal of every subscription as trace events.

Off by default. A subscription reads the module-global ``_tracer`` once, when it is
created; when that is None the hot paths test one local and emit nothing.

Event vocabulary, format version 2 (docs/trace-format.md; one JSON object per line:
``clock``, ``sub``, ``sig``, ``thread`` and the fields below). ``clock`` is a global
logical clock, strictly increasing; ``thread`` is the calling thread's id.

* subscriber side calls: ``subscribe``, ``request`` (``n``: the int passed, null for a
  non-int or bool), ``cancel``; these mark the START of the call, and ``end_request`` /
  ``end_cancel`` (same sub, same thread) mark its return, so nesting (rule 3.3) and
  overlapping calls (rule 2.7) can be told apart;
* publisher side receipt: ``recv_request`` (``n``), ``recv_cancel``;
* publisher commits a signal: ``send_on_subscribe``, ``send_on_next`` (``seq``: 1-based
  element number), ``send_on_complete``, ``send_on_error`` (``error``: short text,
  ``error_type``: the exception's class name, which is how rule 3.9's answer is known);
* subscriber runs it: ``begin_on_*`` / ``end_on_*`` (``end_*`` carries ``raised``).

A version 1 trace (no ``end_request``/``end_cancel`` at all) is still valid: readers take
every call as returning at once.

Conventions of this implementation: a publisher logs ``recv_cancel`` right after the
``cancel`` call (receiving the requests still queued before it, in order); a synchronous
one logs ``recv_request`` right after the call too, an asynchronous one when its drain
task takes the request. Once a publisher has sent a terminal signal or received a cancel,
later (and still queued) ``request``/``cancel`` calls get no ``recv_*`` event (rule 3.6), and
a ``request`` after the subscriber's own ``cancel`` is never received either. When a
subscriber method raises, the implementation calls ``cancel`` for it (a ``cancel`` event,
then ``end_cancel``).
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "SIGNALS",
    "Tracer",
    "current_tracer",
    "error_text",
    "error_type",
    "start_tracing",
    "stop_tracing",
    "tracing",
]

SIGNALS = frozenset(
    {
        "subscribe",
        "request",
        "cancel",
        "end_request",
        "end_cancel",
        "recv_request",
        "recv_cancel",
        "send_on_subscribe",
        "send_on_next",
        "send_on_complete",
        "send_on_error",
        "begin_on_subscribe",
        "end_on_subscribe",
        "begin_on_next",
        "end_on_next",
        "begin_on_complete",
        "end_on_complete",
        "begin_on_error",
        "end_on_error",
    }
)

Event = dict[str, Any]


class Tracer:
    """Collects trace events in clock order (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clock = 0
        self._ids = itertools.count(1)
        self.events: list[Event] = []

    def new_subscription_id(self) -> int:
        """A fresh subscription id: 1, 2, ..."""
        with self._lock:
            return next(self._ids)

    def emit(self, sub: int, sig: str, **fields: Any) -> None:
        """Record one event; the clock ticks under the lock, so list order is clock order."""
        thread = threading.get_ident()
        with self._lock:
            self._clock += 1
            event: Event = {"clock": self._clock, "sub": sub, "sig": sig}
            event.update(fields)
            event["thread"] = thread
            self.events.append(event)

    def for_subscription(self, sub: int) -> list[Event]:
        """The events of one subscription, in clock order."""
        with self._lock:
            return [e for e in self.events if e["sub"] == sub]

    def subscriptions(self) -> list[int]:
        """The subscription ids seen, in order of first appearance."""
        with self._lock:
            return list(dict.fromkeys(e["sub"] for e in self.events))

    def to_jsonl(self, path: str | os.PathLike[str]) -> None:
        """Write the events as JSON Lines."""
        with self._lock:
            events = list(self.events)
        with open(path, "w", encoding="utf-8") as out:
            for event in events:
                out.write(json.dumps(event, separators=(",", ":")) + "\n")


_tracer: Tracer | None = None


def current_tracer() -> Tracer | None:
    """The active tracer, or None when tracing is off."""
    return _tracer


def start_tracing() -> Tracer:
    """Turn tracing on for subscriptions created from now on; returns the new tracer."""
    global _tracer
    _tracer = Tracer()
    return _tracer


def stop_tracing() -> Tracer | None:
    """Turn tracing off; returns the tracer that was active."""
    global _tracer
    tracer, _tracer = _tracer, None
    return tracer


@contextmanager
def tracing() -> Iterator[Tracer]:
    """``with tracing() as tracer:`` traces the subscriptions created inside the block."""
    global _tracer
    previous = _tracer
    tracer = start_tracing()
    try:
        yield tracer
    finally:
        _tracer = previous


def error_text(error: BaseException) -> str:
    """Short text for ``send_on_error`` events."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= 120 else text[:117] + "..."


def error_type(error: BaseException) -> str:
    """The ``error_type`` field of ``send_on_error`` events: the exception's class name."""
    return type(error).__name__
