"""Trace validation time against trace length (the checker must be linear).

``python -m bench.trace_validation [--events N ...] [--no-tlc] [--v1]`` writes a valid
trace of about N events (one subscription, request(1) per element, format version 2
with ``end_request`` unless ``--v1``) and times ``validate_files`` on it: parsing, the
Python replay and, unless ``--no-tlc``, TLC on the spec.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from reactive_streams.trace.validate import validate_files

HEADER = {"format": "reactive-streams-trace", "version": 2, "mode": "sync", "quiescent": True}


def write_trace(path: Path, events: int, *, call_ends: bool = True) -> int:
    """A valid synchronous trace of at least ``events`` events; returns the count."""
    per_element = 6 if call_ends else 5
    elements = max(1, (events - 4) // per_element)
    clock = 0

    def line(sig: str, **fields: object) -> str:
        nonlocal clock
        clock += 1
        return json.dumps({"clock": clock, "sub": 1, "sig": sig, **fields, "thread": 1})

    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(HEADER) + "\n")
        out.write(line("subscribe") + "\n")
        out.write(line("send_on_subscribe") + "\n")
        out.write(line("begin_on_subscribe") + "\n")
        out.write(line("end_on_subscribe", raised=False) + "\n")
        for seq in range(1, elements + 1):
            rows = [
                line("request", n=1),
                line("recv_request", n=1),
                line("send_on_next", seq=seq),
                line("begin_on_next", seq=seq),
                line("end_on_next", seq=seq, raised=False),
            ]
            if call_ends:
                rows.append(line("end_request"))
            out.write("\n".join(rows) + "\n")
    return clock


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.trace_validation")
    parser.add_argument("--events", type=int, nargs="+", default=[5_000, 10_000, 20_000])
    parser.add_argument("--no-tlc", action="store_true")
    parser.add_argument("--v1", action="store_true", help="no end_request events")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.events:
            path = Path(tmp) / f"trace-{target}.jsonl"
            count = write_trace(path, target, call_ends=not args.v1)
            started = time.perf_counter()
            [verdict], _ = validate_files([path], use_tlc=not args.no_tlc)
            seconds = time.perf_counter() - started
            judge = "replay only" if args.no_tlc else "TLC + replay"
            print(f"{count:>9} events  {seconds:8.2f} s  {judge}: {verdict.line()}", flush=True)


if __name__ == "__main__":
    main()
