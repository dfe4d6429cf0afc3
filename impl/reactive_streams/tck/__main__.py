"""``python -m reactive_streams.tck publisher|subscriber|processor MODULE:FACTORY [options]``.

Prints a table (rule, status, outcome, check, and the message below) no wider than
``--width`` and exits 1 if a required (or stochastic) check failed, 2 on a usage error
(including a module or factory it cannot load, reported in one line), 0 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import (
    Config,
    run_processor_checks,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from .report import MIN_WIDTH, Report


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reactive_streams.tck",
        description="Check a Reactive Streams implementation against rules 1.1-4.2.",
    )
    parser.add_argument("kind", choices=["publisher", "subscriber", "whitebox", "processor"])
    parser.add_argument(
        "factory", help="MODULE:FACTORY (publisher: create_publisher(n) emitting n elements)"
    )
    parser.add_argument("--failed", metavar="MODULE:FACTORY", help="a publisher that fails at once")
    parser.add_argument(
        "--failing", metavar="MODULE:FACTORY", help="failing(n): n elements, then an error"
    )
    parser.add_argument(
        "--trigger", metavar="MODULE:FUNC", help="blackbox: trigger_request(subscriber)"
    )
    parser.add_argument("--max-elements", type=int, help="largest n the factory supports")
    parser.add_argument(
        "--synchronous",
        action="store_true",
        help="FACTORY signals only on calling threads (not --failed/--failing)",
    )
    parser.add_argument(
        "--cannot-complete",
        action="store_true",
        help="the publisher never completes: skip the checks that need on_complete",
    )
    parser.add_argument(
        "--max-recursion-depth",
        type=int,
        help="rule 3.3: allowed on_next -> request -> on_next depth (default 1)",
    )
    parser.add_argument(
        "--timeout", type=float, help="deadline in seconds for each awaited signal (default 10)"
    )
    parser.add_argument(
        "--check-timeout",
        type=float,
        help="a check fails after this many seconds without any signal or call (default 120)",
    )
    parser.add_argument(
        "--quiet-period",
        type=float,
        help="timed mode: seconds without signals that count as settled (default 0.1)",
    )
    parser.add_argument("--examples", type=int, help="Hypothesis examples per generated check")
    parser.add_argument("--max-subscribers", type=int, help="processor: supported subscribers")
    parser.add_argument("--coordinated", action="store_true", help="processor: lockstep emission")
    parser.add_argument("--only", metavar="TEXT", help="run only checks whose name contains TEXT")
    parser.add_argument("--json", metavar="REPORT", help="also write the report as JSON")
    parser.add_argument(
        "--width",
        type=_width,
        default=max(MIN_WIDTH, shutil.get_terminal_size((100, 24)).columns),
        help="longest printed line; names and messages wrap (default: the terminal's width)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="keep the implementation's logs"
    )
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:

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
    only = (lambda c: args.only in c.name) if args.only else None
    factory = load(args.factory)
    report: Report
    if args.kind == "publisher":
        report = run_publisher_checks(
            factory,
            create_failed_publisher=load(args.failed) if args.failed else None,
            create_failing_publisher=load(args.failing) if args.failing else None,
            config=config,
            only=only,
            label=args.factory,
        )
    elif args.kind == "subscriber":
        report = run_subscriber_blackbox_checks(
            factory,
            trigger_request=load(args.trigger) if args.trigger else None,
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
            create_failed_publisher=load(args.failed) if args.failed else None,
            config=config,
            only=only,
            label=args.factory,
        )
    print(report.table(width=args.width))
    if args.json:
        try:
            report.write_json(args.json)
        except OSError as exc:
            raise UsageError(f"cannot write the JSON report {args.json!r}: {exc}") from None
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
