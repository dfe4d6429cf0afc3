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

Line-level mode (``Scheduler(lines=...)``, ``explore_lines``): the points above are
where the core synchronises, so a race *between* two of them (a check, then an act,
inside an operator) is out of their reach. In this mode each controlled thread runs
under a trace function (``sys.settrace``) that counts the line events of library frames
(``reactive_streams`` minus its instrumentation: ``trace/``, ``tracing.py``,
``_core/tracer.py``, ``_core/schedpoints.py``, and the kit and Spark packages; stdlib
and test frames are never traced). ``lines`` is a set of preemptions ``(n, t)``: at the
n-th line event of the run the running thread stops there and thread ``t`` runs
(CHESS's bounded preemptions, placed at any line instead of at the points). A thread
never stops in a ``with`` over a lock (a ``with`` over a name or an attribute: its line or
its body, in its own frame or any library frame below it: a parked holder would block
the next thread for real); a preemption that falls there waits for the next line where
it may stop. The schedule prints the preemptions that took effect as ``@n>t`` after the choices
(``"0*3 1 0 @57>1"``); ``parse_preemptions`` reads them back, so a line-level
counterexample replays like any other. ``explore_lines(build, k)`` runs the scenario
once per starting thread to list its line events (which thread runs, which others
could), then every single preemption (k = 1, sampled when there are more than
``max_runs``) or a seeded sample of k of them.
"""

from __future__ import annotations

import ast
import random
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from hypothesis import strategies as st

import reactive_streams
from reactive_streams._core import schedpoints

__all__ = [
    "Counterexample",
    "Decision",
    "Mutex",
    "SchedExecutor",
    "Scheduler",
    "explore",
    "explore_lines",
    "format_schedule",
    "parse_preemptions",
    "parse_schedule",
    "schedules",
]

_STEP_TIMEOUT = 10.0  # seconds a picked thread may run before it must reach a point

# ------------------------------------------------------------- line-level mode
_LIBRARY = Path(reactive_streams.__file__).resolve().parent
#: instrumentation and packages outside the operators' races: never traced
_UNTRACED = ("trace/", "tck/", "spark/", "tracing.py", "_core/tracer.py", "_core/schedpoints.py")
#: a ``with`` whose expression names one of these holds a real lock
_LOCK_WORDS = ("lock", "cond", "idle", "mutex")
_library_code: dict[CodeType, bool] = {}
_locked_lines: dict[str, frozenset[int]] = {}


def _is_library(code: CodeType) -> bool:
    known = _library_code.get(code)
    if known is None:
        try:
            rel = Path(code.co_filename).resolve().relative_to(_LIBRARY).as_posix()
        except (ValueError, OSError):
            known = False
        else:
            known = not rel.startswith(_UNTRACED)
        _library_code[code] = known
    return known


def _locked(filename: str) -> frozenset[int]:
    """The lines of ``filename`` of a ``with`` over a lock: its body, and its own line
    (the ``__exit__`` that releases the lock runs at that line's second event)."""
    known = _locked_lines.get(filename)
    if known is None:
        lines: set[int] = set()
        tree = ast.parse(Path(filename).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.With) and any(_holds_lock(item) for item in node.items):
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        known = _locked_lines[filename] = frozenset(lines)
    return known


def _holds_lock(item: ast.withitem) -> bool:
    """``with self._lock:``, ``with cond:``, ``with self._shared:``: a ``with`` over a
    name or an attribute (not a call: ``open(...)``, ``suppress(...)``), or one whose
    text names a lock."""
    expr = item.context_expr
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return True
    return any(word in ast.unparse(expr).lower() for word in _LOCK_WORDS)


def _parkable(frame: FrameType | None) -> bool:
    """No library frame on the stack is inside a ``with`` over a lock."""
    while frame is not None:
        code = frame.f_code
        if _is_library(code) and frame.f_lineno in _locked(code.co_filename):
            return False
        frame = frame.f_back
    return True


def _where(frame: FrameType) -> str:
    path = Path(frame.f_code.co_filename)
    return f"line {path.parent.name}/{path.name}:{frame.f_lineno}"


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
        lines: Sequence[tuple[int, int]] | None = None,
        census: bool = False,
    ) -> None:
        self.plan = tuple(plan)
        self.check = check
        self.max_preemptions = max_preemptions
        #: line-level mode (None: off): the preemptions ``(n, t)`` at line events
        self.lines = None if lines is None and not census else tuple(sorted(lines or ()))
        self._pending = deque(self.lines or ())
        self.taken: list[tuple[int, int]] = []  # the preemptions that took effect
        self.line_events = 0
        #: with ``census``: per line event, the thread running, the others ready (empty
        #: where it may not stop) and the line
        self.census: list[tuple[int, tuple[int, ...], str]] | None = [] if census else None
        self._switch_to: int | None = None
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
        if self.lines is not None:
            sys.settrace(self._trace_call)
        t.go.acquire()
        try:
            t.fn()
        except BaseException as exc:  # reported by run()
            t.error = exc
        finally:
            t.done = True
            self._back.release()

    # --------------------------------------------------------- line events
    def _trace_call(self, frame: FrameType, event: str, arg: object) -> Any:
        """The global trace function: library frames get the line tracer."""
        return self._trace_line if _is_library(frame.f_code) else None

    def _trace_line(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            self._line(frame)
        return self._trace_line

    def _line(self, frame: FrameType) -> None:
        me = self._me()
        if me is None or self._free:
            return
        n = self.line_events
        self.line_events += 1
        census = self.census
        if census is not None:
            others: tuple[int, ...] = ()
            if _parkable(frame):
                others = tuple(
                    t.index
                    for t in self.threads
                    if t is not me and not t.done and (t.until is None or t.until())
                )
            census.append((me.index, others, _where(frame)))
        pending = self._pending
        if not pending or pending[0][0] > n or not _parkable(frame):
            return  # none due, or due at the next line where this thread may stop
        ordinal, target = pending.popleft()
        while pending and pending[0][0] <= n:
            pending.popleft()  # two due at once: one switch
        if target == me.index:
            return
        self.taken.append((ordinal, target))
        self._switch_to = target
        self._pause(me, _where(frame))

    # ------------------------------------------------------------- running
    def _ready(self) -> list[_Thread]:
        return [t for t in self.threads if not t.done and (t.until is None or t.until())]

    def _choose(self, ready: list[_Thread], current: int | None) -> _Thread:
        indices = [t.index for t in ready]
        default = current if current in indices else indices[0]
        k = len(self.decisions)
        target, self._switch_to = self._switch_to, None
        if target is not None:  # a line-level preemption: switch to ``target``
            if target not in indices:  # it cannot run: the lowest other ready thread
                target = next((i for i in indices if i != current), default)
            return self.threads[target]
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

    @property
    def mid_line(self) -> bool:
        """A controlled thread is stopped at a line (line-level mode): a structure it was
        updating may be half done, so only what was recorded (traces, what subscribers
        received) may be judged now, not the internals."""
        return any(not t.done and t.point.startswith("line ") for t in self.threads)

    def preemptions(self) -> int:
        return sum(d.preempts for d in self.decisions)

    @property
    def schedule(self) -> str:
        """The choices, then the line-level preemptions that took effect (``@n>t``)."""
        text = format_schedule([d.chosen for d in self.decisions])
        return " ".join([text, *(f"@{n}>{t}" for n, t in self.taken)])

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
                    self._fail(
                        f"{t.name} neither reached a point nor ended in {_STEP_TIMEOUT} s; "
                        f"it is at {_stack_of(t)}"
                    )
                current = t.index
                if t.error is not None:
                    error = t.error
                    t.error = None
                    self._fail(f"{t.name} raised {error!r}", error)
                if self.check is not None and not t.point.startswith("line "):
                    # judged at the points only: between two lines a hop may be mid-update
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


def _stack_of(t: _Thread) -> str:
    """Where thread ``t`` is now: its innermost frames (a stuck step's diagnosis)."""
    ident = t.thread.ident if t.thread is not None else None
    frame = sys._current_frames().get(ident) if ident is not None else None
    where: list[str] = []
    while frame is not None and len(where) < 6:
        where.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(where) or "an unknown place"


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
    """The inverse of ``format_schedule`` (line-level preemptions, ``@n>t``, aside)."""
    out: list[int] = []
    for part in text.split():
        if part.startswith("@"):
            continue
        thread, _, times = part.partition("*")
        out.extend([int(thread)] * (int(times) if times else 1))
    return out


def parse_preemptions(text: str) -> list[tuple[int, int]]:
    """The line-level preemptions of a printed schedule: ``"0*3 @57>1"`` -> ``[(57, 1)]``."""
    out: list[tuple[int, int]] = []
    for part in text.split():
        if part.startswith("@"):
            n, _, t = part[1:].partition(">")
            out.append((int(n), int(t)))
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


def _attempt(
    build: Callable[[Scheduler], Callable[[], object] | None], sched: Scheduler, where: str
) -> None:
    """One run of ``build`` under ``sched`` and its final check; a failure becomes a
    ``Counterexample`` that says ``where`` in the exploration it came."""
    final = build(sched)
    try:
        sched.run()
        if final is not None:
            final()
    except Counterexample as exc:
        raise Counterexample(f"{exc.message}\n{where}", exc.schedule) from exc
    except AssertionError as exc:
        raise Counterexample(f"{exc}\n{where}", sched.schedule) from exc


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
        where = f"schedule {result.runs + 1} of the exploration (<= {preemptions} preemptions)"
        _attempt(build, sched, where)
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


def explore_lines(
    build: Callable[[Scheduler], Callable[[], object] | None],
    preemptions: int = 1,
    max_runs: int = 2_000,
    seed: int = 0,
    plans: Sequence[Sequence[int]] | None = None,
    check: Callable[[], object] | None = None,
) -> Exploration:
    """Line-level exploration of ``build``, for each of ``plans`` (the choices at the
    points; default: none, then each thread first, so each thread's run can be cut
    into by the others). Per plan, one census run lists every line event where the
    running thread may stop and the threads that could run instead; then, with
    ``preemptions == 1``, one run per (line event, other thread) (a seeded sample when
    there are more than the plan's share of ``max_runs``); with more, seeded samples
    of that many preemptions. The first failure raises ``Counterexample`` with a
    replayable schedule."""

    rng = random.Random(seed)
    result = Exploration()
    todo: list[Sequence[int]] = list(plans) if plans is not None else [()]
    share = max(1, max_runs // len(todo)) if plans is not None else 0
    k = 0
    while k < len(todo):
        plan = todo[k]
        k += 1
        first = Scheduler(plan, check=check, census=True)
        _attempt(build, first, f"the census run of plan {list(plan)} (no line-level preemption)")
        result.runs += 1
        if plans is None and k == 1:  # the default plans: each thread first, too
            todo.extend((t,) for t in range(1, len(first.threads)))
            share = max(1, max_runs // len(todo))
        census = first.census or []
        result.longest = max(result.longest, len(census))
        candidates = [(n, t) for n, (_, others, _) in enumerate(census) for t in others]
        picks: list[tuple[tuple[int, int], ...]]
        if preemptions <= 1:
            if len(candidates) > share:
                result.complete = False
                picks = [(c,) for c in sorted(rng.sample(candidates, share))]
            else:
                picks = [(c,) for c in candidates]
        else:
            result.complete = False
            picks = []
            for _ in range(share if candidates else 0):
                chosen: dict[int, int] = {}
                for n, t in rng.sample(candidates, min(preemptions, len(candidates))):
                    chosen.setdefault(n, t)
                picks.append(tuple(sorted(chosen.items())))
        for j, lines in enumerate(picks):
            where = (
                f"line-level run {j + 1} of {len(picks)} of plan {list(plan)} (<= "
                f"{preemptions} preemptions among {len(census)} line events, seed {seed})"
            )
            _attempt(build, Scheduler(plan, check=check, lines=lines), where)
            result.runs += 1
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
