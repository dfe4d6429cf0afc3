"""Runs checks: each body in a worker thread with a deadline, each in a fresh ``Env``."""

from __future__ import annotations

import importlib.util
import inspect
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from ._checks import Check
from ._env import CheckAborted, CheckFailure, Config, Env, Mode, Skip
from .report import CheckResult, Report

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
    for need in check.needs:
        if need == "hypothesis":
            if importlib.util.find_spec("hypothesis") is None:
                return "needs the hypothesis package (pip install hypothesis)"
        elif getattr(subject, need, None) is None:
            return f"needs the {need!r} factory, which was not given"
    return None


def run_one(check: Check, subject: Any, config: Config, mode: Mode) -> CheckResult:
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
        try:
            body(env, subject)
            env.verify()
            outcome["ok"] = None
        except CheckAborted:
            outcome["aborted"] = None
        except BaseException as exc:
            try:
                env.verify()  # a recorded violation explains the failure better
            except CheckFailure as recorded:
                if not isinstance(exc, (Skip, CheckFailure)):
                    exc = recorded
            outcome["error"] = exc

    started = time.monotonic()
    worker = threading.Thread(target=work, name=f"tck-{check.name[:40]}", daemon=True)
    worker.start()
    worker.join(config.check_timeout)
    timed_out = worker.is_alive()
    if timed_out:
        env.aborted = True
        env.notify()
        worker.join(1.0)
    env.close()
    seconds = time.monotonic() - started
    evidence = "timed" if env.timed else "deterministic"
    failed: str = "failed-optional" if check.status == "optional" else "failed"
    if timed_out:
        try:
            env.verify()
            detail = ""
        except CheckFailure as recorded:
            detail = f"; first violation: {recorded}"
        return CheckResult(
            outcome=failed,  # type: ignore[arg-type]
            message=f"did not finish within {config.check_timeout}s (deadlock, or a call that "
            f"never returns, or endless synchronous emission){detail}",
            violated=None,
            evidence=evidence,
            seconds=seconds,
            **base,
        )
    error = outcome.get("error")
    if "error" not in outcome:
        return CheckResult(outcome="passed", evidence=evidence, seconds=seconds, **base)
    if isinstance(error, Skip):
        return CheckResult(outcome="skipped", message=str(error), seconds=seconds, **base)
    if isinstance(error, CheckFailure):
        message, violated = str(error), error.rule
    else:
        assert error is not None
        tb = traceback.extract_tb(error.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        message, violated = f"unexpected {error!r}{where}", None
    return CheckResult(
        outcome=failed,  # type: ignore[arg-type]
        message=message,
        violated=violated,
        evidence=evidence,
        seconds=seconds,
        **base,
    )


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
    started = time.monotonic()
    for check in checks:
        if only is not None and not only(check):
            continue
        report.results.append(run_one(check, subject, config, mode))
    report.seconds += time.monotonic() - started
    return report
