"""The per-check environment: configuration, waits with deadlines, quiescence, failures.

Evidence of "never" and "eventually" comes from quiescence, not from sleeping:

* ``executor`` mode: the factory accepts an ``executor`` argument, the kit passes a
  ``KitExecutor`` and knows exactly when nothing is queued or running;
* ``synchronous`` mode: the implementation declares that it signals only on the threads
  that call ``subscribe``/``request``/``cancel``; when those calls have returned, nothing
  else can happen (the probes check the declaration: a signal on a foreign thread fails);
* ``timed`` mode (anything else): absence is judged by quiet windows, as the JVM TCK
  does with one quiet period, except that a window restarts with every signal or call
  the kit sees, and a window counts only if every thread that wanted the CPU got enough
  of it to have signalled several times at the subject's cost per signal (a starved
  emitter is silent, not stopped; ``_cpu``): see ``Env.settle``. Results carry
  ``evidence="quiet period"``.

Nothing else is judged by elapsed time: every positive wait ("an element must arrive",
"n elements must arrive") returns as soon as its condition holds and fails only when the
generous ``Config.timeout`` deadline passes, with a message that says so; the whole
check is bounded by ``Config.check_timeout``, so a deadlock fails instead of hanging.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .._core.demand import MAX_DEMAND
from . import _cpu

__all__ = [
    "CheckAborted",
    "CheckFailure",
    "Config",
    "Env",
    "KitExecutor",
    "Mode",
    "Skip",
]

Mode = Literal["executor", "synchronous", "timed"]


class CheckFailure(AssertionError):
    """A check found a violation; ``rule`` is the rule the message cites (if any)."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


class Skip(Exception):
    """A precondition is not met (e.g. no failed-publisher factory was given)."""


class CheckAborted(BaseException):
    """Raised into implementation code after the check's deadline, to unwind it.

    A BaseException on purpose: it passes through ``except Exception`` handlers, so an
    endless synchronous emitter that calls a probe stops instead of burning a thread.
    """


@dataclass
class Config:
    """Knobs for a kit run (the JVM TCK's ``TestEnvironment`` plus verification settings)."""

    timeout: float = 10.0
    """Deadline, in seconds, for every wait for something that must happen (a wait ends
    as soon as its condition holds, so a generous value costs nothing on success)."""
    check_timeout: float = 120.0
    """A check fails once it has gone this many seconds without any signal or call (a
    deadlock), or ``check_cap`` seconds in all."""
    check_cap: float | None = None
    """Absolute bound, in seconds, for one check (default: 5 x ``check_timeout``)."""
    quiet: float = 0.1
    """Timed mode only: the shortest time without any signal or call that counts as
    "settled", split into ``quiet_windows`` windows; a window grows with the slowest
    signal the check saw (see ``Env.settle``)."""
    quiet_windows: int = 2
    """Timed mode only: consecutive quiet windows, each with every thread of the process
    that wanted the CPU having had it (``_cpu``), before "settled" (a repeated
    observation)."""
    signal_pause: float | None = 0.0
    """Seconds the probe subscriber yields the interpreter inside a signal it receives
    (``time.sleep``; 0 still yields; None: never), so a race that needs a thread switch
    inside a signal (two emitters in on_next, rule 1.3; a request lost while on_next
    runs, rule 3.8) happens."""
    paused_signals: int = 2_000
    """Signals per probe that yield; after these, one in 64 does (a yield costs a
    system call, and long streams are about stopping, not about races)."""
    max_elements: int = MAX_DEMAND - 1
    """The largest stream the publisher factory can create (JVM maxElementsFromPublisher)."""
    bounded_depth: int = 1
    """Allowed depth of on_next -> request -> on_next recursion (rule 3.3; JVM
    boundedDepthOfOnNextAndRequestRecursion): on_next frames open at once on one thread."""
    cannot_complete: bool = False
    """The publisher never signals on_complete (JVM publisherUnableToSignalOnComplete):
    checks that need completion are skipped, saying why."""
    stochastic_runs: int = 100
    """Repetitions of a stochastic check."""
    examples: int = 25
    """Hypothesis examples per generated check."""
    synchronous: bool = False
    """The implementation signals only on threads that call into it (see module doc)."""
    synchronous_failed: bool = False
    """The same declaration for the failed and failing publishers (their own factories:
    ``synchronous`` does not cover them; default timed)."""
    buffer_size: int = 16
    """Processors: the buffer the identity processor is created with."""
    max_subscribers: int = MAX_DEMAND
    """Processors: how many downstream subscribers the processor supports."""
    coordinated_emission: bool = False
    """Processors: emits to all subscribers in lockstep (JVM doesCoordinatedEmission)."""
    max_quiesce_steps: int = 20_000
    """Executor mode: tasks run before "never quiesces" is declared."""


