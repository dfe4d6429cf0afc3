"""The spec's variables for one subscription (``SubState``) and the messages it holds.

Below both the replay (:mod:`.model`) and the invariants (:mod:`.invariants`), which
read it; neither imports the other for it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Msg", "Open", "Sent", "SubState", "any_cancel_queued"]


@dataclass(frozen=True)
class Sent:
    """A committed signal: the spec's ``Signal(sig, seq, err)``; ``index``: its event."""

    sig: str
    seq: int = 0
    err: str = "none"
    index: int = 0


class Msg(NamedTuple):
    """A request/cancel on its way to the Publisher; ``at``: the call's event index."""

    kind: str
    n: int | None
    at: int = 0


@dataclass
class Open:
    """A call in progress: a signal (``onNext``, ...) or ``request``/``cancel``.

    ``depth`` is the number of onNext frames open once this one is (rule 3.3);
    ``nested``: a signal begun inside a request/cancel made from within a signal."""

    sig: str
    depth: int
    req: bool = False
    thread: int | None = None
    index: int = 0
    nested: bool = False


@dataclass
class SubState:
    """The spec's variables for one subscription (``pub[s]``, ``demand[s]``, ...)."""

    pub: str = "idle"
    emitted: int = 0
    demand: int = 0
    requested: int = 0  # exact sum of valid n received (the spec caps it, see unbounded)
    unbounded: bool = False  # outstanding demand reached 2**63-1 (the spec's Unbounded)
    invalid: bool = False
    ref: bool = False
    cutoff: int = 0
    up: deque[Msg] = field(default_factory=deque)
    up_requests: int = 0  # requests in ``up``
    up_late: int = 0  # requests in ``up`` behind a cancel (rule 3.6: must be 0)
    pending: deque[Sent] = field(default_factory=deque)  # committed, not begun
    sent_total: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    first_sent: str | None = None
    after_terminal: int = 0  # signals committed after onComplete/onError (rule 1.7)
    delivered: int = 0
    open: list[Open] = field(default_factory=list)  # signal frames, outermost first
    top_level: int = 0  # open signal frames not nested in a call (rule 1.3: <= 1)
    depth: int = 0  # open onNext frames (rule 3.3)
    max_depth: int = 1
    stacks: dict[int | None, list[Open]] = field(default_factory=dict)  # per thread
    call_threads: dict[int | None, int] = field(default_factory=dict)  # open calls per thread
    cancels: int = 0
    calls: int = 0
    faulted: bool = False
    fault_at: int = 0  # the end_* event of the first on* method that raised (rule 2.13)
    fault_sig: str = ""
    subscribe_at: int = 0
    cancel_at: int = 0
    invalid_at: int = 0  # the request event of the first invalid request received

    def count(self, sig: str) -> int:
        return self.counts.get(sig, 0)

    @property
    def next_count(self) -> int:
        return self.emitted

    @property
    def in_flight(self) -> int:
        return self.sent_total - self.delivered

    @property
    def cancelled(self) -> bool:
        return self.cancels > 0

    # ------------------------------------------------------------- the up queue
    def push_up(self, msg: Msg) -> None:
        if msg.kind == "request":
            self.up_requests += 1
            if any_cancel_queued(self):
                self.up_late += 1
        self.up.append(msg)

    def pop_up(self) -> Msg:
        msg = self.up.popleft()
        if msg.kind == "request":
            self.up_requests -= 1
        else:
            self.up_late = 0  # requests behind it are now first in line
        return msg

    def clear_up(self) -> None:
        self.up.clear()
        self.up_requests = self.up_late = 0


def any_cancel_queued(s: SubState) -> bool:
    """The spec's Cancel sends at most one cancel, so it is the last message if any."""
    return bool(s.up) and s.up[-1].kind == "cancel"
