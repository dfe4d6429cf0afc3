"""The pipeline machine's cell of ``log`` (operators/_log.py): everything passes as it
is, logged to a logger that keeps nothing."""

from __future__ import annotations

import logging
from typing import Any

from stateful.families import Cell
from stateful.pipeline_model import Builder, Expect, Model, OpSpec

from reactive_streams.flow import Flow

QUIET = logging.getLogger("reactive_streams.tests.quiet")
QUIET.propagate = False
QUIET.addHandler(logging.NullHandler())


def log(op: OpSpec, flow: Flow[Any], expect: Expect, m: Builder) -> Model:
    return flow.log(f"cell{op.k}", logger=QUIET, level=logging.DEBUG), expect


CELLS = (Cell("log", log),)
