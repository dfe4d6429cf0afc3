"""Trace validation: recorded runs are accepted by TLC on the spec, mutated ones are
rejected at the right event for the right rule, and the CLI says so in one line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import reactive_streams as rs
from reactive_streams.executors import ManualExecutor
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace import __main__ as cli
from reactive_streams.trace import invariants
from reactive_streams.trace.format import FormatError, Header, parse_lines, read_trace, write_trace
from reactive_streams.trace.to_tla import MAX_DEMAND_TLA, clip_n
from reactive_streams.trace.validate import find_spec_dir, validate_files
from reactive_streams.tracing import tracing

HERE = Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "traces").glob("*.jsonl"))
VALID = sorted((HERE / "traces" / "valid").glob("*.jsonl"))
ROOT = HERE.parent
HAS_TLC = shutil.which("java") is not None and (ROOT / ".tools" / "tla2tools.jar").is_file()
needs_tlc = pytest.mark.skipif(not HAS_TLC, reason="java or .tools/tla2tools.jar missing")


def _record(tmp_path: Path, sync: bool, n: int) -> Path:
    executor = None if sync else ManualExecutor()
    with tracing() as tracer:
        subscriber: TestSubscriber[int] = TestSubscriber(
            2, on_next_hook=lambda ts, x: ts.request(1) if x % 2 else None
        )
        rs.range(0, n, executor=executor, batch_size=2).subscribe(subscriber)
        if executor is not None:
            executor.run_all()
        subscriber.request(2**63 - 1)
        subscriber.request(2**64)
        if executor is not None:
            executor.run_all()
        subscriber.cancel()
    path = tmp_path / f"{'sync' if sync else 'async'}-{n}.jsonl"
    header = Header(mode="sync" if sync else "async", quiescent=True)
    write_trace(path, tracer.events, header)
    return path


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 5
    rules = {read_trace(p).header.expect["rule"] for p in FIXTURES}  # type: ignore[index]
    assert {"1.1", "1.3", "1.7", "3.9", "3.12"} <= rules


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_mutated_trace_rejected_by_replay(path: Path) -> None:
    expect = read_trace(path).header.expect
    assert expect is not None
    [verdict], _ = validate_files([path], use_tlc=False)
    assert not verdict.ok
    assert (verdict.index, verdict.rule) == (expect["event"], expect["rule"]), verdict.line()


@needs_tlc
def test_mutated_traces_rejected_by_tlc_at_the_same_event() -> None:
    verdicts, _ = validate_files(FIXTURES)
    for path, verdict in zip(FIXTURES, verdicts, strict=True):
        expect = read_trace(path).header.expect
        assert expect is not None
        assert verdict.judge == "tlc"
        assert not verdict.ok, path.name
        assert (verdict.index, verdict.rule) == (expect["event"], expect["rule"]), verdict.line()
        assert "(TLC)" not in verdict.message, verdict.line()  # TLC and the replay agree


@needs_tlc
def test_recorded_traces_accepted_by_tlc(tmp_path: Path) -> None:
    paths = [_record(tmp_path, sync, n) for sync in (True, False) for n in (0, 1, 7)]
    verdicts, _ = validate_files([*paths, *VALID])
    assert all(v.ok for v in verdicts), [v.line() for v in verdicts if not v.ok]


def test_cli_prints_one_line_per_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _record(tmp_path, True, 3)
    assert cli.main(["validate", "--no-tlc", str(good)]) == 0
    first, *table = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"valid \(\d+ events\)", first), first
    # the trace names its hops (subscribe events carry ``hop``), so a per-hop table follows
    assert table, "no per-hop table"
    assert table[0].split() == ["hop", "subs", "events", "rejected"], table
    assert any(row.split()[0] == "range" for row in table[1:]), table
    bad = HERE / "traces" / "extra_on_next.jsonl"
    assert cli.main(["validate", "--no-tlc", str(bad)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith("invalid: event 13 (send_on_next): rule 1.1: "), out
    assert cli.main(["validate", "--no-tlc", "--expect-header", str(bad)]) == 0


def test_malformed_lines_are_named() -> None:
    with pytest.raises(FormatError, match="malformed at line 2: clock 1 does not increase"):
        parse_lines(['{"clock":1,"sub":1,"sig":"subscribe"}', '{"clock":1,"sub":1,"sig":"cancel"}'])
    with pytest.raises(FormatError, match=r'unknown sig "recv_request" for a .subscriber.'):
        parse_lines(
            [
                json.dumps({"format": "reactive-streams-trace", "view": "subscriber"}),
                '{"clock":1,"sub":1,"sig":"recv_request","n":1}',
            ]
        )


def test_request_sizes_are_clipped_for_tlc() -> None:
    assert clip_n(3) == 3
    assert clip_n(2**63 - 1) == clip_n(2**64) == MAX_DEMAND_TLA
    assert clip_n(None) == -1
    assert clip_n(-(2**63)) == -MAX_DEMAND_TLA


def test_every_spec_invariant_has_a_python_twin() -> None:
    spec_dir = find_spec_dir()
    assert spec_dir is not None
    text = (spec_dir / "ReactiveStreams.tla").read_text(encoding="utf-8")
    names = set(re.findall(r"^(Spec\d+_\w+Inv) ==", text, re.MULTILINE))
    assert names == set(invariants.INVARIANTS), names ^ set(invariants.INVARIANTS)
    for name, twin in invariants.INVARIANTS.items():
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
        assert twin.__name__ == snake
        trace_cfg = (spec_dir / "TraceReactiveStreams.cfg").read_text(encoding="utf-8")
        assert name in trace_cfg, f"{name} is not checked during trace validation"
