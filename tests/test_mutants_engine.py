"""``tools/mutants.py``'s verdicts and results file: a hang or a flaky machine is never
counted as a kill, and an interrupted run's torn last line does not stop ``--resume``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _engine() -> Any:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module("mutants")
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_a_hang_or_a_flaky_machine_is_not_a_kill() -> None:
    verdict = _engine().verdict
    failed = "E   AssertionError: rule 1.1: onNext #2 exceeds the demand\n1 failed in 3.0s"
    assert verdict(1, failed) == ("killed", "rule 1.1: onNext #2 exceeds the demand")
    assert verdict(0, "1 passed in 3.0s") == ("survived", "exit 0")
    assert verdict(-1, "timed out")[0] == "timed out"  # the run outlived its own bound
    hung = "E   Failed: Timeout >300.0s\n1 failed in 300.0s"  # pytest-timeout
    assert verdict(1, hung)[0] == "timed out"
    flaky = "E   hypothesis.errors.FlakyStrategyDefinition: Inconsistent\n1 failed in 9.0s"
    assert verdict(1, flaky)[0] == "flaky"
    assert verdict(-11, "")[0] == "killed"  # the mutant crashed the process (SIGSEGV)


def test_the_results_file_keeps_the_last_verdict_and_skips_a_torn_line(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(
        '{"key": "m", "verdict": "survived"}\n'
        '{"key": "m", "verdict": "killed"}\n'
        '{"key": "n", "verd',  # the run was stopped while writing
        encoding="utf-8",
    )
    assert _engine().load(results) == {"m": {"key": "m", "verdict": "killed"}}
