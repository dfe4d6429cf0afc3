"""The CLI refuses what cannot work in one line, before any check runs (exit 2), ends
its text output with the failures, and its JSON says what produced it (issue 22, item 6)."""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.api import Subscriber
from reactive_streams.tck import Config, run_processor_checks, run_publisher_checks
from reactive_streams.tck.gallery import GalleryProcessor, GalleryPublisher
from reactive_streams.tck.gallery.rules_1_publisher import SendsOneMore
from reactive_streams.tck.report import EVIDENCE, CheckResult

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def needs_two(n: int, m: int) -> GalleryPublisher:
    return GalleryPublisher(n)


def p02(n: int) -> GalleryPublisher:
    """Sends n + 1 per request(n) (rule 1.1)."""
    return SendsOneMore(n)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reactive_streams.tck", *args, "--width", "300"],
        capture_output=True,
        text=True,
        cwd=HERE,
        timeout=100,
        check=False,
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("publisher", "test_cli_usage:p02", "--only", "no_such_check"), "matches no publisher"),
        (("publisher", "test_cli_usage:needs_two"), "create_publisher(n)"),
        (("processor", "reactive_streams.tck.gallery:GalleryPublisher"), "makes a Publisher"),
        (("publisher", "reactive_streams.tck.gallery:GallerySubscriber"), "makes a Subscriber"),
        (("publisher", "test_cli_usage:p02", "--failed", "test_cli_usage:p02"), "failed"),
        (("publisher", "test_cli_usage:p02", "--timeout", "-1"), "greater than 0"),
        (("publisher", "test_cli_usage:p02", "--check-timeout", "0"), "greater than 0"),
        (("publisher", "test_cli_usage:p02", "--quiet-period", "-0.5"), "greater than 0"),
        (
            ("publisher", "test_cli_usage:p02", "--json", "/nonexistent-dir/r.json"),
            "cannot write the JSON report",
        ),
    ],
)
def test_usage_errors_exit_2_in_one_line_before_any_check(
    args: tuple[str, ...], needle: str
) -> None:
    result = _cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == "", result.stdout  # no check ran, no table
    assert needle in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 or "usage:" in result.stderr


@pytest.mark.timeout(120)
def test_the_text_output_ends_with_the_failures_and_the_json_says_what_ran(
    tmp_path: Path,
) -> None:
    report = tmp_path / "r.json"
    result = _cli(
        "publisher", "test_cli_usage:p02", "--only", "required_spec101", "--json", str(report)
    )
    assert result.returncode == 1, result.stdout + result.stderr
    tail = result.stdout.split("\nfailures:\n", 1)[1].splitlines()
    assert tail[0].startswith("rule 1.1  required_spec101_"), result.stdout
    assert tail[1].startswith("    rule 1.1: "), result.stdout
    data = json.loads(report.read_text())
    assert data["kit"]["spec"] == "1.0.4"
    assert data["kit"]["version"]
    assert data["mode"] == "timed"
    assert data["settings"]["timeout"] == 10.0
    assert data["threads_left_running"] == 0
    assert {r["evidence"] for r in data["results"]} <= set(EVIDENCE)


class _Silent:
    """on_subscribe, then nothing ever."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        subscriber.on_subscribe(self)

    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


def test_evidence_tells_a_deadline_from_a_quiet_period_and_an_observation() -> None:
    silent = run_publisher_checks(
        lambda n: _Silent(), timeout=0.3, only=lambda c: c.name.startswith("required_spec102")
    )
    assert [r.evidence for r in silent.results] == ["deadline"]
    broken = run_publisher_checks(p02, only=lambda c: c.name.startswith("required_spec101"))
    assert [(r.outcome, r.evidence) for r in broken.results] == [("failed", "deterministic")]
    correct = run_publisher_checks(
        GalleryPublisher, only=lambda c: c.name.startswith("required_spec312")
    )
    assert [(r.outcome, r.evidence) for r in correct.results] == [("passed", "quiet period")]


def test_the_docs_json_table_names_every_field_and_setting() -> None:
    docs = (HERE.parents[1] / "docs" / "conformance.md").read_text()
    (row,) = [line for line in docs.splitlines() if line.startswith("| `settings` |")]
    missing = [f.name for f in dataclasses.fields(Config) if f"`{f.name}`" not in row]
    assert not missing, f"settings fields missing from the docs' JSON table: {missing}"
    data = json.loads(run_publisher_checks(GalleryPublisher, only=lambda c: False).to_json())
    rows = [line.split("|")[1].strip() for line in docs.splitlines() if line.startswith("| `")]
    assert {f"`{key}`" for key in data} <= set(rows), rows
    (results,) = [line for line in docs.splitlines() if line.startswith("| `results` |")]
    assert all(f"`{f.name}`" in results for f in dataclasses.fields(CheckResult)), results


def test_rule_1_11_checks_are_skipped_with_one_subscriber() -> None:
    report = run_processor_checks(
        lambda size: GalleryProcessor(size), max_subscribers=1, only=lambda c: c.rule == "1.11"
    )
    assert report.results
    for r in report.results:
        assert r.outcome in ("skipped", "untested"), r
        assert r.outcome == "untested" or "max_subscribers is 1" in r.message, r
