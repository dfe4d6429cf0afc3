"""Traces from another language: Java publishers recorded by the Java emitter
(examples/java/TraceSubscriber.java). The committed recordings in tests/traces/java are
validated on every run; where a JDK is present the publishers run again and their fresh
traces are judged the same way: the JDK's SubmissionPublisher and IterablePublisher
(in the style of reactive-streams-jvm's AsyncIterablePublisher) valid, the deliberately
broken GreedyPublisher rejected for rule 1.1."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from reactive_streams.trace.format import read_trace
from reactive_streams.trace.validate import Verdict, find_jar, validate_files

ROOT = Path(__file__).resolve().parents[2]
JAVA_TRACES = ROOT / "tests" / "traces" / "java"
# tests/traces/java/record_java.py: how the files are made (loaded by path, not installed)
_spec = importlib.util.spec_from_file_location(
    "java_trace_fixtures", JAVA_TRACES / "record_java.py"
)
assert _spec is not None
assert _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)

JAR = find_jar()
HAS_TLC = shutil.which("java") is not None and JAR is not None and JAR.is_file()
VALID = [JAVA_TRACES / "valid" / name for name in recorder.VALID]
BROKEN = JAVA_TRACES / recorder.BROKEN


def _judge(paths: list[Path]) -> list[Verdict]:
    verdicts, _ = validate_files(paths, use_tlc=HAS_TLC)
    return verdicts


@pytest.mark.timeout(300)
def test_the_committed_java_traces_are_judged() -> None:
    for path in [*VALID, BROKEN]:
        trace = read_trace(path)
        assert (trace.header.version, trace.header.view) == (2, "subscriber"), path.name
        assert len({e.thread for e in trace.events}) > 1, path.name  # Java threads
    *valid, broken = _judge([*VALID, BROKEN])
    assert [v.status for v in valid] == ["valid", "valid"], [v.line() for v in valid]
    expect = read_trace(BROKEN).header.expect
    assert expect is not None
    assert (broken.status, broken.rule, broken.index) == ("invalid", "1.1", expect["event"])


def test_the_java_runs_cover_what_they_are_named_for() -> None:
    iterable = read_trace(VALID[1])
    answers = [e.error_type for e in iterable.events if e.sig == "begin_on_error"]
    assert answers == ["java.lang.IllegalArgumentException"]  # rule 3.9, request(0)
    assert any(e.sig == "request" and e.n == 2**63 - 1 for e in iterable.events)
    assert any(e.sig == "cancel" for e in iterable.events)
    assert {e.sub for e in iterable.events} == {1, 2, 3, 4}


@pytest.mark.timeout(600)
@pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime")
@pytest.mark.skipif(
    shutil.which("javac") is None, reason="a JRE only: javac is needed to build examples/java"
)
def test_fresh_java_runs_are_judged(tmp_path: Path) -> None:
    recorder.record(tmp_path, items=30)
    fresh = [tmp_path / path.name for path in VALID]
    *valid, broken = _judge([*fresh, tmp_path / recorder.BROKEN])
    assert [v.status for v in valid] == ["valid", "valid"], [v.line() for v in valid]
    assert (broken.status, broken.rule) == ("invalid", "1.1"), broken.line()
    assert "onNext #3 exceeds the demand received (total 2)" in broken.message
    header = json.loads((tmp_path / recorder.BROKEN).read_text().splitlines()[0])
    assert "expect" not in header  # the emitter writes no verdict; the checker finds it
