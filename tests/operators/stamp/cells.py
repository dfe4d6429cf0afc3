"""The pipeline machine's cells of ``timestamp`` and ``time_interval``
(operators/_stamp.py), each on the machine's virtual clock ("timer"), the time checked
(never before the previous one, an interval never negative) and stripped, so the value
oracle sees the elements themselves."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import INNER_PROBLEMS, Builder, Expect, Model, OpSpec

from reactive_streams.flow import Flow


def _checked(name: str) -> Any:
    last = [float("-inf")]

    def check(pair: tuple[float, Any]) -> Any:
        time, item = pair
        if name == "timestamp" and time < last[0]:
            INNER_PROBLEMS.append(f"timestamp: {time} after {last[0]}")
        if name == "time_interval" and time < 0:
            INNER_PROBLEMS.append(f"time_interval: a negative interval {time}")
        last[0] = time
        return item

    return check


def timestamp(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    clock = m.new_executor("timer")
    return flow.timestamp(scheduler=clock).map(_checked("timestamp")), expect


def time_interval(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    clock = m.new_executor("timer")
    return flow.time_interval(scheduler=clock).map(_checked("time_interval")), expect


CELLS = (Cell("timestamp", timestamp, timed=True), Cell("time_interval", time_interval, timed=True))
