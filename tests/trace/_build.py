"""Hand-built traces in format version 2 (``end_request``/``end_cancel``, threads)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from reactive_streams.trace.format import Trace, parse_lines
from reactive_streams.trace.validate import Verdict, validate_traces

Raw = dict[str, Any]


def ev(sig: str, thread: int = 1, sub: int = 1, **fields: Any) -> Raw:
    return {"sub": sub, "sig": sig, "thread": thread, **fields}


def signal(name: str, thread: int = 1, sub: int = 1, **fields: Any) -> list[Raw]:
    """send_X, begin_X, end_X on one thread."""
    end = {**fields, "raised": False}
    return [
        ev(f"send_{name}", thread, sub, **fields),
        ev(f"begin_{name}", thread, sub, **fields),
        ev(f"end_{name}", thread, sub, **end),
    ]


def subscribed(thread: int = 1, sub: int = 1) -> list[Raw]:
    return [ev("subscribe", thread, sub), *signal("on_subscribe", thread, sub)]


def lines(
    events: Iterable[Raw],
    *,
    mode: str = "sync",
    quiescent: bool = True,
    expect: Mapping[str, Any] | None = None,
) -> list[str]:
    header: Raw = {"format": "reactive-streams-trace", "version": 2, "mode": mode}
    header["quiescent"] = quiescent
    if expect is not None:
        header["expect"] = dict(expect)
    out = [json.dumps(header)]
    out += [json.dumps({"clock": k + 1, **e}) for k, e in enumerate(events)]
    return out


def trace(events: Iterable[Raw], **options: Any) -> Trace:
    return parse_lines(lines(events, **options))


def verdict(events: Iterable[Raw], *, max_depth: int = 1, **options: Any) -> Verdict:
    [result] = validate_traces([trace(events, **options)], use_tlc=False, max_depth=max_depth)
    return result


def range_publisher(n: int = 2) -> list[Raw]:
    """reactive-streams-jvm's RangePublisher: onSubscribe calls request(n), and the
    elements and onComplete are delivered inside that request, on the same thread."""
    inner: list[Raw] = [ev("request", n=n), ev("recv_request", n=n)]
    for seq in range(1, n + 1):
        inner += signal("on_next", seq=seq)
    inner += [*signal("on_complete"), ev("end_request")]
    return [
        ev("subscribe"),
        ev("send_on_subscribe"),
        ev("begin_on_subscribe"),
        *inner,
        ev("end_on_subscribe", raised=False),
    ]
