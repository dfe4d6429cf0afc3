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
    # rule 2.13 at rest: onNext raised and the Subscription was never cancelled
    raised = [
        *subscribed(),
        ev("request", n=2),
        ev("recv_request", n=2),
        ev("end_request"),
        ev("send_on_next", seq=1),
        ev("begin_on_next", seq=1),
        ev("end_on_next", seq=1, raised=True),
    ]
    save("raise_never_cancelled", raised, mode="async", expect={"event": 10, "rule": "2.13"})
    save(
        "valid/raise_then_cancel",
        [*raised, ev("cancel"), ev("end_cancel"), ev("recv_cancel", 2)],
        mode="async",
    )
    # rules 3.16, 3.15: request() and cancel() must return normally
    save(
        "request_raises",
        [
            *subscribed(),
            ev("request", n=1),
            ev("recv_request", n=1),
            ev("end_request", raised=True),
        ],
        mode="async",
        expect={"event": 7, "rule": "3.16"},
    )
    save(
        "cancel_raises",
        [*subscribed(), ev("cancel"), ev("recv_cancel"), ev("end_cancel", raised=True)],
        mode="async",
        expect={"event": 7, "rule": "3.15"},
    )
    save(
        "valid/request_and_cancel_return",
        [
            *subscribed(),
            ev("request", n=1),
            ev("recv_request", n=1),
            ev("end_request", raised=False),
            *signal("on_next", seq=1),
            ev("cancel"),
            ev("recv_cancel"),
            ev("end_cancel", raised=False),
        ],
        mode="async",
    )
    # rule 3.9 as its text reads: an onNext within the demand may come between the
    # receipt of request(0) and the onError it demands; the onError must still come
    zero_then_more = [
        *subscribed(),
        ev("request", n=2),
        ev("recv_request", n=2),
        ev("end_request"),
        *signal("on_next", seq=1),
        ev("request", n=0),
        ev("recv_request", n=0),
        ev("end_request"),
        *signal("on_next", seq=2),
    ]
    answer = signal(
        "on_error",
        error="IllegalArgumentException: n must be > 0",
        error_type="java.lang.IllegalArgumentException",
    )
    save("valid/on_next_before_the_3_9_error", [*zero_then_more, *answer], mode="async")
    save(
        "on_next_after_request_0_and_no_error",
        zero_then_more,
        mode="async",
        expect={"event": 11, "rule": "3.9"},
    )
    # real-world input: a Java binary class name and an error text of any length
    save(
        "valid/java_nested_error_class",
        [
            *subscribed(),
            *signal("on_error", error="x" * 12_000, error_type="com.example.Main$1"),
        ],
        mode="async",
    )
    # a version 2 header whose calls have no end events: call ends not recorded, so
    # 2.7 across threads cannot be judged (the validator says so; docs/trace-format.md)
    save(
        "valid/calls_without_ends",
        [
            *subscribed(),
            ev("request", 1, n=1),
            ev("request", 2, n=1),
            ev("recv_request", 3, n=1),
            ev("recv_request", 3, n=1),
        ],
        mode="async",
    )
    return out


def main() -> None:
    (HERE / "valid").mkdir(parents=True, exist_ok=True)
    for name, text in fixtures().items():
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
