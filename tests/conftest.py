"""Shared fixtures: executors that are always closed, tracing that is always switched off."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from stateful.tracer_guard import tracer_restored  # noqa: F401  (autouse: no test leaves a tracer on)

from reactive_streams.executors import ManualExecutor, ThreadPoolExecutor
from reactive_streams.tracing import Tracer, tracing

# Every JVM the suite starts (TLC, Spark, javac) compiles with C1 only: the runs are short
# and C2's compile work never pays back (TLC on the test models: 40 % less CPU). The JIT
# tier does not change what a program computes, so every verdict is the same.
_C1_ONLY = "-XX:TieredStopAtLevel=1"
if _C1_ONLY not in os.environ.get("JAVA_TOOL_OPTIONS", ""):
    os.environ["JAVA_TOOL_OPTIONS"] = (
        f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {_C1_ONLY}".strip()
    )


@pytest.fixture
def manual() -> ManualExecutor:
    return ManualExecutor()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(4, name="test-pool")
    yield executor
    executor.close()


@pytest.fixture
def tracer() -> Iterator[Tracer]:
    with tracing() as active:
        yield active
