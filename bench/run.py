"""Run the benchmark: every workload in its own subprocess, then write the report.

``python -m bench``            full run (creates the peer venvs under .bench/ on first use)
``python -m bench --smoke``    tiny N, one run, our workloads and the baselines only
``python -m bench --only RE``  only the workloads whose name matches RE (``--merge`` keeps the rest)
``python -m bench --operators``  only the per-operator table (one process; kept with the rows)
``python -m bench --report``   rewrite docs/benchmarks.md and .png from bench/results.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import report, venvs
from bench.harness import REGISTRY, Workload

ROOT = venvs.ROOT
# workload group -> (module, venv name or None for this interpreter)
GROUPS: dict[str, tuple[str, str | None]] = {
    "baseline": ("bench.baselines", None),
    "ours": ("bench.ours", None),
    "reactivex": ("bench.peers_rx", "peers"),
    "rxbp": ("bench.peers_rx", "peers"),
    "aioreactive": ("bench.peers_aio", "aio"),
}
ORDER = list(GROUPS)
SUBPROCESS_TIMEOUT_S = 900


def load_registry() -> list[Workload]:
    for module, _ in GROUPS.values():
        importlib.import_module(module)
    return sorted(REGISTRY.values(), key=lambda w: ORDER.index(w.group))


def machine_info() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    try:
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "impl"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
    except OSError:
        dirty = []
    return {
        "uncommitted_impl_files": len(dirty),
        "cpu_model": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "commit": commit,
        "started_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "loadavg_start": os.getloadavg(),
    }


def peer_versions(python: Path, names: list[str]) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json, sys\n"
        "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    )
    out = subprocess.run(
        [str(python), "-c", code, *names], capture_output=True, text=True, check=True
    )
    versions: dict[str, str] = json.loads(out.stdout)
    return versions


def _subprocess(cmd: list[str], *paths: str) -> subprocess.CompletedProcess[str] | None:
    """``cmd`` in the repository, ``paths`` first on PYTHONPATH; None if it timed out."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*paths, env.get("PYTHONPATH", "")) if p)
    try:
        return subprocess.run(
            cmd,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def run_one(
    w: Workload, python: str, n: int, runs: int, *, verbose: bool, limit_n: int = 300_000
) -> dict[str, Any]:
    module = GROUPS[w.group][0]
    cmd = [python, "-m", "bench.worker", module, w.name, "--n", str(n), "--runs", str(runs)]
    cmd += ["--limit-n", str(limit_n)]
    proc = _subprocess(cmd, str(ROOT))
    if proc is None:
        return {"name": w.name, "group": w.group, "title": w.title, "error": "timed out"}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        row: dict[str, Any] = {"name": w.name, "error": " | ".join(tail) or f"rc {proc.returncode}"}
    else:
        row = json.loads(lines[-1])
    row.setdefault("group", w.group)
    row.setdefault("title", w.title)
    row.setdefault("unit", w.unit)
    row.setdefault("n", n)
    if verbose and proc.stderr.strip() and "error" in row:
        print(proc.stderr, file=sys.stderr)
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="tiny N, one run, no peer venvs")
    p.add_argument("--only", help="regex on workload names")
    p.add_argument("--runs", type=int, default=5, help="timed runs per workload (default 5)")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every N")
    p.add_argument("--no-peers", action="store_true", help="skip reactivex, rxbp, aioreactive")
    p.add_argument("--merge", action="store_true", help="keep rows of --json not re-run")
    p.add_argument("--operators", action="store_true", help="only the per-operator table")
    p.add_argument("--report", action="store_true", help="only rewrite the report from --json")
    p.add_argument("--json", type=Path, help="results file (default bench/results.json)")
    p.add_argument("--md", type=Path, help="markdown report (default docs/benchmarks.md)")
    p.add_argument("--png", type=Path, help="chart (default docs/benchmarks.png)")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)

    if a.smoke:
        json_path = a.json or ROOT / ".bench" / "smoke.json"
        md_path, png_path = a.md, a.png
    else:
        json_path = a.json or ROOT / "bench" / "results.json"
        md_path = a.md or ROOT / "docs" / "benchmarks.md"
        png_path = a.png or ROOT / "docs" / "benchmarks.png"

    if a.report:
        results = json.loads(json_path.read_text())
        write_outputs(results, md_path, png_path)
        return 0

    if a.operators:
        results = json.loads(json_path.read_text()) if json_path.exists() else None
        if results is None:
            results = {"machine": machine_info(), "rows": []}
        results["operators"] = run_operators(smoke=a.smoke, verbose=a.verbose, reps=a.runs)
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(results, indent=1) + "\n")
        write_outputs(results, md_path, a.png)  # the chart draws the rows: unchanged
        return 1 if "error" in results["operators"] else 0

    workloads = load_registry()
    if a.smoke or a.no_peers:
        workloads = [w for w in workloads if GROUPS[w.group][1] is None]
    if a.only:
        pattern = re.compile(a.only)
        workloads = [w for w in workloads if pattern.search(w.name)]
    runs = 1 if a.smoke else a.runs
    if not a.smoke and runs < 5:
        print(f"note: {runs} timed runs (the published table uses at least 5)", file=sys.stderr)

    info = machine_info()
    pythons: dict[str | None, str] = {None: sys.executable}
    versions: dict[str, str] = {}
    for venv in sorted({v for w in workloads if (v := GROUPS[w.group][1]) is not None}):
        py = venvs.ensure(venv)
        pythons[venv] = str(py)
        names = [r.split("=")[0].split(">")[0] for r in venvs.REQUIREMENTS[venv]]
        versions.update(peer_versions(py, [n for n in names if n != "matplotlib"]))
    info["peer_versions"] = versions

    rows: list[dict[str, Any]] = []
    for w in workloads:
        n = w.smoke_n if a.smoke else max(1, int(w.n * a.scale))
        limit_n = 20_000 if a.smoke else 300_000
        row = run_one(w, pythons[GROUPS[w.group][1]], n, runs, verbose=a.verbose, limit_n=limit_n)
        rows.append(row)
        print(report.progress_line(row), flush=True)
    operators: dict[str, Any] | None = None
    if not a.only:
        operators = run_operators(smoke=a.smoke, verbose=a.verbose, reps=a.runs)
    info["loadavg_end"] = os.getloadavg()
    info["runs"] = runs
    info["smoke"] = a.smoke

    if a.merge and json_path.exists():
        old = json.loads(json_path.read_text())
        fresh = {r["name"] for r in rows}
        rows = [r for r in old["rows"] if r["name"] not in fresh] + rows
        info = {**old["machine"], "rerun": info}
        if operators is None and "operators" in old:
            operators = old["operators"]
    results = {"machine": info, "rows": rows}
    if operators is not None:
        results["operators"] = operators
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"results: {json_path}")
    write_outputs(results, md_path, png_path)
    failed = [r["name"] for r in rows if "error" in r]
    if operators is not None and "error" in operators:
        failed.append("operators")
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def run_operators(*, smoke: bool, verbose: bool, reps: int = 5) -> dict[str, Any]:
    """``bench.operators`` in its own process: with this interpreter when reactivex is
    importable here (a dev dependency), else with the peers venv's, our package on the path."""
    python = sys.executable
    probe = subprocess.run([python, "-c", "import reactivex"], capture_output=True, check=False)
    if probe.returncode != 0:
        python = str(venvs.ensure("peers"))
    out = ROOT / ".bench" / ("operators-smoke.json" if smoke else "operators.json")
    cmd = [python, "-m", "bench.operators", "--json", str(out), "--reps", str(reps)]
    cmd += ["--smoke"] if smoke else []
    proc = _subprocess(cmd, str(ROOT), str(ROOT / "impl"))
    if proc is None:
        return {"error": "timed out"}
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-3:]
        if verbose:
            print(proc.stderr, file=sys.stderr)
        return {"error": " | ".join(tail) or f"rc {proc.returncode}"}
    print(proc.stdout, flush=True)
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def write_outputs(results: dict[str, Any], md_path: Path | None, png_path: Path | None) -> None:
    print()
    print(report.results_table(results))
    print()
    print(report.targets_table(results))
    if png_path is not None:
        try:
            py = venvs.ensure("peers")
            subprocess.run(
                [str(py), "-m", "bench.chart", "-", str(png_path)],
                input=json.dumps(results),
                text=True,
                cwd=ROOT,
                check=True,
                env={**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"},
            )
            print(f"chart: {png_path}")
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"chart not written: {e}", file=sys.stderr)
    if md_path is not None:
        md_path.parent.mkdir(parents=True, exist_ok=True)
        md_path.write_text(report.markdown(results, png_path, md_path))
        print(f"report: {md_path}")


if __name__ == "__main__":
    sys.exit(main())
