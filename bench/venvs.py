"""Private virtual environments for the peer libraries and the chart.

The peers are never dependencies of the project: the benchmark creates these
environments under ``.bench/`` (git-ignored) with pip, on first use.

- ``peers``: reactivex (RxPY 4+), rxbp and matplotlib (for the chart).
- ``aio``: aioreactive, alone, because it pins ``reactivex < 5``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_DIR = ROOT / ".bench"

# Exact pins keep the peers' numbers comparable from run to run.
# rxbp: 3.0.0a10..a12 need ``dataclass-abc``, which the package index no longer
# serves; 3.0.0a9 is the newest release that installs (see bench/README.md).
REQUIREMENTS: dict[str, list[str]] = {
    "peers": ["reactivex==6.1.0", "rxbp==3.0.0a9", "matplotlib>=3.8"],
    "aio": ["aioreactive==0.20.0"],
}


def python_of(name: str) -> Path:
    return VENV_DIR / name / "bin" / "python"


def ensure(name: str, *, quiet: bool = True) -> Path:
    """Create ``.bench/<name>`` with its pinned packages unless it is ready."""
    venv = VENV_DIR / name
    stamp = venv / ".ready"
    wanted = "\n".join(REQUIREMENTS[name])
    if stamp.exists() and stamp.read_text() == wanted:
        return python_of(name)
    VENV_DIR.mkdir(exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python_of(name)), "-m", "pip", "install", "--disable-pip-version-check"]
    if quiet:
        pip.append("-q")
    subprocess.run([*pip, *REQUIREMENTS[name]], check=True)
    stamp.write_text(wanted)
    return python_of(name)


def main() -> None:
    for name in REQUIREMENTS:
        print(name, ensure(name, quiet=False))


if __name__ == "__main__":
    main()
