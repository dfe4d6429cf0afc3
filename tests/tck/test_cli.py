"""``python -m reactive_streams.tck``: table, JSON report, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reactive_streams.tck", *args],
        capture_output=True,
        text=True,
        cwd=HERE,
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
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "required_spec101_subscription_request_must_result_in_the_correct_number_of_produced_elements"
        in result.stdout
    )
    data = json.loads(report.read_text())
    assert data["ok"] is True
    assert data["counts"]["passed"] == 49
    assert data["counts"]["untested"] == 7


@pytest.mark.timeout(120)
def test_cli_exits_non_zero_on_a_required_failure() -> None:
    result = _cli("publisher", "factories:broken_publisher", "--synchronous", "--only", "spec101")
    assert result.returncode == 1
    assert "rule 1.1" in result.stdout


def test_cli_rejects_a_malformed_factory() -> None:
    result = _cli("publisher", "factories")
    assert result.returncode != 0
    assert "MODULE:FACTORY" in result.stderr


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
