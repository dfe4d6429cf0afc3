"""A fixture for both test folders (their conftest.py use it): a test that leaves the
library's tracer switched on fails.

The tracer is one module-global (``reactive_streams.tracing``); a test that installs one
and does not restore it changes what every later test in the same process sees
(subscription ids, reprs), so the order tests run in would decide their verdicts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reactive_streams._core import tracer as core_tracer


@pytest.fixture(autouse=True)
def tracer_restored() -> Iterator[None]:
    before = core_tracer._tracer
    yield
    after = core_tracer._tracer
    if after is not before:
        core_tracer._tracer = before
        pytest.fail(f"the test left the tracer {after!r} installed (it was {before!r})")
