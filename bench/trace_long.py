"""Validation time of long, correct, asynchronous traces (the checker must be linear).

``python -m bench.trace_long --events 10000 100000 [--subs K] [--no-tlc] [--keep DIR]``
writes, for each N, one valid trace of about N events and times
``validate_files`` on it (parsing, the Python replay and, unless ``--no-tlc``, TLC on
``spec/TraceReactiveStreams.tla``).

The trace: format version 2, asynchronous, full view, quiescent. K Subscriptions
(default 4) run interleaved in slices; each has its own delivery thread, requests
``batch`` elements from ``onSubscribe`` and again from inside the last ``onNext`` of
every batch (a nested ``request``), the Publisher receives each request before the
batch it pays for, and the stream completes. Subscriptions differ in batch size, and
one in four is cancelled from inside an ``onNext`` half-way instead of completing.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from reactive_streams.trace.validate import validate_files

HEADER = {
    "format": "reactive-streams-trace",
    "version": 2,
    "mode": "async",
    "view": "full",
    "quiescent": True,
}

Row = dict[str, object]


def subscription(sub: int, elements: int, batch: int, cancel_at: int | None) -> Iterator[Row]:
    """The events of one Subscription (without clock), in order."""
    caller, worker = 2 * sub, 2 * sub + 1

    def ev(sig: str, thread: int, **fields: object) -> Row:
        return {"sub": sub, "sig": sig, **fields, "thread": thread}

    yield ev("subscribe", caller)
    yield ev("send_on_subscribe", worker)
    yield ev("begin_on_subscribe", worker)
    yield ev("request", worker, n=batch)
    yield ev("end_request", worker)
    yield ev("end_on_subscribe", worker, raised=False)
    seq = 0
    while seq < elements:
        yield ev("recv_request", worker, n=batch)
        for _ in range(min(batch, elements - seq)):
            seq += 1
            yield ev("send_on_next", worker, seq=seq)
            yield ev("begin_on_next", worker, seq=seq)
            if seq == cancel_at:
                yield ev("cancel", worker)
                yield ev("end_cancel", worker)
                yield ev("end_on_next", worker, seq=seq, raised=False)
                yield ev("recv_cancel", worker)
                return
            if seq % batch == 0 and seq < elements:
                yield ev("request", worker, n=batch)
                yield ev("end_request", worker)
            yield ev("end_on_next", worker, seq=seq, raised=False)
    yield ev("send_on_complete", worker)
    yield ev("begin_on_complete", worker)
    yield ev("end_on_complete", worker, raised=False)


def write_trace(path: Path, events: int, subs: int = 4, slice_len: int = 50) -> int:
    """A valid trace of about ``events`` events over ``subs`` Subscriptions; returns the
    number of events written."""
    per_element = 2.8  # send, begin, end, a request every batch, interleaving
    elements = max(1, int(events / subs / per_element))
    streams = []
    for k in range(subs):
        batch = (16, 64, 7, 128)[k % 4]
        cancel_at = elements // 2 if k % 4 == 3 and elements > 1 else None
        streams.append(subscription(k + 1, elements, batch, cancel_at))
    clock = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(HEADER) + "\n")
        while streams:
            for stream in list(streams):
                for _ in range(slice_len):
                    row = next(stream, None)
                    if row is None:
                        streams.remove(stream)
                        break
                    clock += 1
                    out.write(json.dumps({"clock": clock, **row}, separators=(",", ":")) + "\n")
    return clock


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.trace_long")
    parser.add_argument("--events", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--subs", type=int, default=4)
    parser.add_argument("--no-tlc", action="store_true")
    parser.add_argument("--keep", type=Path, help="write the traces here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        for target in args.events:
            path = where / f"trace-{target}-{args.subs}.jsonl"
            count = write_trace(path, target, args.subs)
            started = time.perf_counter()
            [verdict], _ = validate_files([path], use_tlc=not args.no_tlc)
            seconds = time.perf_counter() - started
            judge = "replay only" if args.no_tlc else "TLC + replay"
            print(
                f"{count:>9} events  {args.subs} subs  {seconds:8.2f} s  {judge}: {verdict.line()}",
                flush=True,
            )


if __name__ == "__main__":
    main()
