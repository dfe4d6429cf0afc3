"""Any input gets a verdict or one "malformed at line N: why" line, never a traceback,
and one bad file in a batch leaves the other files' verdicts alone. One test per class
of adversarial input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reactive_streams.trace import __main__ as cli
from reactive_streams.trace.format import INT64_MAX, FormatError, parse_bytes
from reactive_streams.trace.validate import validate_files, validate_traces

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "traces" / "valid" / "sync_full.jsonl"
HEADER = b'{"format":"reactive-streams-trace","version":2,"mode":"sync","quiescent":true}\n'
SUBSCRIBE = b'{"clock":1,"sub":1,"sig":"subscribe"}\n'
HAS_TLC = shutil.which("java") is not None and (ROOT / ".tools" / "tla2tools.jar").is_file()


def _malformed(data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        parse_bytes(data)
    assert str(info.value).startswith(f"malformed at line {info.value.line}: ")
    return info.value


def _cli(tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    status = cli.main(["validate", "--no-tlc", str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return status, out.out.strip()


def test_invalid_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = HEADER + SUBSCRIBE + b'{"clock":2,"sub":1,"sig":"send_on_subscribe\xff"}\n'
    error = _malformed(data)
    assert (error.line, "invalid UTF-8") == (3, error.detail[:13])
    status, out = _cli(tmp_path, data, capsys)
    assert status == 2  # malformed
    assert out.startswith("malformed at line 3: invalid UTF-8"), out


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_any_nesting_depth(depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = HEADER + b"[" * depth + b"]" * depth + b"\n"
    _malformed(data)
    status, out = _cli(tmp_path, data, capsys)
    assert status == 2  # malformed
    assert out.startswith("malformed at line 2: "), out
    nested = HEADER + b'{"clock":1,"sub":1,"sig":"subscribe","thread":' + b"[" * depth
    assert _malformed(nested + b"]" * depth + b"}\n").line == 2


@pytest.mark.parametrize(
    ("field", "value"),
    [("clock", 2**64), ("sub", -(2**63) - 1), ("thread", 2**64), ("clock", -1), ("seq", 0)],
)
def test_numbers_out_of_range_are_malformed(field: str, value: int) -> None:
    event = {"clock": 1, "sub": 1, "sig": "send_on_next", "seq": 1, field: value}
    error = _malformed(HEADER + json.dumps(event).encode() + b"\n")
    assert f"field {field!r} = {value} is outside" in error.detail


def test_huge_number_literals_are_malformed() -> None:
    error = _malformed(HEADER + b'{"clock":1,"sub":1,"sig":"subscribe","thread":' + b"9" * 5000)
    assert "more than 40 digits" in error.detail


@pytest.mark.parametrize("n", [2**63, 2**70, -(2**70)])
def test_request_sizes_beyond_64_bits_are_clipped(n: int) -> None:
    """Rule 3.17: demand saturates at 2**63-1, so a larger n means the same (documented)."""
    event = {"clock": 1, "sub": 1, "sig": "request", "n": n}
    [parsed] = parse_bytes(HEADER + json.dumps(event).encode()).events
    assert parsed.n == (INT64_MAX if n > 0 else -(2**63))


def test_a_large_seq_gets_a_verdict_not_a_crash() -> None:
    lines = [
        SUBSCRIBE,
        b'{"clock":2,"sub":1,"sig":"send_on_subscribe"}',
        b'{"clock":3,"sub":1,"sig":"send_on_next","seq":1099511627776}',
    ]
    trace = parse_bytes(b"\n".join(lines))
    [verdict] = validate_traces([trace], use_tlc=False)
    assert (verdict.status, verdict.index) == ("invalid", 3)
    assert "expected 1" in verdict.message
    if HAS_TLC:  # beyond TLC's integers: not checked, and the replay's objection is told
        [verdict] = validate_traces([trace])
        assert verdict.status == "not checked", verdict.line()
        assert "32-bit integers" in verdict.message
        assert "the replay rejects event 3" in verdict.message


def test_duplicate_keys() -> None:
    error = _malformed(HEADER + b'{"clock":1,"sub":1,"sub":2,"sig":"subscribe"}\n')
    assert "duplicate key 'sub'" in error.detail


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity(constant: bytes) -> None:
    error = _malformed(HEADER + b'{"clock":1,"sub":1,"sig":"subscribe","thread":' + constant + b"}")
    assert "is not a JSON number" in error.detail


@pytest.mark.parametrize(
    "line",
    [
        b'{"clock":1,"sub":1,"sig":"subscribe\\ud800"}',
        b'{"clock":1,"sub":1,"sig":"send_on_error","error":"x\\udfff"}',
        b'{"clock":1,"sub":1,"sig":"subscribe","\\ud800":1}',
    ],
)
def test_lone_surrogates(line: bytes) -> None:
    error = _malformed(HEADER + line)
    assert "lone surrogate" in error.detail


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ({"clock": "1", "sub": 1, "sig": "subscribe"}, "field 'clock' must be an integer"),
        ({"clock": 1.0, "sub": 1, "sig": "subscribe"}, "field 'clock' must be an integer"),
        ({"clock": True, "sub": 1, "sig": "subscribe"}, "field 'clock' must be an integer"),
        ({"clock": 1, "sub": 1, "sig": 7}, "unknown sig 7"),
        ({"clock": 1, "sub": 1, "sig": "request", "n": 1.5}, "field 'n' must be an integer"),
        ({"clock": 1, "sub": 1, "sig": "request"}, "needs field 'n'"),
        ({"clock": 1, "sub": 1, "sig": "end_on_next", "seq": 1, "raised": "no"}, "'raised'"),
        ({"clock": 1, "sub": 1, "sig": "send_on_error", "error": 3}, "'error' must be a string"),
        ({"clock": 1, "sub": 1, "sig": "send_on_error", "error_type": "a b"}, "class name"),
        ({"clock": 1, "sub": 1, "sig": "subscribe", "seq": 1}, "does not apply"),
        ({"clock": 1, "sig": "subscribe"}, "field 'sub' is required"),
    ],
)
def test_wrong_types(event: dict[str, object], why: str) -> None:
    error = _malformed(HEADER + json.dumps(event).encode())
    assert why in error.detail, error.detail


def test_not_an_object() -> None:
    assert "must be a JSON object" in _malformed(HEADER + b"[1, 2]").detail
    assert "not JSON" in _malformed(HEADER + b'{"clock": 1').detail


def test_unknown_fields_are_reported() -> None:
    error = _malformed(HEADER + b'{"clock":1,"sub":1,"sig":"subscribe","colour":"red"}')
    assert "unknown field 'colour'" in error.detail
    header = b'{"format":"reactive-streams-trace","quiesent":true}\n'
    assert "unknown header field 'quiesent'" in _malformed(header).detail


@pytest.mark.parametrize(
    ("header", "why"),
    [
        ({"quiescent": "false"}, "'quiescent' must be true or false"),
        ({"quiescent": 0}, "'quiescent' must be true or false"),
        ({"version": 3}, "'version' must be 1 or 2"),
        ({"mode": "Sync"}, "'mode' must be"),
        ({"expect": {"event": "1", "rule": "1.1"}}, "'expect' must be"),
    ],
)
def test_header_fields_are_typed(header: dict[str, object], why: str) -> None:
    line = json.dumps({"format": "reactive-streams-trace", **header}).encode()
    error = _malformed(line + b"\n" + SUBSCRIBE)
    assert (error.line, error.index) == (1, 1)
    assert why in error.detail


def test_a_second_header_is_malformed() -> None:
    assert "header must be the first line" in _malformed(HEADER + SUBSCRIBE + HEADER).detail


def test_one_bad_file_leaves_the_others_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(HEADER + b"\xc3\x28\n")
    missing = tmp_path / "missing.jsonl"
    verdicts, _ = validate_files([GOOD, bad, missing, tmp_path, GOOD], use_tlc=False)
    assert [v.ok for v in verdicts] == [True, False, False, False, True]
    assert [v.kind for v in verdicts] == [
        "verdict",
        "malformed",
        "unreadable",
        "unreadable",
        "verdict",
    ]
    assert verdicts[1].line().startswith("malformed at line 2: invalid UTF-8")
    assert verdicts[2].line().startswith("cannot read: ")
    status = cli.main(["validate", "--no-tlc", str(GOOD), str(bad), str(GOOD)])
    out = capsys.readouterr().out.splitlines()
    assert status == 2  # malformed (and none invalid)
    assert out[0].endswith(": valid (17 events)")
    assert out[1].endswith(": malformed at line 2: invalid UTF-8 at byte 1")
    assert out[2].endswith(": valid (17 events)")
