"""The settle primitive (timed mode): "nothing more will come" is concluded only after
``quiet_windows`` consecutive quiet windows, each with every thread of the process having
had the chance to run, and a window scales with the slowest signal the subject owed.

Starvation is forced deterministically: the run-queue sampler is replaced by one that
reports a thread waiting for a CPU, and the "starved emitter" is released by the sampler
itself once starvation ends."""

from __future__ import annotations

import threading

import pytest

from reactive_streams.tck import _env
from reactive_streams.tck._env import Config, Env


def _timed(**overrides: float) -> Env:
    return Env(Config(**{"quiet": 0.04, "timeout": 5.0, **overrides}), mode="timed")  # type: ignore[arg-type]


def test_a_window_in_which_a_thread_starved_does_not_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = _timed()
    gate, emitted = threading.Event(), threading.Event()
    calls = {"n": 0}

    def sampler() -> dict[int, int]:
        calls["n"] += 1
        if calls["n"] <= 4:  # two windows: a thread spends each one waiting for a CPU
            return {1: calls["n"] * 10**9}
        gate.set()  # the starved emitter finally runs: one more signal
        assert emitted.wait(5.0)
        return {1: 4 * 10**9}

    def emitter() -> None:
        if gate.wait(5.0):
            env.notify()  # a signal after the cancel, from the thread that was starved
            emitted.set()

    thread = threading.Thread(target=emitter, daemon=True)
    thread.start()
    monkeypatch.setattr(_env, "_run_queue_waits", sampler)
    assert env.settle()
    assert emitted.is_set(), "settled while a thread that had not run could still signal"
    thread.join(5.0)


def test_settled_takes_two_consecutive_quiet_windows() -> None:
    env = _timed()
    assert env.settle()
    assert env.windows == 2


def test_the_window_scales_with_the_slowest_owed_signal() -> None:
    env = _timed()
    assert env.window() == pytest.approx(0.02)
    child = env.child()
    child.note_gap(0.3)  # the subject once took 0.3 s to deliver an element it owed
    assert env.window() == pytest.approx(0.6)
    assert child.window() == pytest.approx(0.6)
    child.note_gap(100.0)
    assert env.window() == pytest.approx(5.0 / 4)  # capped at a quarter of the deadline


def test_the_sampler_sees_a_starved_thread_as_waiting() -> None:
    waits = _env._run_queue_waits()
    if waits is None:
        pytest.skip("no /proc/self/task schedstat here")
    assert threading.get_native_id() not in waits  # the caller is never counted
    assert _env._starved(waits, {t: w + 10**9 for t, w in waits.items()}, 1.0) == len(waits)
    assert _env._starved(waits, waits, 1.0) == 0
