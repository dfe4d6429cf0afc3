"""``rs-tck publisher|subscriber|whitebox|processor MODULE:FACTORY [options]``, also
``python -m reactive_streams.tck``; ``rs-tck --version``, ``rs-tck KIND --help``.

Prints a table (rule, status, outcome, check, and the message below) no wider than
``--width``, then the failures (rule, check, reason), and exits 1 if a required (or
stochastic) check failed, 2 on a usage error, 0 otherwise. Usage errors are reported in
one line before any check runs: a module or factory it cannot load, a factory that cannot
be called as the kind needs or makes the wrong kind of object, ``--only`` matching no
check, a non-positive number, an unwritable ``--json`` path. If the subject left threads
running that Python's exit would wait for (a failed publisher still emitting, a thread
pool's workers), the report says how many; whenever any thread but the main one is left,
the process exits without waiting for it (``os._exit`` once the report is flushed).
"""

from __future__ import annotations

import argparse
import concurrent.futures.thread
import importlib
import inspect
import logging
import os
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from . import (
    Config,
    WhiteboxProbe,
    run_processor_checks,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from ._checks import Suite, checks_of
from ._env import Env, KitExecutor
from .report import MIN_WIDTH, Report

SUITES: dict[str, tuple[Suite, ...]] = {
    "publisher": ("publisher",),
    "subscriber": ("subscriber_blackbox",),
    "whitebox": ("subscriber_whitebox",),
    "processor": ("processor", "publisher", "subscriber_whitebox"),
}
SIGNALS = ("on_subscribe", "on_next", "on_error", "on_complete")
KINDS = {  # the subcommands: what FACTORY is called as, and what it makes
    "publisher": "create_publisher(n): a Publisher of n elements",
    "subscriber": "create_subscriber(): a Subscriber, checked as a black box",
    "whitebox": "create_subscriber(probe): a Subscriber that reports to the kit's probe",
    "processor": "create_processor(buffer_size): a Processor",
}


class UsageError(Exception):
    """A command-line mistake: reported in one line, exit status 2."""


def load(spec: str) -> Callable[..., Any]:
    """``package.module:attr.path`` -> the object (``UsageError`` when it cannot be had)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:FACTORY, got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")  # modules in the current directory, as ``python -m`` finds them
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any error it raises is theirs to see
        raise UsageError(
            f"cannot import module {module_name!r} (from {spec!r}): {type(exc).__name__}: {exc}"
        ) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{spec}: {module_name!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise UsageError(f"{spec} is not callable (a {type(obj).__name__})")
    return obj  # type: ignore[no-any-return]


def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of columns, got {text!r}") from None
    if value < MIN_WIDTH:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_WIDTH}, got {value}")
    return value


def _positive(kind: type[float] | type[int]) -> Callable[[str], float | int]:
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def _factory_problem(kind: str, spec: str, factory: Callable[..., Any], config: Config) -> None:
    """``UsageError`` unless ``factory`` can be called as ``kind`` needs and makes an
    object of that kind (a class is inspected; a function is called once)."""
    takes = {
        "publisher": "create_publisher(n)",
        "processor": "create_processor(buffer_size)",
        "whitebox": "create_subscriber(probe)",
        "subscriber": "create_subscriber()",
    }[kind]
    executor = KitExecutor(0)
    args: tuple[object, ...] = {
        "publisher": (1,),
        "processor": (config.buffer_size,),
        "whitebox": (WhiteboxProbe(Env(config)),),
        "subscriber": (),
    }[kind]
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        signature = None
    kwargs = {"executor": executor} if signature and "executor" in signature.parameters else {}
    if signature is not None:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(
                f"{spec}: a {kind} factory is called as {takes}, but its signature is "
                f"{signature} ({exc})"
            ) from None
    made: Any = factory
    try:
        if not isinstance(factory, type):
            made = factory(*args, **kwargs)
    except Exception as exc:
        raise UsageError(f"{spec}: calling it as {takes} raised {exc!r}") from None
    finally:
        executor.close()
    needs = {
        "publisher": ("subscribe",),
        "processor": ("subscribe", *SIGNALS),
        "whitebox": SIGNALS,
        "subscriber": SIGNALS,
    }[kind]
    missing = [name for name in needs if not callable(getattr(made, name, None))]
    if missing:
        is_publisher, is_subscriber = hasattr(made, "subscribe"), hasattr(made, "on_next")
        what = {
            (True, True): "Processor",
            (True, False): "Publisher",
            (False, True): "Subscriber",
        }.get((is_publisher, is_subscriber), type(made).__name__)
        raise UsageError(
            f"{spec} makes a {what}, not what {kind!r} checks (it lacks {', '.join(missing)})"
        )


def _callable_as(spec: str, factory: Callable[..., Any], args: int, takes: str) -> None:
    """``UsageError`` unless ``factory`` can be called with ``args`` positional arguments."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    kwargs = {"executor": None} if "executor" in signature.parameters else {}
    try:
        signature.bind(*range(args), **kwargs)
    except TypeError as exc:
        raise UsageError(
            f"{spec}: called as {takes}, but its signature is {signature} ({exc})"
        ) from None


def _optional(spec: str | None, args: int, takes: str) -> Callable[..., Any] | None:
    if spec is None:
        return None
    factory = load(spec)
    _callable_as(spec, factory, args, takes)
    return factory


def _check_only(kind: str, only: str) -> None:
    if not any(only in c.name for suite in SUITES[kind] for c in checks_of(suite)):
        raise UsageError(f"--only {only!r} matches no {kind} check")


def _check_writable(path: str) -> None:
    """``UsageError`` now, before any check runs, if the JSON report cannot be written."""
    existed = os.path.lexists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write the JSON report {path!r}: {exc}") from None
    if not existed:
        os.remove(path)


def _left_running() -> int:
    """Threads besides this one that Python's exit would wait for: non-daemon threads,
    and the workers of ``concurrent.futures`` pools, which an exit hook joins even when
    they are daemon threads (as they are when a daemon thread, such as a check's worker,
    started them): the subject's, after its checks."""
    current = threading.current_thread()
    pooled = set(getattr(concurrent.futures.thread, "_threads_queues", {}))  # best effort
    return sum(
        1
        for t in threading.enumerate()
        if t.is_alive() and t is not current and (not t.daemon or t in pooled)
    )


def main(
    argv: Sequence[str] | None = None,
    *,
    hard_exit: bool = False,
    prog: str = "python -m reactive_streams.tck",
) -> int:
    """The CLI; with ``hard_exit`` (``python -m``, ``rs-tck``), a run that leaves any
    thread of the subject alive ends with ``os._exit`` once the report is out."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check a Reactive Streams implementation against rules 1.1-4.2.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} (reactive-streams-reference)",
    )
    options = argparse.ArgumentParser(add_help=False)  # every KIND takes them
    options.add_argument("factory", help="MODULE:FACTORY, called as above")
    options.add_argument(
        "--failed", metavar="MODULE:FACTORY", help="a publisher that fails at once"
    )
    options.add_argument(
        "--failing", metavar="MODULE:FACTORY", help="failing(n): n elements, then an error"
    )
    options.add_argument(
        "--trigger", metavar="MODULE:FUNC", help="blackbox: trigger_request(subscriber)"
    )
    options.add_argument("--max-elements", type=int, help="largest n the factory supports")
    options.add_argument(
        "--synchronous",
        action="store_true",
        help="FACTORY signals only on calling threads (not --failed/--failing)",
    )
    options.add_argument(
        "--cannot-complete",
        action="store_true",
        help="the publisher never completes: skip the checks that need on_complete",
    )
    options.add_argument(
        "--max-recursion-depth",
        type=int,  # validated by a check, as the JVM TCK does (required_spec303_validate_...)
        help="rule 3.3: allowed on_next -> request -> on_next depth (default 1)",
    )
    options.add_argument(
        "--timeout",
        type=_positive(float),
        help="deadline in seconds for each awaited signal (default 10)",
    )
    options.add_argument(
        "--check-timeout",
        type=_positive(float),
        help="a check fails after this many seconds without any signal or call (default 120)",
    )
    options.add_argument(
        "--quiet-period",
        type=_positive(float),
        help="timed mode: seconds without signals that count as settled (default 0.1)",
    )
    options.add_argument(
        "--examples", type=_positive(int), help="Hypothesis examples per generated check"
    )
    options.add_argument(
        "--max-subscribers", type=_positive(int), help="processor: supported subscribers"
    )
    options.add_argument("--coordinated", action="store_true", help="processor: lockstep emission")
    options.add_argument("--only", metavar="TEXT", help="run only checks whose name contains TEXT")
    options.add_argument("--json", metavar="REPORT", help="also write the report as JSON")
    options.add_argument(
        "--width",
        type=_width,
        default=max(MIN_WIDTH, shutil.get_terminal_size((100, 24)).columns),
        help="longest printed line; names and messages wrap (default: the terminal's width)",
    )
    options.add_argument(
        "-v", "--verbose", action="store_true", help="keep the implementation's logs"
    )
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, makes in KINDS.items():
        kinds.add_parser(
            kind,
            parents=[options],
            help=makes,
            description=f"The {kind} checks on FACTORY, {makes}.",
        )
    args = parser.parse_args(argv)
    try:
        return _run(args, hard_exit)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, hard_exit: bool) -> int:

    if not args.verbose:
        logging.disable(logging.CRITICAL)  # faulty subscribers are logged by design
    overrides: dict[str, Any] = {}
    for field, value in (
        ("max_elements", args.max_elements),
        ("timeout", args.timeout),
        ("check_timeout", args.check_timeout),
        ("quiet", args.quiet_period),
        ("examples", args.examples),
        ("max_subscribers", args.max_subscribers),
        ("bounded_depth", args.max_recursion_depth),
    ):
        if value is not None:
            overrides[field] = value
    if args.synchronous:
        overrides["synchronous"] = True
    if args.cannot_complete:
        overrides["cannot_complete"] = True
    if args.coordinated:
        overrides["coordinated_emission"] = True
    config = Config(**overrides)
    if args.only is not None:
        _check_only(args.kind, args.only)
    only = (lambda c: args.only in c.name) if args.only else None
    if args.json:
        _check_writable(args.json)
    factory = load(args.factory)
    failed = _optional(args.failed, 0, "create_failed_publisher()")
    failing = _optional(args.failing, 1, "create_failing_publisher(n)")
    trigger = _optional(args.trigger, 1, "trigger_request(subscriber)")
    _factory_problem(args.kind, args.factory, factory, config)
    report: Report
    if args.kind == "publisher":
        report = run_publisher_checks(
            factory,
            create_failed_publisher=failed,
            create_failing_publisher=failing,
            config=config,
            only=only,
            label=args.factory,
        )
    elif args.kind == "subscriber":
        report = run_subscriber_blackbox_checks(
            factory,
            trigger_request=trigger,
            config=config,
            only=only,
            label=args.factory,
        )
    elif args.kind == "whitebox":
        report = run_subscriber_whitebox_checks(
            factory, config=config, only=only, label=args.factory
        )
    else:
        report = run_processor_checks(
            factory,
            create_failed_publisher=failed,
            config=config,
            only=only,
            label=args.factory,
        )
    code = 0 if report.ok else 1
    left = _left_running() if hard_exit else 0
    report.threads_left_running = left
    print(report.table(width=args.width))
    if args.json:
        try:
            report.write_json(args.json)
        except OSError as exc:
            raise UsageError(f"cannot write the JSON report {args.json!r}: {exc}") from None
    others = hard_exit and any(t is not threading.current_thread() for t in threading.enumerate())
    if left or others:  # a subject still running must not keep the process (and CI) waiting
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def cli() -> None:
    """The ``rs-tck`` console script."""
    sys.exit(main(hard_exit=True, prog="rs-tck"))


if __name__ == "__main__":
    sys.exit(main(hard_exit=True))
