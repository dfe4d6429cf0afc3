"""The tracer the core records into: one module-global ``_tracer``, read once per
subscription (None: tracing off). The event vocabulary is documented in
:mod:`reactive_streams.tracing`, the public face of this module."""

from __future__ import annotations

import itertools
import json
import os
import threading
from typing import Any

__all__ = ["SIGNALS", "Tracer", "error_text", "error_type"]

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


def error_text(error: BaseException) -> str:
    """Short text for ``send_on_error`` events."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= 120 else text[:117] + "..."


def error_type(error: BaseException) -> str:
    """The ``error_type`` field of ``send_on_error`` events: the exception's class name."""
    return type(error).__name__
