"""Every fenced ``python`` block in README.md, docs/*.md and docs/howto/*.md runs as a
complete program.

Each block runs alone, in a fresh interpreter, with this test run's import path; it
passes when it exits 0 (the blocks assert what they show). A block that imports an
optional dependency (pyspark, reactivex) is skipped when that dependency is absent.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "howto").glob("*.md")),
]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
OPTIONAL = ("pyspark", "reactivex")
JVM_FAST_START = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

# Blocks that are sketches rather than programs, by (page, index): the reason says what is
# missing. Not run; each should become a complete program.
SKETCHES: dict[tuple[str, int], str] = {}


def _blocks() -> list[object]:
    cases: list[object] = []
    for page in PAGES:
        rel = page.relative_to(ROOT).as_posix()
        for index, match in enumerate(BLOCK.finditer(page.read_text(encoding="utf-8"))):
            line = page.read_text(encoding="utf-8").count("\n", 0, match.start()) + 2
            marks = []
            if (rel, index) in SKETCHES:
                marks.append(pytest.mark.xfail(reason=SKETCHES[(rel, index)], run=False))
            cases.append(pytest.param(rel, line, match.group(1), id=f"{rel}:{line}", marks=marks))
    return cases


BLOCKS = _blocks()


def test_the_pages_have_python_blocks() -> None:
    pages = {
        page.relative_to(ROOT).as_posix()
        for page in PAGES
        if BLOCK.search(page.read_text(encoding="utf-8"))
    }
    assert {"README.md", "docs/asyncio.md", "docs/operators.md", "docs/multicast.md"} <= pages
    assert {"docs/install.md", "docs/tutorial.md", "docs/coming-from-rxpy.md"} <= pages
    assert "docs/coming-from-reactor.md" in pages
    assert len([p for p in pages if p.startswith("docs/howto/")]) >= 4


@pytest.mark.timeout(120)
def test_the_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    """``make docs``'s API reference (tools/apidocs.py, pdoc): a warning fails the build."""
    pytest.importorskip("pdoc")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "apidocs.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=110,
        env=env,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "0 warnings" in result.stderr
    for page in (
        "reactive_streams.html",
        "reactive_streams/flow.html",
        "reactive_streams/tck.html",
    ):
        assert (tmp_path / page).is_file(), page
    flow = (tmp_path / "reactive_streams" / "flow.html").read_text(encoding="utf-8")
    assert "observe_on" in flow


@pytest.mark.timeout(150)
@pytest.mark.parametrize(("page", "line", "code"), BLOCKS)
def test_docs_block_runs_as_a_program(page: str, line: int, code: str) -> None:
    for name in OPTIONAL:
        imports = re.search(rf"^\s*(from|import) {name}\b", code, re.MULTILINE)
        if imports and importlib.util.find_spec(name) is None:
            pytest.skip(f"{page}:{line} needs {name}, which is not installed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if "reactive_streams.spark" in code:
        # the JIT flags of local_session(fast_start=True), for the block's cold JVM: a
        # third less wall time, same program and assertions (semantics do not depend on
        # the JIT tier or the collector)
        env["JAVA_TOOL_OPTIONS"] = JVM_FAST_START
    result = subprocess.run(
        [sys.executable, "-X", "dev", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert result.returncode == 0, f"{page}:{line} failed:\n{result.stderr[-3000:]}"
