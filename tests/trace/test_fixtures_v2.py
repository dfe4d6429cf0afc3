"""The format version 2 fixtures (tests/traces/v2): the valid ones are accepted, the
others rejected at the event and for the rule their header names. TLC judges them too
once spec/TraceReactiveStreams.tla reads end_request/end_cancel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reactive_streams.trace.format import read_trace
from reactive_streams.trace.validate import validate_files

from ._fixtures_v2 import fixtures

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "traces" / "v2"
REJECTED = sorted(HERE.glob("*.jsonl"))
VALID = sorted((HERE / "valid").glob("*.jsonl"))
SPEC_READS_V2 = "end_request" in (ROOT / "spec" / "TraceReactiveStreams.tla").read_text()
HAS_TLC = shutil.which("java") is not None and (ROOT / ".tools" / "tla2tools.jar").is_file()
JUDGES = [
    False,
    pytest.param(
        True,
        marks=pytest.mark.skipif(
            not (SPEC_READS_V2 and HAS_TLC), reason="TLC side of format version 2 not available"
        ),
    ),
]


def test_the_files_are_what_the_builder_writes() -> None:
    written = {str(p.relative_to(HERE)): p.read_text(encoding="utf-8") for p in REJECTED + VALID}
    assert written == fixtures()


def test_the_fixtures_cover_the_new_checks() -> None:
    rules = set()
    for path in REJECTED:
        expect = read_trace(path).header.expect
        assert expect is not None, path.name
        rules.add(expect["rule"])
    assert rules >= {"1.3", "2.7", "2.13", "3.3", "3.9", "3.15", "3.16"}
    assert len(VALID) >= 3


@pytest.mark.parametrize("use_tlc", JUDGES)
def test_rejected_at_the_named_event(use_tlc: bool) -> None:
    verdicts, _ = validate_files(REJECTED, use_tlc=use_tlc)
    for path, verdict in zip(REJECTED, verdicts, strict=True):
        expect = read_trace(path).header.expect
        assert expect is not None
        assert not verdict.ok, path.name
        assert (verdict.index, verdict.rule) == (expect["event"], expect["rule"]), verdict.line()


@pytest.mark.parametrize("use_tlc", JUDGES)
def test_valid_fixtures_are_accepted(use_tlc: bool) -> None:
    verdicts, _ = validate_files(VALID, use_tlc=use_tlc)
    assert all(v.ok for v in verdicts), [v.line() for v in verdicts if not v.ok]
