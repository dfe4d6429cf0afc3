"""The per-check environment: configuration, waits with deadlines, quiescence, failures.

Evidence of "never" and "eventually" comes from quiescence, not from sleeping:

* ``executor`` mode: the factory accepts an ``executor`` argument, the kit passes a
  ``KitExecutor`` and knows exactly when nothing is queued or running;
* ``synchronous`` mode: the implementation declares that it signals only on the threads
  that call ``subscribe``/``request``/``cancel``; when those calls have returned, nothing
  else can happen (the probes check the declaration: a signal on a foreign thread fails);
* ``timed`` mode (anything else): absence is judged after a quiet period, as the JVM TCK
  does; results carry ``evidence="timed"``.

Every positive wait ("an element must arrive") is bounded by ``Config.timeout``, and the
whole check by ``Config.check_timeout``, so a deadlock fails instead of hanging.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .._demand import MAX_DEMAND

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

    timeout: float = 2.0
    """Bound, in seconds, for every wait for something that must happen."""
    check_timeout: float = 20.0
    """Deadline, in seconds, for one whole check; past it the check fails."""
    quiet: float = 0.05
    """Timed mode only: seconds without signals that count as "nothing more comes"."""
    max_elements: int = MAX_DEMAND - 1
    """The largest stream the publisher factory can create (JVM maxElementsFromPublisher)."""
    bounded_depth: int = 1
    """Allowed depth of on_next -> request -> on_next recursion (rule 3.3)."""
    stochastic_runs: int = 100
    """Repetitions of a stochastic check."""
    examples: int = 25
    """Hypothesis examples per generated check."""
    synchronous: bool = False
    """The implementation signals only on threads that call into it (see module doc)."""
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
    _helpers: list[threading.Thread] = field(default_factory=list)
    _clock: int = 0

    def __post_init__(self) -> None:
        if self.mode == "executor" and self.executor is None:
            self.executor = KitExecutor(self.threads)
        self.caller_threads.add(threading.get_ident())

    # ----------------------------------------------------------------- bookkeeping
    def tick(self) -> int:
        """The next value of the check's logical clock."""
        with self.cond:
            self._clock += 1
            return self._clock

    def flop(self, rule: str | None, message: str) -> None:
        """Record a violation seen on any thread (reported when the check ends)."""
        with self.cond:
            self.flops.append(Flop(rule, message))
            self.cond.notify_all()

    def notify(self) -> None:
        with self.cond:
            self.cond.notify_all()

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
                        f"helper thread {thread.name} did not finish: blocked in a call?"
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

    def wait_until(self, predicate: Callable[[], bool], what: str, rule: str | None = None) -> None:
        """Wait (driving the manual executor) until ``predicate()``; fail after the timeout.

        In deterministic modes, with nothing left to run and no helper thread alive,
        the wait fails at once: nothing can make the predicate true any more.
        """
        deadline = time.monotonic() + self.config.timeout
        while True:
            self.check_abort()
            if predicate():
                return
            executor = self.executor
            if executor is not None and executor.threads == 0:
                if executor.run_one():
                    continue
                if self.mode == "executor" and not self._helpers_alive():
                    raise self.fail(f"{what} (nothing left to run)", rule)
            elif self.mode == "synchronous" and not self._helpers_alive():
                raise self.fail(f"{what} (the synchronous publisher returned)", rule)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self.fail(f"{what} (within {self.config.timeout}s)", rule)
            with self.cond:
                if not predicate():
                    self.cond.wait(min(remaining, 0.05))

    def settle(self) -> None:
        """Let the implementation finish everything it has started (see module doc)."""
        self.check_abort()
        self.join_helpers()
        executor = self.executor
        if self.mode == "executor":
            assert executor is not None
            if executor.threads == 0:
                steps = 0
                while executor.run_one():
                    self.check_abort()
                    steps += 1
                    if steps > self.config.max_quiesce_steps:
                        raise self.fail(
                            f"the publisher never quiesces: {steps} tasks ran and more are "
                            "queued (endless emission?)"
                        )
            elif not executor.wait_idle(self.config.timeout):
                raise self.fail(f"the executor did not become idle within {self.config.timeout}s")
        elif self.mode == "timed":
            self.timed = True
            time.sleep(self.config.quiet)  # timed mode only: the JVM TCK's evidence

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()
