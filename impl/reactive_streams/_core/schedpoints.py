"""Test-only scheduling points at the core's synchronisation points (off: one None check).

A module with points keeps a module global ``_sched_hook`` (None in production) and,
right before each synchronisation operation, calls ``_sched_hook(point, obj)`` on the
thread that reached it. ``install`` sets that global in every such module; a
deterministic scheduler (``stateful/interleave.py``) installs a hook that blocks a
thread it controls until the scheduler picks it, so the threads run one at a time and
switch only at these points (systematic interleavings, as CHESS and loom do).

Points (``POINTS``): the drain's work counter (``wip.enter``, ``wip.leave``) and start
(``drain.enter``; each later round follows a ``wip.leave``), the drain taking delivered
elements from the demand (``demand.take``), a serial queue's handoff (``queue.offer``), the serial
subscription's non-blocking lock (``serial.acquire``, ``serial.release``), its queue of
calls made meanwhile (``serial.queue``, ``serial.pending``), and the entry and exit of
``request``/``cancel`` (``request.enter``, ``request.exit``, ``cancel.enter``,
``cancel.exit``), and the attach primitive's set and cancel (``attach.set``,
``attach.cancel``: an upstream, an inner or a timer stored against a racing cancel; the
arbiter's attach of each new upstream is an ``attach.set`` too). A point is never inside
a held ``threading.Lock``: the thread that waits there holds no lock another thread could
block on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

Hook = Callable[[str, object], object]

POINTS = (
    "wip.enter",
    "wip.leave",
    "drain.enter",
    "demand.take",
    "queue.offer",
    "serial.acquire",
    "serial.release",
    "serial.queue",
    "serial.pending",
    "request.enter",
    "request.exit",
    "cancel.enter",
    "cancel.exit",
    "attach.set",
    "attach.cancel",
)

#: the modules with points; each has a module global ``_sched_hook``
MODULES = (
    "reactive_streams._core.serial",
    "reactive_streams._core.downstream",
    "reactive_streams._core.attach",
    "reactive_streams._core.arbiter",
)

_installed: list[Hook | None] = [None]


def install(hook: Hook | None) -> Hook | None:
    """Set ``hook`` (None: off) at every point; returns the hook it replaces."""
    previous = _installed[0]
    for name in MODULES:
        importlib.import_module(name)._sched_hook = hook  # type: ignore[attr-defined]
    _installed[0] = hook
    return previous


def installed() -> Hook | None:
    """The hook now installed (None: off)."""
    return _installed[0]
