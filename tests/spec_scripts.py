"""The scripts of ``spec/`` (the TLC runner, the trace-coverage report) as modules.

They are run as ``python spec/<script>.py``, not installed, so tests load them by path,
once per process, under the names the scripts use for each other (``spec/trace_coverage.py``
finds the runner as ``tlc_runner``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
JAR = SPEC_DIR.parent / ".tools" / "tla2tools.jar"


def load(stem: str, name: str) -> ModuleType:
    """``spec/<stem>.py`` as the module ``name`` (the one already loaded, if any)."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, SPEC_DIR / f"{stem}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
