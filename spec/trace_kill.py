#!/usr/bin/env python3
"""Write spec/TraceData.tla, the batch of the kill model of TraceReactiveStreams.tla.

The kill model `trace_fixtures` of spec/models.toml runs MCTraceReactiveStreams.tla on
fixtures of tests/traces/: traces each rule must reject and traces it must accept
(`Expect[t]`).  A mutation of the trace module that accepts a trace it must reject
breaks `MustRejectInv`; one that cannot take a trace it must accept breaks
`MustAcceptInv` (the kill table of `make check`, spec/tlc.py).

The validator writes its own TraceData.tla in a temporary directory for every run;
this one is committed so that the kill table runs without Python packages.

Usage: `python spec/trace_kill.py` (rewrite), `python spec/trace_kill.py --check`
(exit 1 when the committed file is not what the fixtures give).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

SPEC_DIR = Path(__file__).resolve().parent
ROOT = SPEC_DIR.parent
OUT = SPEC_DIR / "TraceData.tla"
V2 = ROOT / "tests" / "traces" / "v2"

#: (fixture, must be accepted): asynchronous, one Subscription each; together they
#: take every action of the trace module (TLC's coverage in `make check`)
FIXTURES = (
    (V2 / "raise_never_cancelled.jsonl", False),  # 2.13 at rest
    (V2 / "valid" / "raise_then_cancel.jsonl", True),
    (V2 / "request_raises.jsonl", False),  # 3.16
    (V2 / "cancel_raises.jsonl", False),  # 3.15
    (V2 / "valid" / "request_and_cancel_return.jsonl", True),
    (V2 / "on_next_after_request_0_and_no_error.jsonl", False),  # 3.9: the error must come
    (V2 / "valid" / "on_next_before_the_3_9_error.jsonl", True),  # 3.9 as its text reads
    (V2 / "valid" / "range_publisher_async.jsonl", True),
)


def render() -> str:
    """The module text: the traces (reactive_streams.trace.to_tla) and Expect."""
    sys.path.insert(0, str(ROOT / "impl"))
    from reactive_streams.trace.format import read_trace
    from reactive_streams.trace.to_tla import render_module
    from reactive_streams.trace.validate import prepare

    traces = [read_trace(path) for path, _ in FIXTURES]
    assert all(t.header.mode == "async" for t in traces), "one mode per batch"
    batch = [prepare(t) for t in traces]
    assert all({e.sub for e in p.events} == {1} for p in batch), "one Subscription each"
    text = render_module(batch, sync=False, hints=[0] * len(batch))
    names = "\n".join(
        f"\\* {k}: {path.relative_to(ROOT)}" for k, (path, _) in enumerate(FIXTURES, 1)
    )
    expect = ", ".join("TRUE" if accept else "FALSE" for _, accept in FIXTURES)
    head, end = text.rsplit("====", 1)
    return (
        "\\* The kill model's batch, written by spec/trace_kill.py from tests/traces/:\n"
        f"{names}\n{head}Expect == << {expect} >>\n===={end}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python spec/trace_kill.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
