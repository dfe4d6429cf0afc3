"""TLC alone (no Python replay in the verdict) rejects every mutated fixture at the
event its header names (or, for work still due at the end of a quiescent trace, at its
end), and accepts every valid one, whether or not it is told where the replay objected
(the spec's ``Hint``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reactive_streams.trace.format import Trace, read_trace
from reactive_streams.trace.validate import find_jar, find_spec_dir, prepare, prepass, run_tlc

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "traces"
REJECTED = sorted([*TRACES.glob("*.jsonl"), *(TRACES / "v2").glob("*.jsonl")])
VALID = sorted([*(TRACES / "valid").glob("*.jsonl"), *(TRACES / "v2" / "valid").glob("*.jsonl")])
JAR = find_jar()
pytestmark = [
    pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed"),
    pytest.mark.skipif(JAR is None or not JAR.is_file(), reason="no TLC jar"),
    pytest.mark.timeout(300),
]


def _tlc(traces: list[Trace], hinted: bool) -> list[tuple[str, int]]:
    """TLC's (status, event index) per trace; index 0 for the end of the trace."""
    spec_dir = find_spec_dir()
    assert spec_dir is not None
    assert JAR is not None
    out: dict[int, tuple[str, int]] = {}
    for sync in (False, True):
        idx = [k for k, t in enumerate(traces) if (t.header.mode == "sync") == sync]
        prepared = [prepare(traces[k]) for k in idx]
        objections: list[int | None] = [None] * len(idx)
        if hinted:
            found = [prepass(traces[k]) for k in idx]
            objections = [None if v is None or v.at_end else v.index for v in found]
        results = run_tlc(prepared, sync, spec_dir, JAR, objections=objections)
        for k, p, r in zip(idx, prepared, results, strict=True):
            at = p.events[r.step - 1].index if r.status in ("stuck", "violated") else 0
            out[k] = (r.status, at)
    return [out[k] for k in range(len(traces))]


@pytest.mark.parametrize("hinted", [True, False], ids=["hint", "no-hint"])
def test_tlc_rejects_each_mutated_fixture_at_its_event(hinted: bool) -> None:
    traces = [read_trace(p) for p in REJECTED]
    for path, trace, (status, at) in zip(REJECTED, traces, _tlc(traces, hinted), strict=True):
        assert trace.header.expect is not None
        expected = trace.header.expect["event"]
        assert status != "accepted", path.name
        if status == "unfinished":  # work still due at the end; the replay names the event
            replay = prepass(trace)
            assert replay is not None
            assert replay.at_end, path.name
            assert replay.index == expected, path.name
        else:
            assert at == expected, (path.name, status, at)


def test_tlc_accepts_the_valid_fixtures() -> None:
    traces = [read_trace(p) for p in VALID]
    assert [status for status, _ in _tlc(traces, hinted=True)] == ["accepted"] * len(VALID)
