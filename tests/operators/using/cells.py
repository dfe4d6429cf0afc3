"""The pipeline machine's cell of ``using`` (operators/_using.py): the flow made from an
open resource is the flow itself; the resource is released once per subscription and
never before the flow was made (checked at the call)."""

from __future__ import annotations

from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import INNER_PROBLEMS, Builder, Expect, Model, OpSpec

from reactive_streams.flow import Flow


class _Resource:
    def __init__(self) -> None:
        self.released = 0


def _release(resource: _Resource) -> None:
    resource.released += 1
    if resource.released > 1:
        INNER_PROBLEMS.append(f"using: released {resource.released} times")


def using(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    def make(resource: _Resource) -> Flow[Any]:
        if resource.released:
            INNER_PROBLEMS.append("using: the resource was released before its flow was made")
        return flow

    return Flow.using(_Resource, make, _release), expect


CELLS = (Cell("using", using),)
