"""``import reactive_streams`` stays light: no Spark, Hypothesis, asyncio or pandas."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pyspark", "hypothesis", "asyncio", "pandas", "pyarrow", "numpy", "reactivex", "py4j")


@pytest.mark.timeout(60)
def test_import_reactive_streams_loads_no_heavy_module() -> None:
    code = "import json, sys, reactive_streams; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=50
    ).stdout
    loaded = json.loads(out)
    assert "reactive_streams" in loaded
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    assert heavy == []
