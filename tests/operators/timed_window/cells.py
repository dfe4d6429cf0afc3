"""The timed_window family's pipeline-machine cells (``operators/_timed_window.py``):
how the machine (``stateful/test_pipeline_machine.py``) builds each operator and models
its output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import (
    COMPLETE,
    INNER_PROBLEMS,
    Builder,
    Expect,
    Model,
    OpSpec,
    SubscribeRaises,
    key_of,
    lossy,
)

from reactive_streams import ManualExecutor
from reactive_streams.api import Publisher
from reactive_streams.flow import Flow


def _timed(
    op: OpSpec, flow: Flow[Any], expect: Expect, machine: Builder
) -> tuple[Flow[Any], Expect]:
    """On a "timer" ManualExecutor. timeout(dt) (but for variant c: after a delay(0.5), and held
    open after its elements, so its timer ends it): the same list unless a
    TimeoutError cuts in (the clock moves while no element comes);
    debounce(dt) (variant b: after a burst of two, ``_BURST``): a subsequence, its last
    value delivered at completion."""
    clock = machine.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    errors = expect.ends - {COMPLETE}
    if op.name == "timeout":
        if op.variant != "c":  # elements reach timeout after its start: the clock tells
            flow = flow.delay(0.5, scheduler=clock)
            expect = replace(expect, anytime=expect.anytime | errors)
        if op.variant != "c":  # held open after its elements: only the timer ends it
            flow = flow.concat_with(Flow.timer(30.0, scheduler=clock).ignore_elements())
        if op.inner != "plain":  # a fallback whose subscribe raises: its error (1.9)
            machine.coverage_extra.add("fallback-subscribe-raises")
            raising = _timeout(flow, 1.0 + op.k % 2, clock, SubscribeRaises())
            return raising, expect.cut_in("InnerFailure")
        return _timeout(flow, 1.0 + op.k % 2, clock), expect.cut_in("TimeoutError")
    # variant b: a burst first (upstream's lists are often short or empty, and a debounce
    # that keeps the first element of a burst instead of the last shows only in a burst)
    if op.variant == "b" and expect.order != "none":
        flow = flow.start_with(*_BURST)
        most = None if expect.most is None else expect.most + len(_BURST)
        expect = replace(expect, values=(*_BURST, *expect.values), most=most)
    # the pending value goes out at completion: the last of a list is always delivered
    out = replace(lossy(expect), keeps_last=expect.order == "list")
    return _debounce(flow, dt, clock), out


#: debounce's burst (variant b): values no source or operator upstream makes
_BURST = (1000, 1001)


def _debounce(flow: Flow[Any], dt: float, clock: ManualExecutor) -> Flow[Any]:
    """debounce(dt), each value it emits checked against the clock: no newer element
    arrived within dt of it (it ended its burst), or none at all (the completion's)."""
    arrivals: list[tuple[float, str]] = []

    def arrived(x: Any) -> None:
        arrivals.append((clock.now(), key_of(x)))

    def emitted(x: Any) -> None:
        key = key_of(x)
        for i in range(len(arrivals) - 1, -1, -1):
            if arrivals[i][1] == key:
                at = arrivals[i][0]
                after = arrivals[i + 1 :]
                if after and after[0][0] < at + dt - 1e-9:
                    INNER_PROBLEMS.append(
                        f"debounce({dt}) emitted {x!r} (arrived at t={at}), "
                        f"a newer element came at t={after[0][0]}"
                    )
                return

    return flow.do_on_next(arrived).debounce(dt, scheduler=clock).do_on_next(emitted)


def _timeout(
    flow: Flow[Any], dt: float, clock: ManualExecutor, fallback: Publisher[Any] | None = None
) -> Flow[Any]:
    """timeout(dt), its TimeoutError checked against the clock: it may fire only dt
    after the last element that reached it (or after the start)."""
    stamps = [0.0]

    def arrived(x: Any) -> None:
        stamps.append(clock.now())

    def fired(error: BaseException) -> None:
        quiet = clock.now() - stamps[-1]
        if isinstance(error, TimeoutError) and quiet < dt:
            INNER_PROBLEMS.append(
                f"timeout({dt}) fired at t={clock.now()}, {quiet} s after the last element"
            )

    return flow.do_on_next(arrived).timeout(dt, fallback, scheduler=clock).do_on_error(fired)


def _clocked(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    """sample(dt) (variant c: throttle_latest): a subsequence, the last value delivered
    at completion. throttle_first(dt): a subsequence. buffer_timeout(n, dt) and
    window_timeout(n, dt) flattened: the same list, no batch over n (checked at each
    batch); an error cuts in (the batch being filled is dropped)."""
    clock = m.new_executor("timer")
    assert isinstance(clock, ManualExecutor), "timed operators run on a virtual clock"
    dt = 0.5 * (op.k + 1)
    name = op.name
    if name == "sample":
        # variant c: its alias throttle_latest(dt)
        sampler = flow.throttle_latest if op.variant == "c" else flow.sample
        return sampler(dt, scheduler=clock), replace(
            lossy(expect), keeps_last=expect.order == "list"
        )
    if name == "throttle_first":
        return flow.throttle_first(dt, scheduler=clock), lossy(expect)
    size = op.other + 1

    def bounded(batch: list[Any]) -> list[Any]:
        if not 0 < len(batch) <= size:
            INNER_PROBLEMS.append(f"{name}({size}): a batch of {len(batch)}")
        return batch

    # an error comes at once: the batch being filled is dropped
    out = replace(expect, anytime=expect.anytime | (expect.ends - {COMPLETE}))
    if name == "buffer_timeout":
        batches = flow.buffer_timeout(size, dt, scheduler=clock)
        return batches.map(bounded).concat_map(Flow.from_iterable), out
    windows = flow.window_timeout(size, dt, scheduler=clock)
    out_flow = windows.concat_map(lambda w: w.collect().map(bounded))
    return out_flow.concat_map(Flow.from_iterable), out


CELLS: tuple[Cell, ...] = (
    Cell("timeout", _timed, timed=True),
    Cell("debounce", _timed, timed=True, keeps_last=True),
    Cell("sample", _clocked, timed=True, keeps_last=True),
    Cell("throttle_first", _clocked, timed=True),
    Cell("buffer_timeout", _clocked, timed=True),
    Cell("window_timeout", _clocked, timed=True),
)
