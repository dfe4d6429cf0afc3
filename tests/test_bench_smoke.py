"""The benchmark still runs: ``python -m bench --smoke`` (tiny N, one run, no peers).

No timing is asserted; the test checks that every workload of ours and every baseline
ran in its own process, delivered the expected number of elements (the worker checks
each run's count) and produced a row with a rate and a peak RSS.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_smoke_runs_every_workload_and_writes_rows(tmp_path: Path) -> None:
    out = tmp_path / "smoke.json"
    md = tmp_path / "smoke.md"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--json", str(out), "--md", str(md)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
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
