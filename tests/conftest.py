"""Shared fixtures: executors that are always closed, tracing that is always switched off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reactive_streams.executors import ManualExecutor, ThreadPoolExecutor
from reactive_streams.tracing import Tracer, tracing


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
