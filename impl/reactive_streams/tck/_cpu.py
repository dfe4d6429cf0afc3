"""Did the subject have the CPU? Absence judged in the subject's CPU time, not wall time.

A quiet window proves nothing about an emitter that never ran in it. The kit reads, for
every thread of the process, its scheduler state and CPU time (Linux
``/proc/self/task/<tid>/stat`` and ``schedstat``) before and after each window, and the
subject's cost per signal in CPU time (the probe reads ``time.thread_time_ns()`` on the
signalling thread at every signal). A window counts only when every thread that wanted
the CPU got enough of it to have signalled several times at that cost, or stayed blocked
(sleeping, waiting) throughout. All threads of the process are watched, not only the
subject's: a subject thread waiting for the interpreter lock sleeps while a starved thread
holds it, and that holder is the one found runnable without CPU.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

__all__ = ["ENOUGH_SIGNALS", "MIN_CPU_NS", "Sample", "Window", "judge", "sample", "thread_names"]

ENOUGH_SIGNALS = 8
"""A window counts when a runnable thread got the CPU time of this many signals."""
MIN_CPU_NS = 500_000
"""... and at least this much (half a millisecond: a scheduler slice or less)."""


@dataclass(frozen=True)
class Sample:
    """One thread at one moment: its state (``R`` runnable; anything else is not asking
    for a CPU), its CPU time and the time it has spent runnable but waiting for a CPU."""

    state: str
    cpu_ns: int
    wait_ns: int


_BORN = Sample("S", 0, 0)  # a thread that did not exist yet at the window's start


def sample(exclude: int) -> dict[int, Sample] | None:
    """Every thread of the process but ``exclude`` (a native id); None where /proc is missing."""
    try:
        names = os.listdir("/proc/self/task")
    except OSError:
        return None
    out: dict[int, Sample] = {}
    for name in names:
        if name == str(exclude):
            continue
        try:
            with open(f"/proc/self/task/{name}/stat", encoding="ascii") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/self/task/{name}/schedstat", encoding="ascii") as f:
                cpu, wait = f.read().split()[:2]
            out[int(name)] = Sample(state, int(cpu), int(wait))
        except (OSError, IndexError, ValueError):
            continue  # the thread ended meanwhile: it can signal no more
    return out


@dataclass(frozen=True)
class Window:
    """What the threads did in one window: ``starved`` wanted the CPU and did not get
    ``enough_ns`` of it; ``running`` were runnable at its end and got that much (with
    their CPU time in the window)."""

    starved: tuple[int, ...]
    running: dict[int, int]


def judge(
    before: dict[int, Sample], after: dict[int, Sample], enough_ns: int, window_s: float
) -> Window:
    """Compare two samples taken around one window (see the module doc)."""
    starved: list[int] = []
    running: dict[int, int] = {}
    for tid, end in after.items():
        start = before.get(tid, _BORN)
        cpu = end.cpu_ns - start.cpu_ns
        waited = end.wait_ns - start.wait_ns
        if waited * 2 >= window_s * 1e9:  # runnable, not running, half the window
            starved.append(tid)
        elif end.state == "R":
            if cpu < enough_ns:
                starved.append(tid)  # wants the CPU and had too little of it to act
            else:
                running[tid] = cpu
    return Window(tuple(starved), running)


def thread_names(tids: list[int] | tuple[int, ...]) -> str:
    """``name (tid)`` for each native id, as far as ``threading`` knows the thread."""
    known = {t.native_id: t.name for t in threading.enumerate()}
    return ", ".join(f"{known.get(tid, 'thread')} ({tid})" for tid in tids)
