"""The settle primitive (timed mode): "nothing more will come" is concluded only after
``quiet_windows`` consecutive quiet windows in which every thread that wanted the CPU got
enough of it to have signalled several times at the subject's cost (or stayed blocked),
a window scales with the slowest signal the subject owed, and a subject thread that keeps
running with nothing signalled is a verdict.

Starvation is forced deterministically: the thread sampler is replaced by one that
reports a runnable thread without CPU time, and the "starved emitter" is released by the
sampler itself once starvation ends (``tests/tck/test_starved_emitter.py`` starves a real
emitter)."""

from __future__ import annotations

import threading

import pytest

from reactive_streams.tck import _cpu
from reactive_streams.tck._env import Config, Env


def _timed(**overrides: float) -> Env:
    return Env(Config(**{"quiet": 0.04, "timeout": 5.0, **overrides}), mode="timed")  # type: ignore[arg-type]


def test_a_window_in_which_a_thread_starved_does_not_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = _timed()
    gate, emitted = threading.Event(), threading.Event()
    calls = {"n": 0}

    def sampler(exclude: int) -> dict[int, _cpu.Sample]:
        calls["n"] += 1
        if calls["n"] <= 4:  # two windows: a thread is runnable and gets no CPU time
            return {1: _cpu.Sample("R", 10, 0)}
        gate.set()  # the starved emitter finally runs: one more signal
        assert emitted.wait(5.0)
        return {1: _cpu.Sample("S", 10**9, 0)}

    def emitter() -> None:
        if gate.wait(5.0):
            env.notify()  # a signal after the cancel, from the thread that was starved
            emitted.set()

    thread = threading.Thread(target=emitter, daemon=True)
    thread.start()
    monkeypatch.setattr(_cpu, "sample", sampler)
    assert env.settle()
    assert emitted.is_set(), "settled while a thread that had not run could still signal"
    assert env.starved_windows >= 2
    thread.join(5.0)


def test_starvation_until_the_deadline_fails_citing_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No fallback to wall time: a thread starved throughout leaves no verdict but failure."""
    env = _timed(check_timeout=0.5)
    monkeypatch.setattr(_cpu, "sample", lambda exclude: {1: _cpu.Sample("R", 0, 0)})
    with pytest.raises(AssertionError, match=r"rule 3\.12: .*starved"):
        env.settle("3.12")


def test_a_blocked_thread_and_a_thread_that_had_the_cpu_both_count() -> None:
    before = {1: _cpu.Sample("S", 0, 0), 2: _cpu.Sample("R", 0, 0)}
    after = {1: _cpu.Sample("S", 0, 0), 2: _cpu.Sample("R", 10**7, 0)}
    judged = _cpu.judge(before, after, enough_ns=10**6, window_s=0.05)
    assert judged.starved == ()
    assert judged.running == {2: 10**7}
    starved = _cpu.judge(before, {2: _cpu.Sample("R", 10**5, 0)}, enough_ns=10**6, window_s=0.05)
    assert starved.starved == (2,)


def test_a_subject_thread_running_without_signalling_is_a_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thread that signalled, then keeps the CPU busy through quiet windows: it had
    every chance to signal and never became idle (1.8), decided after ``timeout``."""
    env = _timed(timeout=0.3)
    seen: list[int] = []

    def signal() -> None:
        env.note_signal()
        seen.append(threading.get_native_id())

    thread = threading.Thread(target=signal)
    thread.start()
    thread.join()
    cpu = {"ns": 0}

    def sampler(exclude: int) -> dict[int, _cpu.Sample]:
        cpu["ns"] += 10**8
        return {seen[0]: _cpu.Sample("R", cpu["ns"], 0)}

    monkeypatch.setattr(_cpu, "sample", sampler)
    with pytest.raises(AssertionError, match=r"rule 1\.8: .*kept running.*never became idle"):
        env.settle()


def test_settled_takes_two_consecutive_quiet_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Exactly two when no thread of the process wanted the CPU (a sampler that says so:
    the real one sees the other tests' threads, and how many windows they cost depends on
    the machine's load)."""
    env = _timed()
    monkeypatch.setattr(_cpu, "sample", lambda exclude: {1: _cpu.Sample("S", 0, 0)})
    assert env.settle()
    assert (env.windows, env.starved_windows) == (2, 0)


def test_settle_on_the_real_sampler_counts_only_windows_that_had_the_cpu() -> None:
    """Under load a window may not count; the verdict is the same, only later."""
    env = _timed()
    assert env.settle()
    assert env.windows - env.starved_windows >= 2


def test_the_window_scales_with_the_slowest_owed_signal() -> None:
    env = _timed()
    assert env.window() == pytest.approx(0.02)
    child = env.child()
    child.note_gap(0.3)  # the subject once took 0.3 s to deliver an element it owed
    assert env.window() == pytest.approx(0.6)
    assert child.window() == pytest.approx(0.6)
    child.note_gap(100.0)
    assert env.window() == pytest.approx(5.0 / 4)  # capped at a quarter of the deadline


def test_the_sampler_reads_every_thread_but_the_caller() -> None:
    samples = _cpu.sample(threading.get_native_id())
    if samples is None:
        pytest.skip("no /proc/self/task here")
    assert threading.get_native_id() not in samples
    assert all(s.state and s.cpu_ns >= 0 for s in samples.values())


def test_the_subject_cost_per_signal_is_its_cpu_time() -> None:
    env = _timed()
    assert env.cpu_per_signal() is None
    assert env.enough_cpu_ns() == 8 * _cpu.MIN_CPU_NS

    def signals() -> None:
        for _ in range(3):
            env.note_signal()
            sum(range(200_000))  # the subject's work per signal

    thread = threading.Thread(target=signals)
    thread.start()
    thread.join()
    cost = env.cpu_per_signal()
    assert cost is not None
    assert cost > 0
    assert env.enough_cpu_ns() == max(_cpu.MIN_CPU_NS, _cpu.ENOUGH_SIGNALS * cost)


def test_a_thread_shared_with_another_running_check_is_not_blamed_for_being_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shared pool's worker busy with another check's subject is not this subject's."""
    env, other = _timed(timeout=0.3), _timed()
    seen: list[int] = []

    def signal() -> None:
        env.note_signal()
        other.note_signal()
        seen.append(threading.get_native_id())

    thread = threading.Thread(target=signal)
    thread.start()
    thread.join()
    assert env.subject_threads() == set()
    cpu = {"ns": 0}

    def sampler(exclude: int) -> dict[int, _cpu.Sample]:
        cpu["ns"] += 10**8
        return {seen[0]: _cpu.Sample("R", cpu["ns"], 0)}

    monkeypatch.setattr(_cpu, "sample", sampler)
    assert env.settle()
    other.close()
    assert env.subject_threads() == {seen[0]}  # the other check ended: the thread is ours
