"""The trace checker works from an installed wheel: the specification ships as package
data, the jar is found through ``--tla-jar``/``$RS_TLA_JAR``, and a missing jar or Java
gives one line naming ``--no-tlc``. Builds the wheel offline (hatchling) and installs it
into a fresh venv."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JAR = ROOT / ".tools" / "tla2tools.jar"
FIXTURE = ROOT / "tests" / "traces" / "valid" / "sync_full.jsonl"
BAD = ROOT / "tests" / "traces" / "extra_on_next.jsonl"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(
        subprocess.run(
            [sys.executable, "-c", "import hatchling"], capture_output=True, check=False
        ).returncode
        != 0,
        reason="hatchling is not installed (pip install hatchling)",
    ),
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with only the wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    build = ["wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(work)]
    subprocess.run(
        [sys.executable, "-m", "pip", *build, str(ROOT)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    [wheel] = work.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("reactive_streams/trace/spec/")}
    assert shipped >= {"TraceReactiveStreams.tla", "TraceReactiveStreams.cfg"}
    for module in _extended(ROOT / "spec", "TraceReactiveStreams"):
        assert f"{module}.tla" in shipped, f"{module}.tla is not in the wheel"
    env_dir = work / "venv"
    # no pip inside (ensurepip costs 3 s): this run's pip installs into the venv
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run(
        [*pip, "install", "-q", "--no-index", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    return python


def _extended(spec: Path, root: str) -> set[str]:
    """The project's modules ``root`` EXTENDS or INSTANCEs, transitively."""
    found: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        path = spec / f"{name}.tla"
        if name in found or not path.is_file():
            continue
        found.add(name)
        text = path.read_text(encoding="utf-8")
        for line in re.findall(r"^\s*EXTENDS\s+([\w\s,]+)$", text, re.MULTILINE):
            todo += [m.strip() for m in line.split(",")]
        todo += re.findall(r"\bINSTANCE\s+(\w+)", text)
    return found


def _run(
    python: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RS_"))}
    clean.update(env or {})
    return subprocess.run(
        [str(python), "-m", "reactive_streams.trace", "validate", *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_installed_package_is_the_wheel(installed: Path, tmp_path: Path) -> None:
    probe = subprocess.run(
        [str(installed), "-c", "import reactive_streams; print(reactive_streams.__file__)"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(installed.parent.parent) in probe.stdout


def test_replay_only_needs_nothing_else(installed: Path, tmp_path: Path) -> None:
    result = _run(installed, tmp_path, "--no-tlc", str(FIXTURE), str(BAD))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{FIXTURE}: valid (17 events)" in result.stdout
    assert f"{BAD}: invalid: event 13 (send_on_next): rule 1.1" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(shutil.which("java") is None or not JAR.is_file(), reason="needs Java + jar")
def test_tlc_with_the_jar_from_the_environment(installed: Path, tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:  # two independent TLC runs, one per core
        by_env = pool.submit(_run, installed, tmp_path, str(FIXTURE), env={"RS_TLA_JAR": str(JAR)})
        by_option_run = pool.submit(_run, installed, tmp_path, "--tla-jar", str(JAR), str(BAD))
        result, by_option = by_env.result(), by_option_run.result()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "valid (17 events)"
    assert "TLC + replay" in result.stderr
    assert by_option.returncode == 1
    assert "invalid: event 13 (send_on_next): rule 1.1" in by_option.stdout


def test_a_missing_jar_names_the_option_and_no_tlc(installed: Path, tmp_path: Path) -> None:
    result = _run(installed, tmp_path, str(FIXTURE))
    assert result.returncode == 3  # not checked: TLC cannot run (docs/trace-format.md)
    assert result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert "tla2tools.jar not found" in line
    assert "--tla-jar" in line
    assert "--no-tlc" in line


def test_missing_java_names_no_tlc(installed: Path, tmp_path: Path) -> None:
    no_java = tmp_path / "bin"
    no_java.mkdir()
    env = {"PATH": str(no_java), "RS_TLA_JAR": str(JAR if JAR.is_file() else FIXTURE)}
    result = _run(installed, tmp_path, str(FIXTURE), env=env)
    assert result.returncode == 3  # not checked
    [line] = result.stderr.strip().splitlines()
    assert "java not found" in line
    assert "--no-tlc" in line
