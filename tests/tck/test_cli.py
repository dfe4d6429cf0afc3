"""``python -m reactive_streams.tck``: table, JSON report, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reactive_streams.tck.report import MIN_WIDTH, CheckResult, Report

HERE = Path(__file__).resolve().parent


def _cli(
    *args: str, cwd: Path = HERE, columns: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run(
        [sys.executable, "-m", "reactive_streams.tck", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=110,
        check=False,
    )


@pytest.mark.timeout(120)
def test_cli_passes_our_range_and_writes_json(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = _cli(
        "publisher",
        "factories:range_publisher",
        "--failed",
        "factories:failed_publisher",
        "--failing",
        "factories:failing_publisher",
        "--synchronous",
        "--json",
        str(report),
        "--width",
        "400",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "required_spec101_subscription_request_must_result_in_the_correct_number_of_produced_elements"
        in result.stdout
    )
    data = json.loads(report.read_text())
    assert data["ok"] is True
    assert data["counts"]["passed"] == 51
    assert data["counts"]["untested"] == 7


@pytest.mark.timeout(120)
def test_cli_exits_non_zero_on_a_required_failure() -> None:
    result = _cli("publisher", "factories:broken_publisher", "--synchronous", "--only", "spec101")
    assert result.returncode == 1
    assert "rule 1.1" in result.stdout


def test_cli_rejects_a_malformed_factory_as_a_usage_error() -> None:
    result = _cli("publisher", "factories")
    assert result.returncode == 2, result.stderr
    assert "MODULE:FACTORY" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("publisher",), "the following arguments are required"),
        (("publisher", "factories:range_publisher", "--no-such-option"), "unrecognized"),
        (("publisher", "factories:range_publisher", "--width", "30"), "at least 40"),
        (("publisher", "factories:range_publisher", "--width", "wide"), "number of columns"),
        (("rocket", "factories:range_publisher"), "invalid choice"),
    ],
)
def test_cli_usage_errors_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = _cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert needle in result.stderr
    assert "Traceback" not in result.stderr


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    return lines[0]


def test_cli_names_a_module_it_cannot_import_in_one_line() -> None:
    line = _one_line(_cli("publisher", "no_such_module_here:create"))
    assert "cannot import module 'no_such_module_here'" in line
    assert "ModuleNotFoundError" in line


def test_cli_names_a_module_that_fails_while_importing(tmp_path: Path) -> None:
    (tmp_path / "exploding.py").write_text("raise RuntimeError('exploding at import')\n")
    line = _one_line(_cli("publisher", "exploding:create", cwd=tmp_path))
    assert "cannot import module 'exploding'" in line
    assert "RuntimeError: exploding at import" in line


def test_cli_names_a_missing_or_uncallable_factory_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("LIMIT = 3\n\n\ndef made(n):\n    return None\n")
    line = _one_line(_cli("publisher", "plain:create", cwd=tmp_path))
    assert "plain:create" in line
    assert "has no attribute 'create'" in line
    line = _one_line(_cli("subscriber", "plain:LIMIT", cwd=tmp_path))
    assert "plain:LIMIT is not callable" in line
    line = _one_line(_cli("publisher", "plain:made", "--failed", "plain:nope", cwd=tmp_path))
    assert "plain:nope" in line


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("width", "columns"), [("60", None), (None, "72"), (None, None)])
def test_cli_width_bounds_every_printed_line(width: str | None, columns: str | None) -> None:
    args = ["publisher", "factories:broken_publisher", "--synchronous", "--only", "spec10"]
    if width is not None:
        args += ["--width", width]
    result = _cli(*args, columns=columns)
    assert result.returncode == 1, result.stdout + result.stderr
    bound = int(width or columns or "100")  # piped: COLUMNS, else 100
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= bound, result.stdout
    assert any(len(line) > bound - 15 for line in lines)  # the room is used
    joined = "".join(line.strip() for line in lines)  # wrapped, not cut: names survive
    assert "required_spec101_subscription_request_must_result_in_the_correct_number_of" in joined


@pytest.mark.timeout(120)
def test_cli_cannot_complete_and_recursion_depth_options(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = _cli(
        "publisher",
        "factories:range_publisher",
        "--synchronous",
        "--cannot-complete",
        "--max-recursion-depth",
        "0",
        "--only",
        "spec10",
        "--json",
        str(report),
    )
    data = json.loads(report.read_text())
    by_name = {r["name"]: r for r in data["results"]}
    skipped = by_name[
        "required_spec105_create_publisher1_must_produce_a_stream_of_exactly1_element"
    ]
    assert skipped["outcome"] == "skipped"
    assert "cannot complete" in skipped["message"]
    assert (
        by_name[
            "required_spec101_subscription_request_must_result_in_the_correct_number_of_produced_elements"
        ]["outcome"]
        == "passed"
    )
    result = _cli(
        "publisher",
        "factories:range_publisher",
        "--synchronous",
        "--max-recursion-depth",
        "0",
        "--only",
        "validate_bounded",
    )
    assert result.returncode == 1, result.stdout  # a bound below 1 is a configuration error


def test_report_table_keeps_every_line_within_the_width() -> None:
    long = "_".join(["a_long_check_name"] * 12)
    report = Report("subject " * 20)
    for outcome in ("passed", "failed", "failed-optional"):
        report.results.append(
            CheckResult("publisher", long, "1.1", "stochastic", outcome, "word " * 60 + long)
        )
    assert max(len(line) for line in report.table().splitlines()) > 200  # unbounded by default
    for width in (MIN_WIDTH, 57, 100):
        lines = report.table(width=width).splitlines()
        assert max(len(line) for line in lines) <= width
        assert "".join(line.strip() for line in lines).count(long) >= 3  # wrapped, not cut
    with pytest.raises(ValueError, match="at least"):
        report.table(width=MIN_WIDTH - 1)