class KitExecutor:
    """The executor the kit hands to implementations: knows when it is idle.

    ``threads == 0``: tasks queue up and run only when the check drives them (on the
    check's thread), so runs are reproducible. ``threads > 0``: worker threads run them.
    """

    def __init__(self, threads: int = 0) -> None:
        self.threads = threads
        self._cond = threading.Condition()
        self._queue: list[Callable[[], None]] = []
        self._running = 0
        self._closed = False
        self.failures: list[BaseException] = []
        self._workers = [
            threading.Thread(target=self._work, name=f"tck-exec-{i}", daemon=True)
            for i in range(threads)
        ]
        for worker in self._workers:
            worker.start()

    def execute(self, task: Callable[[], None]) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("executor is closed")
            self._queue.append(task)
            self._cond.notify_all()

    def _call(self, task: Callable[[], None]) -> None:
        try:
            task()
        except CheckAborted:
            pass
        except BaseException as exc:  # recorded: a task must not raise into its executor
            self.failures.append(exc)
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                task = self._queue.pop(0)
                self._running += 1
            self._call(task)

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._queue)

    def run_one(self) -> bool:
        """Manual mode: run the oldest queued task on this thread; False if none."""
        with self._cond:
            if not self._queue:
                return False
            task = self._queue.pop(0)
            self._running += 1
        self._call(task)
        return True

    def idle(self) -> bool:
        with self._cond:
            return not self._queue and self._running == 0

    def wait_idle(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and self._running == 0, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()


_GAP_FACTOR = 2.0  # a quiet window lasts at least this many times the slowest signal


_LIVE: set[int] = set()
"""``id()`` of every check environment whose check is running (root ``Env`` objects)."""
_SIGNALLED: dict[int, set[int]] = {}
"""Per thread (native id): the running checks it signalled to. A thread that serves
several running checks (a shared pool's worker) is not blamed for being busy in one."""
_SHARED_LOCK = threading.Lock()


@dataclass
class Flop:
    rule: str | None
    message: str


@dataclass
class Env:
    """State shared by one check's body, its probes and its helper threads."""

    config: Config
    mode: Mode = "timed"
    threads: int = 0
    executor: KitExecutor | None = None
    cond: threading.Condition = field(default_factory=threading.Condition)
    flops: list[Flop] = field(default_factory=list)
    timed: bool = False
    aborted: bool = False
    caller_threads: set[int] = field(default_factory=set)
    parent: Env | None = None
    last_activity: float = field(default_factory=time.monotonic)
    max_gap: float = 0.0
    """Timed mode: the longest the subject took to deliver a signal it owed (demand
    outstanding); quiet windows scale with it (a slow or starved emitter needs longer)."""
    windows: int = 0
    """Quiet windows observed by settles of this check (counted or not)."""
    cancellers: list[weakref.WeakMethod[Callable[[], None]]] = field(default_factory=list)
    """Called when the check ends: cancel every subscription it left open."""
    starved_windows: int = 0
    """Quiet windows that did not count: a thread wanted the CPU and did not get it."""
    signal_cpu: dict[int, list[int]] = field(default_factory=dict)
    """Per signalling thread (native id) of the subject: [CPU time at its first signal,
    at its latest, signals]: the subject's cost per signal in CPU time (``_cpu``)."""
    _helpers: list[threading.Thread] = field(default_factory=list)
    _clock: int = 0

    def __post_init__(self) -> None:
        if self.mode == "executor" and self.executor is None:
            self.executor = KitExecutor(self.threads)
        self.caller_threads.add(threading.get_ident())
        if self.parent is None:
            with _SHARED_LOCK:
                _LIVE.add(id(self))

    # ----------------------------------------------------------------- bookkeeping
    def tick(self) -> int:
        """The next value of the check's logical clock."""
        with self.cond:
            self._clock += 1
            self._touch()
            return self._clock

    def flop(self, rule: str | None, message: str) -> None:
        """Record a violation seen on any thread (reported when the check ends)."""
        with self.cond:
            self.flops.append(Flop(rule, message))
            self._touch()
            self.cond.notify_all()

    def notify(self) -> None:
        with self.cond:
            self._touch()
            self.cond.notify_all()

    def note_gap(self, seconds: float) -> None:
        """The subject took ``seconds`` to deliver a signal it owed (see ``max_gap``)."""
        env: Env | None = self
        while env is not None:
            env.max_gap = max(env.max_gap, seconds)
            env = env.parent

    def note_signal(self) -> None:
        """A signal arrived on this thread: its CPU clock feeds the subject's cost per
        signal (the kit's own calling threads are not the subject's)."""
        if threading.get_ident() in self.caller_threads:
            return
        cpu = time.thread_time_ns()
        root = self
        while root.parent is not None:
            root = root.parent
        native = threading.get_native_id()
        with root.cond:
            seen = root.signal_cpu.setdefault(native, [cpu, cpu, 0])
            seen[1] = cpu
            seen[2] += 1
        if seen[2] == 1:
            with _SHARED_LOCK:
                checks = _SIGNALLED.setdefault(native, set())
                checks.intersection_update(_LIVE)
                checks.add(id(root))

    def cpu_per_signal(self) -> int | None:
        """The subject's CPU time per signal (ns): the costliest of its signalling threads
        with two signals or more; None before that."""
        root = self
        while root.parent is not None:
            root = root.parent
        with root.cond:
            costs = [
                (last - first) // (n - 1) for first, last, n in root.signal_cpu.values() if n > 1
            ]
        return max(costs) if costs else None

    def subject_threads(self) -> set[int]:
        """The threads that signalled this check's probes and no other running check's."""
        root = self
        while root.parent is not None:
            root = root.parent
        with root.cond:
            signalled = set(root.signal_cpu)
        with _SHARED_LOCK:
            return {t for t in signalled if not (_SIGNALLED.get(t, set()) & _LIVE) - {id(root)}}

    def _touch(self) -> None:
        now = time.monotonic()
        self.last_activity = now
        if self.parent is not None:  # a generated example's progress is the check's
            self.parent.last_activity = now

    def use_factory(self, accepts_executor: bool, synchronous: bool) -> None:
        """Switch the check to the mode of the factory it uses next (``synchronous`` and
        the kit's executor apply per factory, not to every factory of a run)."""
        if accepts_executor:
            if self.executor is None:
                self.executor = KitExecutor(self.threads)
            self.mode = "executor"
        else:
            self.mode = "synchronous" if synchronous else "timed"

    def cancel_open(self) -> None:
        """The end of a check: cancel what it left open (an endless publisher must not
        load the checks that follow)."""
        for ref in self.cancellers:
            cancel = ref()
            if cancel is None:
                continue
            with contextlib.suppress(BaseException):  # the check has reported what matters
                cancel()

    def fail(self, message: str, rule: str | None = None) -> CheckFailure:
        """A failure to raise: ``raise env.fail("rule 1.1: ...")``."""
        if rule is None and message.startswith("rule "):
            rule = message[5:].split(":", 1)[0].split(" ", 1)[0].rstrip(",")
        return CheckFailure(message, rule)

    def verify(self) -> None:
        """Raise the first violation recorded by probes or helper threads."""
        with self.cond:
            flops = list(self.flops)
        if flops:
            first = flops[0]
            extra = f" (+{len(flops) - 1} more)" if len(flops) > 1 else ""
            raise CheckFailure(first.message + extra, first.rule)
        if self.executor is not None and self.executor.failures:
            exc = self.executor.failures[0]
            raise CheckFailure(f"an executor task raised {exc!r}")

    def check_abort(self) -> None:
        if self.aborted or (self.parent is not None and self.parent.aborted):
            raise CheckAborted

    def child(self) -> Env:
        """A fresh environment for one generated example (own violations, own executor)."""
        return Env(self.config, mode=self.mode, threads=self.threads, parent=self)

    # --------------------------------------------------------------------- threads
    def spawn(self, target: Callable[[], None], name: str = "tck-helper") -> threading.Thread:
        """Start a helper thread that acts as a caller (its signals are not foreign)."""
        ready = threading.Event()

        def run() -> None:
            with self.cond:
                self.caller_threads.add(threading.get_ident())
            ready.set()
            try:
                target()
            except CheckAborted:
                pass
            except CheckFailure as exc:
                self.flop(exc.rule, str(exc))
            except BaseException as exc:
                self.flop(None, f"helper thread raised {exc!r}")
            finally:
                self.notify()

        thread = threading.Thread(target=run, name=name, daemon=True)
        self._helpers.append(thread)
        thread.start()
        ready.wait(self.config.timeout)
        return thread

    def join_helpers(self) -> None:
        deadline = time.monotonic() + self.config.timeout
        for thread in self._helpers:
            while thread.is_alive():
                self.check_abort()
                self._drive_or_wait(min(0.01, max(0.0, deadline - time.monotonic())))
                if time.monotonic() > deadline:
                    raise self.fail(
                        f"helper thread {thread.name} did not finish (deadline: "
                        f"{self.config.timeout}s): blocked in a call?"
                    )

    def _helpers_alive(self) -> bool:
        return any(t.is_alive() for t in self._helpers)

    # ----------------------------------------------------------------------- waits
    @property
    def deterministic(self) -> bool:
        return self.mode in ("executor", "synchronous") and (
            self.executor is None or self.executor.threads == 0
        )

    def _drive_or_wait(self, timeout: float) -> None:
        executor = self.executor
        if executor is not None and executor.threads == 0 and executor.run_one():
            return
        with self.cond:
            self.cond.wait(timeout)

    def first_flop(self) -> CheckFailure | None:
        """The earliest violation recorded so far, as a failure to raise (None if none)."""
        with self.cond:
            if not self.flops:
                return None
            first = self.flops[0]
        return CheckFailure(first.message, first.rule)

    def wait_until(
        self,
        predicate: Callable[[], bool],
        what: str | Callable[[], str],
        rule: str | None = None,
        *,
        stop_on_flop: bool = True,
    ) -> None:
        """Wait (driving the manual executor) until ``predicate()``; fail once nothing has
        happened for ``timeout`` seconds (the deadline moves with every signal or call, so
        a slow publisher that keeps making progress is never failed by it). ``what`` (or
        its value, computed when the wait fails, so the counts it states are current)
        is the failure's message.

        In deterministic modes, with nothing left to run and no helper thread alive,
        the wait fails at once: nothing can make the predicate true any more. A recorded
        violation ends the wait too: the earliest violation is the check's verdict (a
        later "did not arrive" is often its consequence).
        """
        started = time.monotonic()

        def failure(why: str) -> CheckFailure:
            return self.fail(f"{what() if callable(what) else what} ({why})", rule)

        while True:
            self.check_abort()
            if predicate():
                return
            recorded = self.first_flop() if stop_on_flop else None
            if recorded is not None:
                raise recorded
            executor = self.executor
            if executor is not None and executor.threads == 0:
                if executor.run_one():
                    continue
                if self.mode == "executor" and not self._helpers_alive():
                    raise failure("nothing left to run")
            elif self.mode == "synchronous" and not self._helpers_alive():
                raise failure("the synchronous publisher returned")
            remaining = max(started, self.last_activity) + self.config.timeout - time.monotonic()
            if remaining <= 0:
                raise failure(f"deadline: nothing happened for {self.config.timeout}s")
            with self.cond:
                if not predicate():
                    self.cond.wait(min(remaining, 0.05))

    def wait_for(self, predicate: Callable[[], bool]) -> bool:
        """Like ``wait_until`` but without failing: True once ``predicate()`` holds, False
        when the deadline passes (or, in deterministic modes, nothing is left to run)."""
        try:
            self.wait_until(predicate, "", stop_on_flop=False)
        except CheckFailure:
            return False
        return True

    def settle(self, rule: str | None = None, *, strict: bool = True) -> bool:
        """Let the implementation finish everything it has started (see module doc).

        True once settled. If it keeps going past the deadline, a strict settle fails
        citing ``rule`` (default 1.8: signals must eventually stop); else False.
        """
        self.check_abort()
        self.join_helpers()
        executor = self.executor
        why = ""
        if self.mode == "executor":
            assert executor is not None
            if executor.threads == 0:
                steps = 0
                while executor.run_one():
                    self.check_abort()
                    steps += 1
                    if steps > self.config.max_quiesce_steps:
                        why = f"the publisher never quiesces: {steps} tasks ran, more are queued"
                        break
            elif not executor.wait_idle(self.config.timeout):
                why = f"the executor did not become idle (deadline: {self.config.timeout}s)"
        elif self.mode == "timed":
            self.timed = True
            why = self._quiet()
        if not why:
            return True
        if not strict:
            return False
        code = rule or "1.8"
        raise self.fail(f"rule {code}: {why}", code)

    def window(self) -> float:
        """One quiet window: ``quiet`` shared by the ``quiet_windows``, or ``_GAP_FACTOR``
        times the slowest owed signal seen (at most a quarter of ``timeout``)."""
        share = self.config.quiet / max(1, self.config.quiet_windows)
        return max(share, min(_GAP_FACTOR * self.max_gap, self.config.timeout / 4))

    def enough_cpu_ns(self) -> int:
        """CPU time a runnable thread must get in a window for the window to count: that
        of ``_cpu.ENOUGH_SIGNALS`` signals at the subject's cost, ``_cpu.MIN_CPU_NS`` at
        least (4 ms while the cost is unknown)."""
        cost = self.cpu_per_signal()
        if cost is None:
            return 8 * _cpu.MIN_CPU_NS
        return max(_cpu.MIN_CPU_NS, _cpu.ENOUGH_SIGNALS * cost)

    def _quiet(self) -> str:
        """Timed mode: "" after ``quiet_windows`` consecutive windows in which nothing
        happened and every thread that wanted the CPU got enough of it to have signalled
        several times (``_cpu``: a starved emitter is silent, not stopped) and no thread of
        the subject is still running; else why not, at the deadline.

        A window in which a thread starved restarts the count, until the deadline: the
        verdict waits for CPU time, never for wall time alone. A thread of the subject
        that keeps running through quiet windows for ``timeout`` seconds (it had the CPU
        and signalled nothing, yet never blocked) is the verdict: it never stopped.
        """
        deadline = time.monotonic() + self.config.check_timeout  # a long tail may be slow
        with self.cond:  # the window starts now at the earliest: a call just made counts
            self.last_activity = max(self.last_activity, time.monotonic())
        me = threading.get_native_id()
        counted = 0
        starved: tuple[int, ...] = ()
        busy_since: float | None = None
        while counted < self.config.quiet_windows or busy_since is not None:
            window = self.window()
            before = _cpu.sample(me)
            quiet = self._silent_for(window, deadline)
            if quiet is None:
                if starved:
                    return (
                        f"no {self.config.quiet_windows} quiet windows in which the threads "
                        f"had the CPU: {_cpu.thread_names(starved)} runnable but starved in "
                        f"{self.starved_windows} windows (deadline: {self.config.check_timeout}s)"
                    )
                return (
                    f"signals kept arriving: no {self.config.quiet_windows} quiet windows of "
                    f"{window:.3g}s (deadline: {self.config.check_timeout}s)"
                )
            self.windows += 1
            if not quiet:
                counted, starved, busy_since = 0, (), None
                continue
            after = _cpu.sample(me)
            if before is None or after is None:  # no /proc: wall time is all there is
                counted += 1
                continue
            judged = _cpu.judge(before, after, self.enough_cpu_ns(), window)
            if judged.starved:
                self.starved_windows += 1
                counted, starved = 0, judged.starved
                continue
            counted, starved = counted + 1, ()
            busy = sorted(set(judged.running) & self.subject_threads())
            if not busy:
                busy_since = None
                continue
            now = time.monotonic()
            busy_since = now if busy_since is None else busy_since
            if now - busy_since >= self.config.timeout:
                return (
                    f"the subject's thread {_cpu.thread_names(busy)} kept running for "
                    f"{now - busy_since:.3g}s (CPU: {judged.running[busy[0]] / 1e6:.3g} ms "
                    f"in the last {window:.3g}s window, enough for "
                    f"{judged.running[busy[0]] // max(1, self.cpu_per_signal() or 1)} signals) "
                    "with nothing more signalled: it never became idle"
                )
        return ""

    def _silent_for(self, window: float, deadline: float) -> bool | None:
        """Watch one window: True if nothing happened in it, False on activity (the
        window ends there), None past ``deadline``."""
        start = time.monotonic()
        with self.cond:
            seen = self.last_activity
            while True:
                self.check_abort()
                now = time.monotonic()
                if self.last_activity != seen:
                    return False
                if now > deadline:
                    return None
                if now - start >= window:
                    return True
                self.cond.wait(window - (now - start))

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()
        if self.parent is None:
            with _SHARED_LOCK:
                _LIVE.discard(id(self))
