"""``python -m reactive_streams.trace validate FILE.jsonl [FILE ...]``.

Prints one line per file, ``valid (N events)`` or the first violation, e.g.
``invalid: event 17 (send_on_next): rule 1.1: ...``; exit status 1 if any is invalid.

``--expect-header``: the files are mutated fixtures whose header names the expected
verdict (``"expect": {"event": 17, "rule": "1.1"}``); a file passes when it is rejected
at that event for that rule.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .format import read_trace
from .validate import validate_files


def _expected(path: str) -> tuple[int, str] | None:
    expect = read_trace(path).header.expect
    if not expect:
        return None
    return int(expect["event"]), str(expect["rule"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reactive_streams.trace")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="check traces against spec/ReactiveStreams.tla")
    check.add_argument("files", nargs="+")
    check.add_argument("--no-tlc", action="store_true", help="Python replay only (no Java)")
    check.add_argument(
        "--expect-header", action="store_true", help="files must be rejected as their header says"
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print failures and a summary")
    check.add_argument(
        "--min-count", type=int, default=0, help="fail unless at least this many files are given"
    )
    args = parser.parse_args(argv)

    if len(args.files) < args.min_count:
        print(f"only {len(args.files)} trace files, at least {args.min_count} expected")
        return 1
    verdicts, seconds = validate_files(args.files, use_tlc=not args.no_tlc)
    failures = 0
    events = 0
    for path, verdict in zip(args.files, verdicts, strict=True):
        events += verdict.events
        if args.expect_header:
            expected = _expected(path)
            good = (
                expected is not None
                and not verdict.ok
                and verdict.index == expected[0]
                and verdict.rule == expected[1]
            )
            status = "rejected as expected" if good else f"UNEXPECTED (expected {expected})"
            line = f"{path}: {status}: {verdict.line()}"
        else:
            good = verdict.ok
            line = f"{path}: {verdict.line()}" if len(args.files) > 1 else verdict.line()
        failures += not good
        if not good or not args.quiet:
            print(line)
    judge = "TLC + replay" if not args.no_tlc else "replay only"
    print(
        f"{len(verdicts) - failures}/{len(verdicts)} as expected, {events} events, "
        f"{seconds:.1f} s ({judge})",
        file=sys.stderr,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
