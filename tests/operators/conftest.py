"""Helpers for the operator tests: run each test with fusion on and off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reactive_streams.flow import set_fusion


@pytest.fixture(params=[True, False], ids=["fused", "unfused"])
def fusion(request: pytest.FixtureRequest) -> Iterator[bool]:
    previous = set_fusion(bool(request.param))
    yield bool(request.param)
    set_fusion(previous)
