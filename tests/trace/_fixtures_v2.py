"""The format version 2 fixtures of tests/traces/v2 (hand-built with :mod:`._build`):
``valid/`` must be accepted, the others rejected as their header's ``expect`` says.
Rewrite them: ``cd tests && PYTHONPATH=../impl python -m trace._fixtures_v2``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._build import ev, lines, range_publisher, signal, subscribed

HERE = Path(__file__).resolve().parents[1] / "traces" / "v2"


def fixtures() -> dict[str, str]:
    """File name (relative to tests/traces/v2) -> content."""
    out: dict[str, str] = {}

    def save(name: str, events: list[dict[str, Any]], **options: Any) -> None:
        out[f"{name}.jsonl"] = "\n".join(lines(events, **options)) + "\n"

    # reactive-streams-jvm RangePublisher: elements inside request() inside onSubscribe
    save("valid/range_publisher_sync", range_publisher(3))
    save("valid/range_publisher_async", range_publisher(3), mode="async")
    save(
        "valid/request_0_answered_by_illegal_argument",
        [
            *subscribed(),
            ev("request", n=0),
            ev("recv_request", n=0),
            ev("end_request"),
            *signal(
                "on_error",
                error="IllegalArgumentException: n must be > 0",
                error_type="java.lang.IllegalArgumentException",
            ),
        ],
    )
    # onNext -> request -> onNext: depth 2, the default bound is 1 (rule 3.3)
    depth_two = [
        *subscribed(),
        ev("request", n=1),
        ev("recv_request", n=1),
        ev("send_on_next", seq=1),
        ev("begin_on_next", seq=1),
        ev("request", n=1),
        ev("recv_request", n=1),
        *signal("on_next", seq=2),
        ev("end_request"),
        ev("end_on_next", seq=1, raised=False),
        ev("end_request"),
    ]
    # synchronous: the nested onNext is delivered at once, so committing it is the error
    save("recursion_depth_2_sync", depth_two, expect={"event": 11, "rule": "3.3"})
    save("recursion_depth_2", depth_two, mode="async", expect={"event": 12, "rule": "3.3"})
    # onNext on thread 2 while onSubscribe still runs on thread 1 (rule 1.3)
    save(
        "signal_on_another_thread",
        [
            ev("subscribe"),
            ev("send_on_subscribe"),
            ev("begin_on_subscribe"),
            ev("request", n=1),
            ev("end_request"),
            ev("recv_request", 2, n=1),
            *signal("on_next", 2, seq=1),
            ev("end_on_subscribe", raised=False),
        ],
        mode="async",
        expect={"event": 8, "rule": "1.3"},
    )
    # request() from thread 2 while thread 1's request() has not returned (rule 2.7)
    save(
        "overlapping_requests",
        [
            *subscribed(),
            ev("request", 1, n=1),
            ev("request", 2, n=1),
            ev("end_request", 2),
            ev("end_request", 1),
            ev("recv_request", 3, n=1),
            ev("recv_request", 3, n=1),
        ],
        mode="async",
        expect={"event": 6, "rule": "2.7"},
    )
    # request(0) answered by a RuntimeError whose text mentions rule 3.9 (rule 3.9)
    save(
        "request_0_wrong_error_class",
        [
            *subscribed(),
            ev("request", n=0),
            ev("recv_request", n=0),
            ev("end_request"),
            *signal(
                "on_error",
                error="RuntimeError: rule 3.9: request(n) requires n > 0",
                error_type="RuntimeError",
            ),
        ],
        expect={"event": 8, "rule": "3.9"},
    )
    # onComplete once request(-1) was received (rule 3.9)
    save(
        "on_complete_after_invalid_request",
        [
            *subscribed(),
            ev("request", n=-1),
            ev("recv_request", n=-1),
            ev("end_request"),
            *signal("on_complete"),
        ],
        mode="async",
        expect={"event": 8, "rule": "3.9"},
    )
    return out


def main() -> None:
    (HERE / "valid").mkdir(parents=True, exist_ok=True)
    for name, text in fixtures().items():
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
