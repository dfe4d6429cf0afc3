"""Runs checks: each body in a worker thread with a deadline, each in a fresh ``Env``."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import os
import sys
import sysconfig
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from . import _cpu
from ._checks import Check
from ._env import CheckAborted, CheckFailure, Config, Env, Mode, Skip
from .report import EVIDENCE, CheckResult, Report

__all__ = ["accepts_executor", "mode_for", "run_checks"]


def accepts_executor(factory: Callable[..., Any]) -> bool:
    """True if ``factory`` takes an ``executor`` argument (the kit then passes its own)."""
    try:
        return "executor" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def mode_for(factory: Callable[..., Any], config: Config) -> Mode:
    if accepts_executor(factory):
        return "executor"
    return "synchronous" if config.synchronous else "timed"


def _missing(check: Check, subject: Any) -> str | None:
    config = getattr(subject, "config", None)
    if check.rule == "1.11" and config is not None and config.max_subscribers < 2:
        return (  # rule 1.11 is about several subscribers: it cannot apply
            f"rule 1.11 needs 2 subscribers; max_subscribers is {config.max_subscribers}"
        )
    for need in check.needs:
        if need == "hypothesis":
            if importlib.util.find_spec("hypothesis") is None:
                return "needs the hypothesis package (pip install hypothesis)"
        elif need == "completion":
            config = getattr(subject, "config", None)
            if config is not None and config.cannot_complete:
                return (
                    "needs on_complete, and the publisher declares it cannot complete "
                    "(cannot_complete / --cannot-complete; JVM publisherUnableToSignalOnComplete)"
                )
        elif getattr(subject, need, None) is None:
            return f"needs the {need!r} factory, which was not given"
    return None


DEADLOCK_AFTER = 3.0
"""Seconds with nothing signalled or called, every thread of the process blocked and the
check's thread blocked inside the subject, after which a check is failed as deadlocked
(0.5 s when the same place deadlocked an earlier check of the run)."""

_KIT = os.path.dirname(os.path.abspath(__file__))
_GALLERY = os.path.join(_KIT, "gallery")  # subjects, though shipped with the kit
_STDLIB = sysconfig.get_paths()["stdlib"]


def _blocked_in_subject(thread: threading.Thread) -> str | None:
    """Where ``thread`` waits, if inside the subject's code: the innermost frame that is
    neither the standard library's nor the kit's (the kit's own waits have deadlines)."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        name = frame.f_code.co_filename
        stdlib = name.startswith("<frozen") or (
            name.startswith(_STDLIB) and "site-packages" not in name
        )
        if not stdlib:
            if name.startswith(_KIT) and not name.startswith(_GALLERY):
                return None
            return f"{os.path.basename(name)}:{frame.f_lineno} in {frame.f_code.co_name}"
        frame = frame.f_back
    return None


def _deadlock(thread: threading.Thread) -> str | None:
    """The place ``thread`` is deadlocked in the subject: it waits there, and no thread
    of the process is runnable (nothing can release it); None otherwise."""
    where = _blocked_in_subject(thread)
    if where is None:
        return None
    threads = _cpu.sample(threading.get_native_id())
    if threads is None or any(t.state == "R" for t in threads.values()):
        return None
    return where


def run_one(
    check: Check,
    subject: Any,
    config: Config,
    mode: Mode,
    deadlocks: dict[str, str] | None = None,
) -> CheckResult:
    """Run one check. ``deadlocks`` (place -> the check that deadlocked there) is shared
    by the checks of a run: one deadlock is one failure, later checks that block at the
    same place are skipped, saying so."""
    deadlocks = {} if deadlocks is None else deadlocks
    base: dict[str, Any] = {
        "suite": check.suite,
        "name": check.name,
        "rule": check.rule,
        "status": check.status,
        "jvm": check.jvm,
    }
    if check.body is None:
        return CheckResult(outcome="untested", message=check.reason, **base)
    missing = _missing(check, subject)
    if missing is not None:
        return CheckResult(outcome="skipped", message=missing, **base)
    env = Env(config, mode=mode, threads=check.threads)
    outcome: dict[str, BaseException | None] = {}
    body = check.body

    def work() -> None:
        with env.cond:
            env.caller_threads.add(threading.get_ident())  # the check's own thread calls in
        recorded_before = 0  # violations recorded before the body raised
        try:
            try:
                body(env, subject)
            except BaseException:
                with env.cond:
                    recorded_before = len(env.flops)
                raise
            finally:
                env.cancel_open()  # every check ends by cancelling what it left open
            env.verify()
            outcome["ok"] = None
        except CheckAborted:  # a probe stopped a runaway emitter, or the deadline passed
            try:
                env.verify()  # the violation that stopped it fails the check
            except CheckFailure as recorded:
                outcome["error"] = recorded
            else:  # stopped with nothing recorded: the check did not finish, never a pass
                outcome["error"] = CheckFailure(
                    f"aborted before the check finished (rule {check.rule} unverified)",
                    check.rule,
                )
        except Skip as exc:
            outcome["error"] = exc
        except BaseException as exc:
            outcome["error"] = exc
            # the earliest recorded violation wins over a later raised failure; any
            # recorded one explains a raise that names no rule better
            if recorded_before or not isinstance(exc, CheckFailure):
                try:
                    env.verify()
                except CheckFailure as recorded:
                    outcome["error"] = recorded

    started = time.monotonic()
    worker = threading.Thread(target=work, name=f"tck-{check.name[:40]}", daemon=True)
    worker.start()
    cap = config.check_cap if config.check_cap is not None else 5 * config.check_timeout
    deadlocked: str | None = None
    while True:  # a check that keeps making progress gets up to ``cap`` seconds
        worker.join(min(0.5, config.check_timeout))
        now = time.monotonic()
        idle = now - max(started, env.last_activity)
        stalled = idle > config.check_timeout
        if not worker.is_alive() or stalled or now - started > cap:
            break
        if idle >= min(0.5, DEADLOCK_AFTER):
            where = _deadlock(worker)
            if where is not None and idle >= (0.5 if where in deadlocks else DEADLOCK_AFTER):
                deadlocked = where
                break
    timed_out = worker.is_alive()
    if timed_out:
        env.aborted = True
        env.notify()
        worker.join(1.0)
    env.close()
    seconds = time.monotonic() - started
    evidence = _evidence(env, None, timed_out=False)
    failed: str = "failed-optional" if check.status == "optional" else "failed"
    if timed_out:
        try:
            env.verify()
            detail = ""
        except CheckFailure as recorded:
            detail = f"; first violation: {recorded}"
        if deadlocked is not None and deadlocked in deadlocks:
            return CheckResult(
                outcome="skipped",
                message=f"not judged: blocked at {deadlocked}, the deadlock "
                f"{deadlocks[deadlocked]} reported{detail}",
                seconds=seconds,
                **base,
            )
        if deadlocked is not None:
            deadlocks[deadlocked] = check.name
            return CheckResult(
                outcome=failed,  # type: ignore[arg-type]
                message=f"deadlock: the check's thread has been blocked at {deadlocked} for "
                f"{DEADLOCK_AFTER}s with every thread of the process blocked and nothing "
                f"signalled (later checks blocked there are skipped){detail}",
                violated=_recorded_rule(env) or check.rule,
                evidence="deadline",
                seconds=seconds,
                **base,
            )
        return CheckResult(
            outcome=failed,  # type: ignore[arg-type]
            message=f"deadline: did not finish within {config.check_timeout}s of its last "
            f"signal or call, or {cap}s in all (deadlock, or a call that never returns, or "
            f"endless emission){detail}",
            violated=_recorded_rule(env) or check.rule,
            evidence=_evidence(env, None, timed_out=True),
            seconds=seconds,
            **base,
        )
    error = outcome.get("error")
    if "error" not in outcome:
        return CheckResult(outcome="passed", evidence=evidence, seconds=seconds, **base)
    if isinstance(error, Skip):
        return CheckResult(outcome="skipped", message=str(error), seconds=seconds, **base)
    failure = _failure_in(error)
    if failure is not None:
        message, violated = str(error), failure.rule
        if failure is not error:
            message = f"{type(error).__name__}: {failure}"
    else:
        assert error is not None
        tb = traceback.extract_tb(error.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        message, violated = f"unexpected {error!r}{where}", None
    return CheckResult(
        outcome=failed,  # type: ignore[arg-type]
        message=message,
        violated=violated or check.rule,  # every failure names a rule
        evidence=_evidence(env, failure or error, timed_out=False),
        seconds=seconds,
        **base,
    )


def _evidence(env: Env, failure: BaseException | None, *, timed_out: bool) -> str:
    """What the result rests on (``report.EVIDENCE``): what the failure or the check
    says (an ``evidence`` attribute), else a deadline that passed, else a quiet period
    (a pass in timed mode), else deterministic."""
    for source in (failure, env):
        said = getattr(source, "evidence", None)
        if isinstance(said, str) and said in EVIDENCE:
            return said
    if failure is None and not timed_out:
        return "quiet period" if env.timed else "deterministic"
    if timed_out or "deadline:" in str(failure):  # the waits of _env say "(deadline: ...)"
        return "deadline"
    return "deterministic"


def _failure_in(error: BaseException | None) -> CheckFailure | None:
    """The CheckFailure that ``error`` is or wraps (Hypothesis groups and flaky results
    wrap the failures they saw)."""
    if isinstance(error, CheckFailure):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _failure_in(inner)
            if found is not None:
                return found
    cause = error.__cause__ if error is not None else None
    return _failure_in(cause) if cause is not None and cause is not error else None


def _recorded_rule(env: Env) -> str | None:
    try:
        env.verify()
    except CheckFailure as recorded:
        return recorded.rule
    return None


def run_checks(
    checks: Iterable[Check],
    subject: Any,
    config: Config,
    mode: Mode,
    label: str,
    *,
    only: Callable[[Check], bool] | None = None,
    report: Report | None = None,
) -> Report:
    report = report if report is not None else Report(label)
    report.mode = report.mode or mode
    report.settings = report.settings or dataclasses.asdict(config)
    started = time.monotonic()
    for check in checks:
        if only is not None and not only(check):
            continue
        report.results.append(run_one(check, subject, config, mode, report.deadlocks))
    report.seconds += time.monotonic() - started
    return report
