"""The kit's probes driven directly, one signal at a time, in synchronous mode: what each
signal records, which rule each misuse flops, the exact messages, the limits (1.7 after a
terminal, 1.8/3.12 after cancel, 1.1 over-delivery) and the waits' failures. Threads are
ordered by events, the clock is a fake: nothing here depends on timing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from reactive_streams.tck import probes
from reactive_streams.tck._env import CheckAborted, CheckFailure, Config, Env
from reactive_streams.tck.probes import (
    BlackboxProxy,
    ProbeSubscriber,
    Record,
    WhiteboxProbe,
    WhiteboxPuppet,
    subscribe_probe,
)

WAIT = 10.0


class Sub:
    """A subscription that records its calls; ``fail`` makes them raise."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.requests: list[int] = []
        self.cancels = 0
        self.fail = fail

    def request(self, n: int) -> None:
        self.requests.append(n)
        if self.fail is not None:
            raise self.fail

    def cancel(self) -> None:
        self.cancels += 1
        if self.fail is not None:
            raise self.fail


class Clock:
    """Stands in for the probes' ``time``: a settable monotonic clock, recorded sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def env_of(mode: Any = "synchronous", **config: Any) -> Env:
    config.setdefault("signal_pause", None)
    config.setdefault("timeout", WAIT)
    return Env(Config(**config), mode=mode)


def flops(env: Env) -> list[tuple[str | None, str]]:
    return [(f.rule, f.message) for f in env.flops]


def subscribed(env: Env, **kw: Any) -> tuple[ProbeSubscriber, Sub]:
    probe, sub = ProbeSubscriber(env, "p", **kw), Sub()
    probe.on_subscribe(sub)
    return probe, sub


def in_thread(target: Any) -> None:
    thread = threading.Thread(target=target)
    thread.start()
    thread.join(WAIT)
    assert not thread.is_alive()


# ------------------------------------------------------------------- a fresh probe
def test_a_fresh_probe_has_seen_nothing() -> None:
    probe = ProbeSubscriber(env_of())
    assert probe.name == "subscriber"
    assert (probe.max_depth, probe.consumed, probe.completions, probe.requested) == (0, 0, 0, 0)
    assert (probe.records, probe.values, probe.errors) == ([], [], [])
    assert probe.subscription is None
    assert probe.cancelled is False
    assert (probe.cancel_mark, probe.cancel_returned) == (None, None)
    assert not probe.terminated
    assert not probe.subscribed
    assert (probe.mark(), probe.kinds(), probe.signals_after(0)) == (0, [], [])


def test_the_default_name_is_in_every_message() -> None:
    env = env_of()
    probe = ProbeSubscriber(env)
    probe.on_next(1)
    assert flops(env)[0] == ("1.9", "rule 1.9: subscriber: on_next before on_subscribe")


# ----------------------------------------------------------------- each signal
def test_each_signal_is_recorded_with_its_clock_thread_and_depth() -> None:
    env = env_of()
    probe, sub = subscribed(env)
    probe.request(2)
    probe.on_next("a")
    error = ValueError("x")
    probe.on_error(error)
    tid = threading.get_ident()
    assert probe.records == [
        Record("on_subscribe", sub, tid, 1, 1),
        Record("on_next", "a", tid, 2, 1),
        Record("on_error", error, tid, 3, 1),
    ]
    assert probe.subscription is sub
    assert probe.values == ["a"]
    assert probe.errors == [error]
    assert probe.kinds() == ["on_subscribe", "on_next", "on_error"]
    assert probe.mark() == 3
    assert probe.signals_after(1) == probe.records[1:]
    assert probe.terminated
    assert not env.flops


def test_on_complete_counts_and_terminates() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_complete()
    assert probe.completions == 1
    assert probe.terminated
    assert probe.records[-1].value is None
    assert not env.flops


def test_hooks_run_inside_their_signals_with_the_signal_value() -> None:
    seen: list[tuple[str, object]] = []
    env = env_of()
    probe = ProbeSubscriber(
        env,
        "p",
        on_subscribe=lambda p, s: seen.append(("subscribe", s)),
        on_next=lambda p, x: seen.append(("next", x)),
        on_terminal=lambda p, x: seen.append(("terminal", x)),
    )
    sub = Sub()
    probe.on_subscribe(sub)
    probe.request(1)
    probe.on_next(7)
    probe.on_complete()
    error = ValueError("e")
    probe.on_error(error)
    assert seen == [("subscribe", sub), ("next", 7), ("terminal", None), ("terminal", error)]


def test_a_check_failure_in_a_hook_is_recorded_and_the_signal_returns() -> None:
    def hook(p: ProbeSubscriber, x: object) -> None:
        raise CheckFailure("rule 3.15: cancel() raised", "3.15")

    env = env_of()
    probe = ProbeSubscriber(env, "p", on_subscribe=hook)
    probe.on_subscribe(Sub())
    assert flops(env) == [("3.15", "rule 3.15: cancel() raised")]
    probe.on_next(1)  # the probe still works: the first on_subscribe was recorded
    assert flops(env)[1] == ("1.1", "rule 1.1: p: element 1 exceeds the demand of 0")


def test_another_exception_in_a_hook_reaches_the_caller() -> None:
    def hook(p: ProbeSubscriber, x: object) -> None:
        if x == 1:
            raise KeyError("bug")

    probe = ProbeSubscriber(env_of(), "p", on_next=hook)
    probe.on_subscribe(Sub())
    with pytest.raises(KeyError):
        probe.on_next(1)
    probe.on_next(2)  # the failed signal ended: its depth is back to 0
    assert probe.records[-1].depth == 1
    assert probe.max_depth == 1


# ------------------------------------------------------------- the rules it flops
def test_on_subscribe_none_is_rule_1_9_and_does_not_subscribe() -> None:
    env = env_of()
    called: list[object] = []
    probe = ProbeSubscriber(env, "p", on_subscribe=lambda p, s: called.append(s))
    probe.on_subscribe(None)  # type: ignore[arg-type]
    assert flops(env) == [("1.9", "rule 1.9: p: on_subscribe(None)")]
    assert probe.subscription is None
    assert called == []
    probe.on_complete()  # after a recorded (None) on_subscribe: not "before on_subscribe"
    assert len(env.flops) == 1


def test_a_second_on_subscribe_is_rule_1_9_and_keeps_the_first() -> None:
    env = env_of()
    probe, first = subscribed(env)
    probe.on_subscribe(Sub())
    assert probe.subscription is first
    assert flops(env) == [("1.9", "rule 1.9: p: on_subscribe called a second time (see also 2.12)")]


def test_a_second_on_subscribe_after_the_end_is_still_rule_1_9() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_complete()
    probe.on_subscribe(Sub())
    assert [rule for rule, _ in flops(env)] == ["1.9"]


def test_a_signal_before_on_subscribe_is_rule_1_9() -> None:
    for signal in ("on_next", "on_complete"):
        env = env_of()
        probe = ProbeSubscriber(env, "p")
        getattr(probe, signal)(*(("x",) if signal == "on_next" else ()))
        assert flops(env)[0] == ("1.9", f"rule 1.9: p: {signal} before on_subscribe")


def test_signals_after_a_terminal_one_are_rule_1_7() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(5)
    probe.on_complete()
    probe.on_next(1)
    probe.on_complete()
    assert probe.completions == 2
    assert flops(env) == [
        ("1.7", "rule 1.7: p: on_next after a terminal signal"),
        ("1.7", "rule 1.7: p: on_complete after a terminal signal"),
    ]
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_error(ValueError())
    probe.on_error(ValueError())
    assert flops(env) == [("1.7", "rule 1.7: p: on_error after a terminal signal")]


def test_an_emitter_going_on_after_its_end_is_aborted_after_1000_signals() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_complete()
    for _ in range(1000):
        probe.on_complete()
    assert not env.aborted
    with pytest.raises(CheckAborted):  # the 1001st is flagged, then aborted at its end
        probe.on_complete()
    assert env.aborted
    assert len(env.flops) == 1001
    with pytest.raises(CheckAborted):  # and every later signal stops at once
        probe.on_complete()
    assert len(env.flops) == 1001


def test_none_elements_and_errors_are_rule_2_13() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(1)
    probe.on_next(None)
    probe.on_error(None)  # type: ignore[arg-type]
    assert flops(env) == [
        ("2.13", "rule 2.13: p: the publisher signalled on_next(None)"),
        ("2.13", "rule 2.13: p: the publisher signalled on_error(None)"),
    ]
    assert probe.values == [None]


def test_the_first_element_beyond_demand_is_rule_1_1_once() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(2)
    for i in range(5):
        probe.on_next(i)
    assert flops(env) == [("1.1", "rule 1.1: p: element 3 exceeds the demand of 2")]
    assert not env.aborted


def test_an_endless_over_delivery_is_aborted_past_1000_beyond_demand() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(1)
    for i in range(1001):
        probe.on_next(i)
    assert not env.aborted
    with pytest.raises(CheckAborted):  # element 1002: 1001 beyond the demand of 1
        probe.on_next("over")
    assert env.aborted
    assert probe.values[-1] == "over"
    assert len(env.flops) == 1


def test_signals_long_after_cancel_flop_the_limit_rule_and_abort() -> None:
    env = env_of()
    probe, _ = subscribed(env, limit_after_cancel=2)
    probe.request(10)
    probe.on_next(0)
    probe.cancel()
    assert probe.cancel_mark == 2
    probe.on_next(1)
    probe.on_next(2)
    assert not env.flops
    assert not env.aborted
    with pytest.raises(CheckAborted):
        probe.on_next(3)
    assert flops(env) == [("3.12", "rule 3.12: p: still signalling 2 signals after cancel()")]
    env = env_of()
    probe, _ = subscribed(env, limit_after_cancel=1, limit_rule="1.8")
    probe.request(5)
    probe.cancel()
    probe.on_next(1)
    with pytest.raises(CheckAborted):
        probe.on_next(2)
    assert flops(env)[0][0] == "1.8"


def test_without_a_limit_or_a_cancel_signals_never_abort() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(2000)
    probe.cancel()
    for i in range(1500):
        probe.on_next(i)
    assert not env.flops
    env = env_of()
    probe, _ = subscribed(env, limit_after_cancel=1)
    probe.request(5)
    for i in range(5):
        probe.on_next(i)
    assert not env.flops


# ----------------------------------------------------------- threads and depth
def test_a_signal_overlapping_one_on_another_thread_is_rule_1_3() -> None:
    env = env_of("timed")
    box: dict[str, int] = {}

    def racing() -> None:
        box["b"] = threading.get_ident()
        probe.on_next("b")

    def hook(p: ProbeSubscriber, x: object) -> None:
        if x == "a":  # thread b signals while on_next("a") runs
            in_thread(racing)

    probe = ProbeSubscriber(env, "p", on_next=hook)
    probe.on_subscribe(Sub())
    probe.request(2)
    probe.on_next("a")
    me = threading.get_ident()
    assert flops(env) == [
        ("1.3", f"rule 1.3: p: on_next on thread {box['b']} overlaps a signal on thread {me}")
    ]


def test_signals_one_after_another_on_two_threads_do_not_overlap() -> None:
    env = env_of("timed")
    probe, _ = subscribed(env)
    probe.request(3)
    probe.on_next(1)
    in_thread(lambda: probe.on_next(2))
    probe.on_next(3)
    assert not env.flops


def test_a_synchronous_publisher_signalling_on_a_foreign_thread_is_rule_1_3() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(2)
    box: dict[str, int] = {}

    def foreign() -> None:
        box["t"] = threading.get_ident()
        probe.on_next(1)

    in_thread(foreign)
    assert flops(env) == [
        (
            "1.3",
            f"rule 1.3: p: on_next on thread {box['t']}, which never called the publisher, "
            "though the implementation was declared synchronous",
        )
    ]
    env = env_of("timed")  # timed mode makes no such claim
    probe, _ = subscribed(env)
    probe.request(1)
    in_thread(lambda: probe.on_next(1))
    assert not env.flops


def test_nested_on_next_on_one_thread_is_depth_not_overlap() -> None:
    env = env_of("timed")

    def hook(p: ProbeSubscriber, x: object) -> None:
        if isinstance(x, int) and x < 3:
            p.on_next(x + 1)

    probe = ProbeSubscriber(env, "p", on_next=hook)
    probe.on_subscribe(Sub())
    probe.request(5)
    probe.on_next("flat")  # a closed frame leaves no depth behind
    probe.on_next(1)
    assert not env.flops
    assert probe.max_depth == 3
    assert [r.depth for r in probe.records] == [1, 1, 1, 2, 3]
    probe.on_next("flat")  # all frames closed: depth 1 again
    assert probe.records[-1].depth == 1
    assert probe.max_depth == 3


def test_sequential_on_next_keeps_depth_one_and_on_subscribe_does_not_count() -> None:
    env = env_of()
    probe = ProbeSubscriber(env, "p", on_subscribe=lambda p, s: p.on_next("in"))
    probe.on_subscribe(Sub())
    assert probe.records[1].depth == 2  # nested in on_subscribe
    assert probe.max_depth == 1  # rule 3.3 counts on_next frames only
    for i in range(3):
        probe.on_next(i)
    assert probe.max_depth == 1


def test_an_aborted_check_stops_a_signal_before_it_is_recorded() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    env.aborted = True
    with pytest.raises(CheckAborted):
        probe.on_next(1)
    assert probe.values == []
    assert probe.mark() == 1


# ---------------------------------------------------------- pauses and the clock
def test_the_probe_yields_in_the_first_signals_then_one_in_64(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(probes, "time", clock)
    env = env_of(signal_pause=0.25, paused_signals=2)
    probe, _ = subscribed(env)
    probe.request(200)
    for i in range(127):
        probe.on_next(i)
    # signals 1 and 2, then 64 and 128 (the on_subscribe is signal 1)
    assert clock.sleeps == [0.25, 0.25, 0.25, 0.25]
    clock.sleeps.clear()
    probe, _ = subscribed(env_of(signal_pause=None))
    assert clock.sleeps == []


def test_the_wait_for_an_owed_element_is_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(probes, "time", clock)
    env = env_of()
    probe, sub = subscribed(env)
    clock.now = 110.0
    probe.request(2)  # owed from 110
    clock.now = 113.0
    probe.on_next(1)  # 3 s; still owes one, from the end of this signal
    assert env.max_gap == 3.0
    clock.now = 120.0
    probe.on_next(2)  # 7 s
    assert env.max_gap == 7.0
    clock.now = 200.0
    probe.on_complete()  # nothing was owed
    assert env.max_gap == 7.0
    assert sub.requests == [2]


def test_nothing_is_owed_after_cancel_or_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    for end in ("cancel", "complete", "error"):
        clock = Clock()
        monkeypatch.setattr(probes, "time", clock)
        env = env_of()
        probe, _ = subscribed(env)
        if end == "complete":
            probe.on_complete()
        elif end == "error":
            probe.on_error(ValueError())
        probe.request(1)
        if end == "cancel":
            probe.cancel()
            probe.request(1)
        clock.now = 150.0
        probe.on_next(1)
        assert env.max_gap == 0.0, end


def test_an_owed_on_subscribe_notes_no_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(probes, "time", clock)
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(1)
    clock.now = 150.0
    probe.on_subscribe(Sub())  # a second one: flagged, but it is no element
    assert env.max_gap == 0.0
    clock.now = 151.0
    probe.on_next(1)  # still owed, since the second on_subscribe ended
    assert env.max_gap == 1.0


# ------------------------------------------------------------ request and cancel
def test_request_counts_valid_demand_first_and_passes_every_n_on() -> None:
    env = env_of()
    probe, sub = subscribed(env)
    probe.request(3)
    probe.request(0)  # invalid: not counted (rule 3.9), still passed on
    probe.request(2**63 - 1)
    assert sub.requests == [3, 0, 2**63 - 1]
    assert probe.requested == 2**63 - 1  # saturated (rule 3.17)
    assert not env.flops


def test_request_and_cancel_before_on_subscribe_are_rule_1_9() -> None:
    probe = ProbeSubscriber(env_of(), "p")
    calls: tuple[Callable[[], None], ...] = (lambda: probe.request(1), probe.cancel)
    for call in calls:
        with pytest.raises(CheckFailure) as caught:
            call()
        assert (caught.value.rule, str(caught.value)) == ("1.9", "rule 1.9: p: no on_subscribe yet")
    assert probe.cancelled is False


def test_a_raising_request_is_rule_3_16() -> None:
    env = env_of()
    probe = ProbeSubscriber(env, "p")
    probe.on_subscribe(Sub(fail=ValueError("no")))
    with pytest.raises(CheckFailure) as caught:
        probe.request(4)
    assert caught.value.rule == "3.16"
    assert str(caught.value) == (
        "rule 3.16: p: request(4) raised ValueError('no'); it must return normally "
        "(rule 3.9: an invalid n is signalled through on_error)"
    )
    assert isinstance(caught.value.__cause__, ValueError)
    assert probe.requested == 4


def test_cancel_marks_where_it_was_called_and_returned() -> None:
    env = env_of()

    class Echo(Sub):
        def cancel(self) -> None:
            super().cancel()
            probe.on_complete()  # a signal inside cancel: after the mark, before the return

    probe, sub = ProbeSubscriber(env, "p"), Echo()
    probe.on_subscribe(sub)
    probe.cancel()
    assert probe.cancelled
    assert (probe.cancel_mark, probe.cancel_returned) == (1, 2)
    probe.on_complete()
    probe.cancel()  # a second cancel moves neither mark
    assert (probe.cancel_mark, probe.cancel_returned) == (1, 2)
    assert sub.cancels == 2


def test_a_raising_cancel_is_rule_3_15_and_still_marks_its_return() -> None:
    env = env_of()
    probe = ProbeSubscriber(env, "p")
    probe.on_subscribe(Sub(fail=RuntimeError("boom")))
    with pytest.raises(CheckFailure) as caught:
        probe.cancel()
    assert caught.value.rule == "3.15"
    assert str(caught.value) == "rule 3.15: p: cancel() raised RuntimeError('boom')"
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert (probe.cancel_mark, probe.cancel_returned) == (1, 1)


def test_request_and_cancel_wake_a_waiting_check() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    calls: tuple[Callable[[], None], ...] = (lambda: probe.request(1), probe.cancel)
    for call in calls:
        env.last_activity = 0.0
        call()
        assert env.last_activity > 0.0


def test_the_end_of_a_check_cancels_what_is_still_open() -> None:
    env = env_of()
    probe, sub = subscribed(env)
    env.cancel_open()
    assert sub.cancels == 1
    assert probe.cancelled
    env.cancel_open()
    assert sub.cancels == 1
    for end in ("cancel", "complete", "none"):
        env = env_of()
        if end == "none":
            ProbeSubscriber(env, "p")
            env.cancel_open()
            continue
        probe, sub = subscribed(env)
        if end == "cancel":
            probe.cancel()
        else:
            probe.on_complete()
        env.cancel_open()
        assert sub.cancels == (1 if end == "cancel" else 0), end


# -------------------------------------------------------------------- the waits
def test_expect_subscribed_and_its_failure() -> None:
    env = env_of()
    probe = ProbeSubscriber(env, "p")
    with pytest.raises(CheckFailure) as caught:
        probe.expect_subscribed()
    assert caught.value.rule == "1.9"
    assert str(caught.value).startswith("rule 1.9: p: no on_subscribe (")
    probe.on_subscribe(Sub())
    assert probe.expect_subscribed() is probe


def test_expect_next_takes_elements_in_order() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(3)
    for i in (10, 11, 12):
        probe.on_next(i)
    assert probe.expect_next() == 10
    assert probe.consumed == 1
    assert probe.expect_elements(2) == [11, 12]
    assert probe.consumed == 3
    with pytest.raises(CheckFailure) as caught:
        probe.expect_next()
    assert caught.value.rule == "3.8"
    assert str(caught.value).startswith("rule 3.8: p: expected element 4, 3 arrived (demand 3) (")
    for rule in ("3.8", "3.17"):  # expect_elements: the same failure, its rule
        with pytest.raises(CheckFailure) as caught:
            probe.expect_elements(1, *([rule] if rule != "3.8" else []))
        assert caught.value.rule == rule
        assert str(caught.value).startswith(f"rule {rule}: p: expected element 4, 3 arrived")
    with pytest.raises(CheckFailure) as caught:
        probe.expect_next("3.17")
    assert caught.value.rule == "3.17"
    assert str(caught.value).startswith("rule 3.17: p: expected element 4, 3 arrived (demand 3) (")


def test_expect_next_at_the_end_of_the_stream_is_rule_1_5() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(1)
    probe.on_next(1)
    probe.on_complete()
    probe.expect_next()
    with pytest.raises(CheckFailure) as caught:
        probe.expect_next()
    assert (caught.value.rule, str(caught.value)) == (
        "1.5",
        "rule 1.5: p: expected element 2, got on_complete after 1 elements",
    )
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_error(KeyError("k"))
    with pytest.raises(CheckFailure) as caught:
        probe.expect_next()
    assert (
        str(caught.value) == "rule 1.5: p: expected element 1, got KeyError('k') after 0 elements"
    )


def test_expect_complete() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(1)
    probe.on_next(1)
    with pytest.raises(CheckFailure) as caught:
        probe.expect_complete()
    assert caught.value.rule == "1.5"
    assert str(caught.value).startswith("rule 1.5: p: no on_complete after 1 elements (")
    probe.on_complete()
    probe.expect_complete()
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_error(KeyError("k"))
    with pytest.raises(CheckFailure) as caught:
        probe.expect_complete()
    assert str(caught.value) == "rule 1.5: p: expected on_complete, got on_error(KeyError('k'))"


def test_expect_count() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.request(2)
    probe.on_next(1)
    probe.on_next(2)
    probe.expect_count(2)
    with pytest.raises(CheckFailure) as caught:
        probe.expect_count(3, "3.17")
    assert caught.value.rule == "3.17"
    assert str(caught.value).startswith("rule 3.17: p: 2 of 3 elements arrived (")
    for end, word in (("on_complete", "on_complete"), ("on_error", "on_error")):
        env = env_of()
        probe, _ = subscribed(env)
        probe.request(2)
        probe.on_next(1)
        getattr(probe, end)(*((ValueError(),) if end == "on_error" else ()))
        with pytest.raises(CheckFailure) as caught:
            probe.expect_count(2)
        assert (caught.value.rule, str(caught.value)) == (
            "3.8",
            f"rule 3.8: p: 1 of 2 elements arrived, then {word}",
        )


def test_expect_error() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    with pytest.raises(CheckFailure) as caught:
        probe.expect_error(ValueError, "3.9")
    assert caught.value.rule == "3.9"
    assert str(caught.value).startswith("rule 3.9: p: no on_error(ValueError) (")
    with pytest.raises(CheckFailure) as caught:
        probe.expect_error()
    assert str(caught.value).startswith("rule 1.4: p: no on_error(BaseException) (")
    error = ValueError("v")
    probe.on_error(error)
    assert probe.expect_error(ValueError) is error
    assert probe.expect_error() is error
    with pytest.raises(CheckFailure) as caught:
        probe.expect_error(KeyError, "2.13")
    assert (caught.value.rule, str(caught.value)) == (
        "2.13",
        "rule 2.13: p: expected on_error(KeyError), got ValueError('v')",
    )
    env = env_of()
    probe, _ = subscribed(env)
    probe.on_complete()
    with pytest.raises(CheckFailure) as caught:
        probe.expect_error()
    assert (caught.value.rule, str(caught.value)) == (
        "1.4",
        "rule 1.4: p: expected on_error, got on_complete",
    )


def test_expect_element_or_end() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    with pytest.raises(CheckFailure) as caught:
        probe.expect_element_or_end()
    assert caught.value.rule == "3.8"
    assert str(caught.value).startswith("rule 3.8: p: neither an element nor a terminal signal (")
    probe.request(1)
    probe.on_next(1)
    probe.expect_element_or_end()
    assert probe.consumed == 1
    probe.on_complete()
    probe.expect_element_or_end()
    assert probe.consumed == 1


def test_expect_none() -> None:
    env = env_of()
    probe, _ = subscribed(env)
    probe.expect_none()
    mark = probe.mark()
    probe.request(9)
    for i in range(6):
        probe.on_next(i)
    probe.expect_none()  # from this call on: nothing
    with pytest.raises(CheckFailure) as caught:
        probe.expect_none("no element", "3.6", since=mark)
    assert (caught.value.rule, str(caught.value)) == (
        "3.6",
        "rule 3.6: p: expected no element, got on_next, on_next, on_next, on_next, on_next",
    )
    with pytest.raises(CheckFailure) as caught:
        probe.expect_none(since=mark + 5)
    assert (caught.value.rule, str(caught.value)) == (
        None,
        "p: expected no further signal, got on_next",
    )


# -------------------------------------------------------------- whitebox probe
def test_the_whitebox_probe_records_what_the_subscriber_registers() -> None:
    env = env_of()
    probe = WhiteboxProbe(env)
    assert (probe.puppet, probe.elements, probe.errors, probe.completions) == (None, [], [], 0)
    first = WhiteboxPuppet(lambda n: None, lambda: None)
    env.last_activity = 0.0
    probe.register_on_subscribe(first)
    assert env.last_activity > 0.0
    probe.register_on_subscribe(WhiteboxPuppet(lambda n: None, lambda: None))
    assert probe.expect_puppet() is first
    probe.register_on_next("x")
    probe.expect_next("x")
    error = ValueError("e")
    probe.register_on_error(error)
    probe.expect_error(error, "2.1")
    probe.register_on_complete()
    probe.expect_complete("2.1")  # one is enough
    probe.register_on_complete()
    assert probe.completions == 2
    assert (probe.elements, probe.errors) == (["x"], [error])


def test_the_whitebox_probe_waits_fail_on_their_rules() -> None:
    probe = WhiteboxProbe(env_of())
    failures: dict[Callable[[], object], tuple[str, str]] = {
        probe.expect_puppet: (
            "2.1",
            "rule 2.1: the subscriber did not call probe.register_on_subscribe(puppet)",
        ),
        lambda: probe.expect_next("x"): (
            "2.1",
            "rule 2.1: the subscriber did not register element 'x'",
        ),
        lambda: probe.expect_complete("2.9"): (
            "2.9",
            "rule 2.9: the subscriber did not register on_complete",
        ),
        lambda: probe.expect_error(KeyError("k"), "2.10"): (
            "2.10",
            "rule 2.10: the subscriber did not register on_error(KeyError('k'))",
        ),
    }
    for call, (rule, message) in failures.items():
        with pytest.raises(CheckFailure) as caught:
            call()
        assert caught.value.rule == rule
        assert str(caught.value).startswith(message + " (")
    probe.register_on_error(KeyError("k"))  # equal, not the same error
    with pytest.raises(CheckFailure):
        probe.expect_error(KeyError("k"), "2.10")


def test_the_puppet_holds_its_two_callbacks() -> None:
    calls: list[object] = []
    puppet = WhiteboxPuppet(calls.append, lambda: calls.append("cancel"))
    puppet.trigger_request(3)
    puppet.signal_cancel()
    assert calls == [3, "cancel"]


# ------------------------------------------------------------- blackbox proxy
def test_the_blackbox_proxy_forwards_records_and_reraises() -> None:
    seen: list[tuple[str, tuple[object, ...]]] = []

    class Target:
        def on_subscribe(self, s: object) -> None:
            seen.append(("on_subscribe", (s,)))

        def on_next(self, x: object) -> None:
            seen.append(("on_next", (x,)))
            if x == "bad":
                raise ValueError("bad")

        def on_error(self, e: BaseException) -> None:
            seen.append(("on_error", (e,)))

        def on_complete(self) -> None:
            seen.append(("on_complete", ()))

    env = env_of()
    proxy = BlackboxProxy(env, Target())
    sub, error = Sub(), KeyError("k")
    proxy.on_subscribe(sub)
    proxy.on_next(1)
    env.last_activity = 0.0
    with pytest.raises(ValueError, match="bad"):
        proxy.on_next("bad")
    assert env.last_activity > 0.0  # notified even when it raised
    proxy.on_error(error)
    proxy.on_complete()
    assert seen == [
        ("on_subscribe", (sub,)),
        ("on_next", (1,)),
        ("on_next", ("bad",)),
        ("on_error", (error,)),
        ("on_complete", ()),
    ]
    assert proxy.received == ["on_subscribe", "on_next", "on_next", "on_error", "on_complete"]
    assert [(m, str(e)) for m, e in proxy.raised] == [("on_next", "bad")]


# ------------------------------------------------------------- subscribe_probe
def test_subscribe_probe_and_a_raising_subscribe() -> None:
    env = env_of()
    probe = ProbeSubscriber(env, "p")

    class Good:
        def subscribe(self, s: Any) -> None:
            s.on_subscribe(Sub())

    class Bad:
        def subscribe(self, s: Any) -> None:
            raise TypeError("nope")

    assert subscribe_probe(env, Good(), probe) is probe
    assert probe.subscribed
    with pytest.raises(CheckFailure) as caught:
        subscribe_probe(env, Bad(), ProbeSubscriber(env))
    assert caught.value.rule == "1.9"
    assert str(caught.value) == (
        "rule 1.9: subscribe() raised TypeError('nope') for a non-null subscriber; rejection "
        "must be signalled with on_subscribe then on_error"
    )
    assert isinstance(caught.value.__cause__, TypeError)
