"""A deterministic scheduler: real threads, one at a time, switching only at the core's
synchronisation points (``reactive_streams._core.schedpoints``).

Each controlled thread runs real code. Whenever it reaches a point (a work counter, a
lock of the serial subscription, a queue handoff, a request/cancel entry or exit) it
stops there and hands control back; the scheduler, on the test thread, then picks the
next thread to run. So exactly one controlled thread runs at a time, the order is a
list of choices, and the same list replays the same run (the code under test is
deterministic given the order; no real pool threads, no timers).

* ``Scheduler(plan)``: ``spawn`` threads, ``run`` them; ``plan`` fixes the first choices
  (thread indices), after it the default keeps the running thread (no preemption) or
  takes the lowest ready one. ``check`` runs after every step (every slice between two
  points), with every controlled thread stopped: the invariants are judged there.
* ``explore(build, preemptions)``: every schedule with at most that many preemptions
  (CHESS's bound: a switch away from a thread that could go on), by re-execution.
* ``schedules(n)``: a Hypothesis strategy for plans.
* A failure raises ``Counterexample`` with the schedule (``format_schedule``), which
  ``Scheduler(parse_schedule(text))`` replays.

Inside a controlled thread, ``block_until(predicate)`` waits the scheduler's way (the
thread is not picked until ``predicate()`` holds), ``Mutex`` is a lock that does the
same, and ``SchedExecutor`` is an executor whose tasks run on a controlled worker.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from reactive_streams._core import schedpoints

__all__ = [
    "Counterexample",
    "Decision",
    "Mutex",
    "SchedExecutor",
    "Scheduler",
    "explore",
    "format_schedule",
    "parse_schedule",
    "schedules",
]

_STEP_TIMEOUT = 10.0  # seconds a picked thread may run before it must reach a point


class Counterexample(AssertionError):
    """A check failed under a schedule; ``schedule`` replays it."""

    def __init__(self, message: str, schedule: str) -> None:
        super().__init__(f"{message}\nschedule (replay with parse_schedule): {schedule!r}")
        self.message = message
        self.schedule = schedule


@dataclass(frozen=True)
class Decision:
    """One pick: the thread chosen, the ready ones, the thread that ran before."""

    chosen: int
    ready: tuple[int, ...]
    current: int | None
    point: str  # where the chosen thread was stopped

    @property
    def preempts(self) -> bool:
        """A switch away from a thread that could have gone on."""
        return (
            self.current is not None and self.current in self.ready and self.chosen != self.current
        )


@dataclass
class _Thread:
    index: int
    name: str
    fn: Callable[[], object]
    go: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    point: str = "start"
    until: Callable[[], bool] | None = None
    daemon: bool = False  # a worker: the run ends when only idle daemons are left
    done: bool = False
    error: BaseException | None = None
    thread: threading.Thread | None = None


class Scheduler:
    """Runs the spawned threads one at a time; see the module docstring."""

    def __init__(
        self,
        plan: Sequence[int] = (),
        check: Callable[[], object] | None = None,
        max_preemptions: int | None = None,
    ) -> None:
        self.plan = tuple(plan)
        self.check = check
        self.max_preemptions = max_preemptions
        self.threads: list[_Thread] = []
        self.decisions: list[Decision] = []
        self._back = threading.Semaphore(0)
        self._local = threading.local()
        self._ran = False
        self._free = False  # after a failure: threads run free to their ends

    # ------------------------------------------------------------ building
    def spawn(self, name: str, fn: Callable[[], object], daemon: bool = False) -> int:
        """A controlled thread that will run ``fn``; its index in the schedule. The run
        ends when every thread has ended but the ``daemon`` ones waiting for work."""
        assert not self._ran, "spawn before run()"
        t = _Thread(len(self.threads), name, fn, daemon=daemon)
        self.threads.append(t)
        return t.index

    # ------------------------------------------------------- inside threads
    def _me(self) -> _Thread | None:
        return getattr(self._local, "me", None)

    def _hook(self, point: str, obj: object) -> None:
        me = self._me()
        if me is not None:
            self._pause(me, point)

    def _pause(self, me: _Thread, point: str) -> None:
        if self._free:
            return
        me.point = point
        self._back.release()
        me.go.acquire()

    def point(self, name: str) -> None:
        """In a controlled thread: a scheduling point of the test's own (an executor's
        task boundary, a producer between two emissions). Elsewhere: nothing."""
        me = self._me()
        if me is not None:
            self._pause(me, name)

    def block_until(self, predicate: Callable[[], bool]) -> None:
        """In a controlled thread: wait until ``predicate()`` holds (judged by the
        scheduler, with every thread stopped). Elsewhere: ``predicate`` must hold."""
        me = self._me()
        if me is None:
            assert predicate(), "block_until outside a controlled thread"
            return
        while not predicate() and not self._free:
            me.until = predicate
            self._pause(me, "wait")

    def _body(self, t: _Thread) -> None:
        self._local.me = t
        t.go.acquire()
        try:
            t.fn()
        except BaseException as exc:  # reported by run()
            t.error = exc
        finally:
            t.done = True
            self._back.release()

    # ------------------------------------------------------------- running
    def _ready(self) -> list[_Thread]:
        return [t for t in self.threads if not t.done and (t.until is None or t.until())]

    def _choose(self, ready: list[_Thread], current: int | None) -> _Thread:
        indices = [t.index for t in ready]
        default = current if current in indices else indices[0]
        k = len(self.decisions)
        pick = self.plan[k] if k < len(self.plan) else default
        if pick not in indices:
            pick = default  # a drawn plan may name a thread that is not ready
        if (
            self.max_preemptions is not None
            and current in indices
            and pick != current
            and self.preemptions() >= self.max_preemptions
        ):
            pick = default
        return self.threads[pick]

    def preemptions(self) -> int:
        return sum(d.preempts for d in self.decisions)

    @property
    def schedule(self) -> str:
        return format_schedule([d.chosen for d in self.decisions])

    def describe(self, last: int = 12) -> str:
        """The last steps: which thread ran from which point."""
        steps = self.decisions[-last:]
        return " | ".join(f"{self.threads[d.chosen].name}@{d.point}" for d in steps)

    def run(self) -> None:
        """Run every thread to its end, one step at a time; re-raise a thread's error or
        a failed ``check`` as ``Counterexample``."""
        assert not self._ran, "a Scheduler runs once; build a new one to replay"
        self._ran = True
        previous = schedpoints.install(self._hook)
        try:
            for t in self.threads:
                t.thread = threading.Thread(target=self._body, args=(t,), name=t.name, daemon=True)
                t.thread.start()
            current: int | None = None
            while True:
                ready = self._ready()
                if not ready:
                    left = [t for t in self.threads if not t.done]
                    if all(t.daemon for t in left):
                        break  # only idle workers are left: the run is over
                    self._fail(f"deadlock: {[(t.name, t.point) for t in left]} all wait")
                t = self._choose(ready, current)
                self.decisions.append(
                    Decision(t.index, tuple(r.index for r in ready), current, t.point)
                )
                t.until = None
                t.go.release()
                if not self._back.acquire(timeout=_STEP_TIMEOUT):
                    self._fail(f"{t.name} neither reached a point nor ended in {_STEP_TIMEOUT} s")
                current = t.index
                if t.error is not None:
                    error = t.error
                    t.error = None
                    self._fail(f"{t.name} raised {error!r}", error)
                if self.check is not None:
                    try:
                        self.check()
                    except AssertionError as exc:
                        self._fail(str(exc), exc)
        finally:
            schedpoints.install(previous)
            self._release_all()

    def _release_all(self) -> None:
        """After the run (or a failure): stopped threads run free to their ends (bounded)."""
        self._free = True
        for t in self.threads:
            if not t.done:
                t.until = None
                t.go.release()
        for t in self.threads:
            if t.thread is not None:
                t.thread.join(_STEP_TIMEOUT)

    def _fail(self, message: str, cause: BaseException | None = None) -> None:
        raise Counterexample(f"{message}\nlast steps: {self.describe()}", self.schedule) from cause


def format_schedule(choices: Sequence[int]) -> str:
    """``[0, 0, 0, 1, 1, 0]`` as ``"0*3 1*2 0"``."""
    parts: list[str] = []
    k = 0
    while k < len(choices):
        j = k
        while j < len(choices) and choices[j] == choices[k]:
            j += 1
        parts.append(f"{choices[k]}*{j - k}" if j - k > 1 else str(choices[k]))
        k = j
    return " ".join(parts)


def parse_schedule(text: str) -> list[int]:
    """The inverse of ``format_schedule``."""
    out: list[int] = []
    for part in text.split():
        thread, _, times = part.partition("*")
        out.extend([int(thread)] * (int(times) if times else 1))
    return out


def schedules(threads: int, max_size: int = 60) -> st.SearchStrategy[list[int]]:
    """Hypothesis plans: runs of thread indices (shrinks towards fewer switches)."""
    runs = st.lists(st.tuples(st.integers(0, threads - 1), st.integers(1, 6)), max_size=max_size)
    return runs.map(lambda rs: [t for t, k in rs for _ in range(k)])


@dataclass
class Exploration:
    runs: int = 0
    complete: bool = True  # False: stopped at ``max_runs``
    longest: int = 0


def explore(
    build: Callable[[Scheduler], Callable[[], object] | None],
    preemptions: int,
    max_runs: int = 5_000,
    check: Callable[[], object] | None = None,
) -> Exploration:
    """Run ``build(scheduler)`` (spawns the threads, returns a final check or None) under
    every schedule with at most ``preemptions`` preemptions (depth first, by
    re-execution). The first failure raises ``Counterexample`` with its schedule."""
    stack: list[tuple[int, ...]] = [()]
    result = Exploration()
    while stack:
        if result.runs >= max_runs:
            result.complete = False
            break
        prefix = stack.pop()
        sched = Scheduler(prefix, check=check)
        final = build(sched)
        where = f"schedule {result.runs + 1} of the exploration (<= {preemptions} preemptions)"
        try:
            sched.run()
            if final is not None:
                final()
        except Counterexample as exc:
            raise Counterexample(f"{exc.message}\n{where}", exc.schedule) from exc
        except AssertionError as exc:
            raise Counterexample(f"{exc}\n{where}", sched.schedule) from exc
        result.runs += 1
        decisions = sched.decisions
        result.longest = max(result.longest, len(decisions))
        spent = sum(d.preempts for d in decisions[: len(prefix)])
        for i in range(len(decisions) - 1, len(prefix) - 1, -1):
            d = decisions[i]
            chosen = tuple(c.chosen for c in decisions[:i])
            for alt in d.ready:
                if alt == d.chosen:
                    continue
                cost = d.current is not None and d.current in d.ready and alt != d.current
                if spent + cost <= preemptions:
                    stack.append((*chosen, alt))
    return result


class Mutex:
    """A lock for controlled threads: a waiter is simply not picked (never blocks for
    real, so it cannot deadlock the scheduler). Used to serialise a subscriber's calls
    made from several threads (rule 2.7)."""

    def __init__(self, sched: Scheduler) -> None:
        self._sched = sched
        self._owner: object = None
        self._depth = 0

    def __enter__(self) -> None:
        me = threading.get_ident()
        if self._owner != me:
            self._sched.block_until(lambda: self._owner is None)
            self._owner = me
        self._depth += 1

    def __exit__(self, *exc: Any) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None


class SchedExecutor:
    """An executor whose tasks run, in order, on one controlled worker thread
    (``start`` spawns it); the worker ends once no task is queued and every other
    controlled thread has ended (a daemon of the scheduler)."""

    def __init__(self, sched: Scheduler, name: str = "worker") -> None:
        self._sched = sched
        self._tasks: deque[Callable[[], object]] = deque()
        self.name = name
        self.ran = 0

    def execute(self, task: Callable[[], object]) -> None:
        self._tasks.append(task)

    def __len__(self) -> int:
        return len(self._tasks)

    def start(self) -> int:
        return self._sched.spawn(self.name, self._work, daemon=True)

    def _work(self) -> None:
        sched = self._sched
        while True:
            sched.block_until(lambda: bool(self._tasks))  # ends with the run
            if not self._tasks:
                return
            sched.point("task")  # the executor's queue handoff: another thread may go first
            task = self._tasks.popleft()
            self.ran += 1
            task()
