"""Every planted bug still applies: a patch whose text no longer occurs in the source would
make ``make mutants`` stop at it, and the machines it was planted for would go unchecked."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(120)
def test_every_planted_bug_applies_and_compiles() -> None:
    proc = subprocess.run(
        [sys.executable, "tools/mutants.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("mutants apply")


def test_a_stale_patch_is_named() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        mutants: Any = importlib.import_module("mutants")
    finally:
        sys.path.remove(str(ROOT / "tools"))
    stale = mutants.Mutant(
        "stale", "a patch for text that is gone", "1.1", (mutants.Patch("x.py", "gone", ""),)
    )
    with pytest.raises(SystemExit, match=r"stale: patch for x\.py matches 0 time"):
        mutants.patched(stale, lambda _file: "present")
