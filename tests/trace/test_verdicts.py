"""Three verdicts, never confused (docs/trace-format.md, "Verdicts"): ``valid`` (exit 0),
``invalid`` with the rule and the event (exit 1), ``not checked`` with the reason
(exit 3: TLC crashed, ran out of stack, memory or time, is missing, or disagrees with
the replay); a file that is not a trace is ``malformed`` (exit 2), never a violation."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.trace import __main__ as cli
from reactive_streams.trace.format import parse_lines
from reactive_streams.trace.validate import (
    CALL_END_RULES,
    find_jar,
    find_spec_dir,
    validate_files,
    validate_traces,
)

from ._build import ev, lines, signal, subscribed

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "traces"
VALID = TRACES / "valid" / "sync_full.jsonl"
INVALID = TRACES / "extra_on_next.jsonl"  # rule 1.1 at event 13
JAR = find_jar()
needs_tlc = pytest.mark.skipif(
    shutil.which("java") is None or JAR is None or not JAR.is_file(), reason="needs Java + jar"
)


def _write(path: Path, events: list[dict[str, Any]], **options: Any) -> Path:
    path.write_text("\n".join(lines(events, **options)) + "\n")
    return path


def many_threads(threads: int) -> list[dict[str, object]]:
    """One Subscription whose request(1) calls come from ``threads`` threads, each
    received on the caller's thread, then onComplete (format version 1: every call
    returns at once)."""
    events: list[dict[str, object]] = [*subscribed(thread=0)]
    for thread in range(1, threads + 1):
        events += [ev("request", thread, n=1), ev("recv_request", thread, n=1)]
    return [*events, *signal("on_complete", 0)]


def _v1(events: list[dict[str, object]]) -> list[str]:
    text = lines(events, mode="async")
    header = json.loads(text[0])
    header["version"] = 1
    return [json.dumps(header), *text[1:]]


# ----------------------------------------------------------------- exit statuses
def test_exit_statuses_rank_invalid_then_malformed_then_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text('{"clock":1,"sub":1,"sig":"subscribe"}\n{"clock":1}\n')
    assert cli.main(["validate", "--no-tlc", str(VALID)]) == 0
    assert cli.main(["validate", "--no-tlc", str(VALID), str(INVALID)]) == 1
    assert cli.main(["validate", "--no-tlc", str(VALID), str(malformed)]) == 2
    assert cli.main(["validate", "--no-tlc", str(INVALID), str(malformed)]) == 1
    out = capsys.readouterr().out
    assert "malformed at line 2" in out
    assert "Traceback" not in out


def test_json_gives_status_rule_and_event(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["validate", "--no-tlc", "--json", str(VALID), str(INVALID)])
    document = json.loads(capsys.readouterr().out)
    assert status == document["exit"] == 1
    good, bad = document["files"]
    assert (good["status"], good["events"]) == ("valid", 17)
    assert (bad["status"], bad["event"], bad["sig"], bad["rule"]) == (
        "invalid",
        13,
        "send_on_next",
        "1.1",
    )


def test_tlc_missing_is_not_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["validate", "--tla-jar", str(tmp_path / "none.jar"), str(INVALID)])
    assert status == 3
    err = capsys.readouterr().err
    assert "cannot run TLC" in err
    assert "--no-tlc" in err


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_bad_timeout_is_a_usage_error(value: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["validate", "--tlc-timeout", value, str(VALID)])
    assert exit_info.value.code == 2


# ------------------------------------------------------------------ not checked
@needs_tlc
@pytest.mark.timeout(300)
def test_a_tlc_timeout_is_not_checked(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["validate", "--tlc-timeout", "0.01", "--json", str(INVALID)])
    [verdict] = json.loads(capsys.readouterr().out)["files"]
    assert status == 3
    assert verdict["status"] == "not checked"
    assert "TLC did not finish within 0.01 s" in verdict["message"]
    assert "the replay rejects event 13" in verdict["message"]  # told, not the verdict


@needs_tlc
@pytest.mark.skipif(
    os.environ.get("RS_SLOW") != "1", reason="700 threads through TLC (14 s): make slow-checks"
)
@pytest.mark.timeout(600)
def test_seven_hundred_threads_check_or_say_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "threads.jsonl"
    path.write_text("\n".join(_v1(many_threads(700))) + "\n")
    assert len(parse_lines(path.read_text().splitlines()).events) == 1407
    status = cli.main(["validate", "--json", str(path)])
    [verdict] = json.loads(capsys.readouterr().out)["files"]
    assert status != 1, verdict
    assert verdict["status"] == "valid", verdict  # the default stack (-Xss64m) suffices
    # a stack too small for it: TLC's StackOverflowError is "not checked", with the option
    status = cli.main(["validate", "--tlc-stack", "256k", "--json", str(path)])
    [verdict] = json.loads(capsys.readouterr().out)["files"]
    assert (status, verdict["status"]) == (3, "not checked"), verdict
    assert "StackOverflowError" in verdict["message"]
    assert "--tlc-stack" in verdict["message"]


@needs_tlc
@pytest.mark.timeout(300)
def test_replay_and_tlc_disagreeing_is_a_checker_error(tmp_path: Path) -> None:
    """A spec that lost rule 3.15's guard accepts what the replay rejects: the trace is
    not judged (a checker error), neither called valid nor invalid."""
    spec_dir = find_spec_dir()
    assert spec_dir is not None
    broken = tmp_path / "spec"
    shutil.copytree(spec_dir, broken, ignore=shutil.ignore_patterns("*.py", "models*"))
    module = broken / "TraceReactiveStreams.tla"
    text = module.read_text()
    guard = re.compile(r"^    /\\ ~raised +\\\* rule 3\.15\n", re.MULTILINE)
    assert len(guard.findall(text)) == 1
    module.write_text(guard.sub("", text))
    path = TRACES / "v2" / "cancel_raises.jsonl"
    trace = parse_lines(path.read_text().splitlines(), str(path))
    [verdict] = validate_traces([trace], spec_dir=broken, jar=JAR)
    assert verdict.status == "not checked", verdict.line()
    assert "checker error: TLC accepts the trace" in verdict.message
    assert "the replay rejects event 7 (end_cancel): rule 3.15" in verdict.message


# ------------------------------------------------------------------ the header
def test_version_2_without_call_ends_names_the_rules_it_cannot_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = TRACES / "v2" / "valid" / "calls_without_ends.jsonl"
    with_ends = TRACES / "v2" / "valid" / "request_and_cancel_return.jsonl"
    verdicts, _ = validate_files([path, with_ends, VALID], use_tlc=False)
    assert [v.status for v in verdicts] == ["valid"] * 3
    assert verdicts[0].unchecked == CALL_END_RULES
    assert verdicts[1].unchecked == verdicts[2].unchecked == ()  # ends recorded / version 1
    assert "rules not checked (call ends not recorded): 2.7" in verdicts[0].line()
    assert cli.main(["validate", "--no-tlc", "--json", str(path)]) == 0
    [verdict] = json.loads(capsys.readouterr().out)["files"]
    assert verdict["unchecked_rules"] == list(CALL_END_RULES)


# --------------------------------------------------------------- real-world input
@pytest.mark.parametrize(
    "name", ["com.example.Main$1", "Outer$Inner", "a.b.Outer$Inner$1", "$Proxy12", "ValueError"]
)
def test_java_binary_class_names_are_accepted(name: str) -> None:
    events = [*subscribed(), *signal("on_error", error="boom", error_type=name)]
    [verdict] = validate_traces([parse_lines(lines(events))], use_tlc=False)
    assert verdict.status == "valid", verdict.line()


@pytest.mark.parametrize("name", ["1Main", "Main$1.", "a..b", "Main 1", ""])
def test_what_is_no_class_name_stays_malformed(name: str, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.jsonl", [*subscribed(), *signal("on_error", error="e", error_type=name)]
    )
    [verdict], _ = validate_files([path], use_tlc=False)
    assert verdict.status == "malformed"
    assert "malformed at line 6: field 'error_type'" in verdict.line()


def test_long_texts_are_accepted_and_the_report_is_shortened(tmp_path: Path) -> None:
    wrong = "com.example." + "Deep" * 240 + "$Error"  # ~980 characters, a legal name
    events = [
        *subscribed(),
        ev("request", n=0),
        ev("recv_request", n=0),
        ev("end_request"),
        *signal("on_error", error="x" * 50_000, error_type=wrong),  # not the 3.9 answer
    ]
    [verdict], _ = validate_files([_write(tmp_path / "t.jsonl", events)], use_tlc=False)
    assert (verdict.status, verdict.rule, verdict.index) == ("invalid", "3.9", 8)
    assert wrong in verdict.message
    line = verdict.line()
    assert len(line) < 1_100
    assert line.endswith("more characters)")


def test_unpaired_ends_are_malformed_with_their_line(tmp_path: Path) -> None:
    events = [*subscribed(), ev("end_on_next", seq=1, raised=False)]
    [verdict], _ = validate_files([_write(tmp_path / "t.jsonl", events)], use_tlc=False)
    assert verdict.line() == (
        "malformed at line 6: end_on_next without a begin_on_next before it (sub 1, thread 1)"
    )
    ended = [*subscribed(), ev("end_request")]
    [verdict], _ = validate_files([_write(tmp_path / "u.jsonl", ended)], use_tlc=False)
    assert verdict.line().startswith("malformed at line 6: end_request without a request")


def test_a_missing_thread_is_malformed_with_its_line(tmp_path: Path) -> None:
    events = [
        *subscribed(),
        ev("request", n=1),
        {"sub": 1, "sig": "end_request"},
        ev("recv_request", n=1),
    ]
    [verdict], _ = validate_files([_write(tmp_path / "t.jsonl", events)], use_tlc=False)
    assert verdict.status == "malformed"
    assert verdict.line().startswith(
        "malformed at line 7: end_request has no field 'thread' but line 4 of sub 1 gives one"
    )
    # no thread anywhere is fine: every call and signal runs on one thread
    bare = [{k: v for k, v in e.items() if k != "thread"} for e in events]
    [verdict], _ = validate_files([_write(tmp_path / "u.jsonl", bare)], use_tlc=False)
    assert verdict.status == "valid", verdict.line()


@pytest.mark.parametrize("use_tlc", [False, pytest.param(True, marks=needs_tlc)])
def test_requests_past_64_bits_mean_unbounded_demand(use_tlc: bool) -> None:
    """Python's request(n) takes any int; past 2**63-1 it is clipped (rule 3.17), and
    the trace is judged like request(2**63-1), never a violation of its own."""
    traces = [
        parse_lines(
            lines(
                [
                    *subscribed(),
                    ev("request", n=n),
                    ev("recv_request", n=n),
                    ev("end_request"),
                    *signal("on_next", seq=1),
                    *signal("on_complete"),
                ]
            )
        )
        for n in (2**63, 2**64, 2**70)
    ]
    verdicts = validate_traces(traces, use_tlc=use_tlc)
    assert [v.status for v in verdicts] == ["valid"] * 3, [v.line() for v in verdicts]
