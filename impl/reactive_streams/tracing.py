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

from collections.abc import Iterator
from contextlib import contextmanager

from ._core import tracer as _core
from ._core.tracer import SIGNALS, Tracer, error_text, error_type

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


def current_tracer() -> Tracer | None:
    """The active tracer, or None when tracing is off."""
    return _core._tracer


def start_tracing() -> Tracer:
    """Turn tracing on for subscriptions created from now on; returns the new tracer."""
    tracer = _core._tracer = Tracer()
    return tracer


def stop_tracing() -> Tracer | None:
    """Turn tracing off; returns the tracer that was active."""
    tracer, _core._tracer = _core._tracer, None
    return tracer


@contextmanager
def tracing() -> Iterator[Tracer]:
    """``with tracing() as tracer:`` traces the subscriptions created inside the block."""
    previous = _core._tracer
    tracer = start_tracing()
    try:
        yield tracer
    finally:
        _core._tracer = previous
