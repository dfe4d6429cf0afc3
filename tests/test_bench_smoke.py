"""The benchmark still runs: ``python -m bench --smoke`` (tiny N, one run, no peers).

No timing is asserted; the test checks that every workload of ours and every baseline
ran in its own process, delivered the expected number of elements (the worker checks
each run's count) and produced a row with a rate and a peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )


@pytest.mark.skipif(
    os.environ.get("RS_SLOW") != "1",
    reason="every workload in a subprocess (8 s): make slow-checks, make bench-smoke",
)
def test_bench_smoke_runs_every_workload_and_writes_rows(tmp_path: Path) -> None:
    out = tmp_path / "smoke.json"
    md = tmp_path / "smoke.md"
    proc = _bench("bench", "--smoke", "--json", str(out), "--md", str(md))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = json.loads(out.read_text())
    rows = {r["name"]: r for r in results["rows"]}
    errors = {name: r["error"] for name, r in rows.items() if "error" in r}
    assert errors == {}
    skipped = {name for name, r in rows.items() if "skipped" in r}
    # only workloads of modules that may not exist yet are skipped, never the rest
    assert all(rows[name]["skipped"].startswith("needs reactive_streams.flow") for name in skipped)
    measured = {name: r for name, r in rows.items() if name not in skipped}
    groups = {r["group"] for r in rows.values()}
    assert groups == {"baseline", "ours"}  # smoke mode never touches the peer venvs
    for name in ("plain_loop", "queue_thread_1", "aiter_range", "rs_range_1m", "rs_range_1"):
        assert name in rows, name
    for r in measured.values():
        assert r["runs"] == 1
        assert r["n"] > 0
        assert r["rate_median"] > 0
        assert r["peak_rss_mib"] > 0
    assert results["machine"]["smoke"] is True
    report = md.read_text()
    assert "| `rs_range_1m` |" in report
    assert "## Targets" in report
    assert "## Operators against reactivex (one process)" in report
    assert "error" not in results["operators"], results["operators"]


def test_bench_worker_rejects_a_wrong_count() -> None:
    """A workload delivering the wrong number of elements is an error row, not a rate."""
    code = (
        "import json, sys\n"
        "from bench.harness import REGISTRY, measure, workload\n"
        "@workload('short_by_one', n=10, group='baseline', title='t')\n"
        "def short_by_one(n):\n"
        "    return lambda: n - 1\n"
        "try:\n"
        "    measure(REGISTRY['short_by_one'], 10, 1)\n"
        "except AssertionError as e:\n"
        "    print('rejected:', e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "rejected: short_by_one: warm-up delivered 9, expected 10" in proc.stdout, proc.stderr


def test_bench_operators_smoke_runs_every_row_in_one_process(tmp_path: Path) -> None:
    """``python -m bench.operators --smoke``: every operator row ran ours, reactivex's and
    (where one exists) the plain equivalent after their outputs were checked equal; the
    rows come sorted worst ``vs rx`` first. Structure only, never a timing."""
    out = tmp_path / "operators.json"
    proc = _bench("bench.operators", "--smoke", "--json", str(out))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(out.read_text())
    rows = result["rows"]
    names = {r["operator"] for r in rows}
    for name in (
        "map",
        "filter",
        "flat_map(list of 2)",
        "group_by + count per group",
        "buffer(100)",
    ):
        assert name in names, name
    assert len(names) == len(rows)  # one row per operator
    for r in rows:
        assert r["ours_s"] > 0
        assert r["rx_s"] > 0
        assert r["vs_rx"] == r["rx_s"] / r["ours_s"]
    ratios = [r["vs_rx"] for r in rows]
    assert ratios == sorted(ratios)
    assert result["reps"] == 1
    assert len(result["loadavg_start"]) == 3
    assert "| `map` | `map` |" in proc.stdout
