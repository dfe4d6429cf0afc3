#!/usr/bin/env python3
"""Run the TLC models listed in spec/models.toml and check each against its expected result.

Goals: no dependencies beyond the standard library (Python 3.11 for tomllib), one
command per set (`--set ci` for `make check`, `--set deep` for `make check-deep`), a
table that says what each model was expected to do and what it did, and a non-zero
exit status on any mismatch.

A model passes when
- expect = "pass": TLC finishes with "No error has been found" (exit status 0);
- expect = "violation": TLC reports a violation of exactly the property named in
  `violates`, with exit status 12 (invariant) or 13 (temporal property).  TLC 2.15
  does not name a violated temporal property, so a liveness must-fail model has to
  list exactly one PROPERTY in its .cfg; the runner reads the name from there.
Anything else (parse error, deadlock, a different invariant, a crash) is a failure.

Recorded distinct-state counts of passing models are compared with the run; a
drift above 1 % prints a warning (`--record` rewrites the counts in the manifest).

Usage:
    python spec/tlc.py --manifest spec/models.toml --set ci
    python spec/tlc.py rs_safety_ci            # one model by name
    python spec/tlc.py -n rs_safety_ci         # print the java command only
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path

SPEC_DIR = Path(__file__).resolve().parent
REPO_ROOT = SPEC_DIR.parent
DEFAULT_MANIFEST = SPEC_DIR / "models.toml"
DEFAULT_JAR = REPO_ROOT / ".tools" / "tla2tools.jar"

# TLC 2.15 exit statuses (tlc2.output.EC.ExitStatus), checked on this jar.
EXIT_OK = 0
EXIT_SAFETY = 12  # invariant or action property violated
EXIT_LIVENESS = 13  # temporal property violated
DRIFT = 0.01

_CFG_KEYWORDS = frozenset(
    [
        "SPECIFICATION",
        "INIT",
        "NEXT",
        "CONSTANT",
        "CONSTANTS",
        "INVARIANT",
        "INVARIANTS",
        "SYMMETRY",
        "VIEW",
        "CONSTRAINT",
        "CONSTRAINTS",
        "ACTION_CONSTRAINT",
        "ACTION_CONSTRAINTS",
    ]
)
_INVARIANT_RE = re.compile(r"^Error: Invariant (\S+) is violated")
_ACTION_PROP_RE = re.compile(r"^Error: Action property (\S+) .*is violated")
_DISTINCT_RE = re.compile(
    r"([\d,]+) states generated(?: \([^)]*\))?, ([\d,]+) distinct states found"
)


@dataclasses.dataclass(frozen=True)
class Model:
    """One [[model]] entry of the manifest."""

    name: str
    spec: str
    cfg: str
    sets: tuple[str, ...]
    expect: str
    violates: str
    states: int


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What TLC did, as parsed from its output."""

    result: str  # "pass", "violation", "deadlock", "error"
    violated: str  # invariant/property name, "" if none or unknown
    distinct: int | None
    detail: str  # first error line, for the report


def load_manifest(path: Path) -> list[Model]:
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    models = []
    for entry in data.get("model", []):
        expect = entry.get("expect", "pass")
        if expect not in ("pass", "violation"):
            raise ValueError(f"{entry.get('name')}: expect must be 'pass' or 'violation'")
        models.append(
            Model(
                name=entry["name"],
                spec=entry["spec"],
                cfg=entry["cfg"],
                sets=tuple(entry.get("sets", [])),
                expect=expect,
                violates=entry.get("violates", ""),
                states=int(entry.get("states", 0)),
            )
        )
    names = [m.name for m in models]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"duplicate model names in {path}: {sorted(dupes)}")
    return models


def cfg_properties(cfg_text: str) -> list[str]:
    """Names listed under PROPERTY/PROPERTIES in a TLC .cfg file."""
    names: list[str] = []
    in_props = False
    for raw in cfg_text.splitlines():
        line = raw.split("\\*", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        head = words[0]
        if head in ("PROPERTY", "PROPERTIES"):
            in_props = True
            names.extend(words[1:])
        elif head in _CFG_KEYWORDS:
            in_props = False
        elif in_props:
            names.extend(words)
    return names


def parse_output(text: str, exit_code: int, properties: Sequence[str] = ()) -> Outcome:
    """Classify a TLC 2.15 run from its stdout/stderr and exit status."""
    distinct = None
    for match in _DISTINCT_RE.finditer(text):
        distinct = int(match.group(2).replace(",", ""))
    first_error = next((ln for ln in text.splitlines() if ln.startswith("Error:")), "")
    for line in text.splitlines():
        inv = _INVARIANT_RE.match(line) or _ACTION_PROP_RE.match(line)
        if inv:
            return Outcome("violation", inv.group(1), distinct, line)
    if "Temporal properties were violated" in text:
        name = properties[0] if len(properties) == 1 else ""
        return Outcome("violation", name, distinct, first_error)
    if "Deadlock reached" in text:
        return Outcome("deadlock", "", distinct, first_error)
    if exit_code == EXIT_OK and "No error has been found" in text:
        return Outcome("pass", "", distinct, "")
    detail = first_error
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("The exception was"):  # say which exception and why
            detail = " ".join([detail, *(ln.strip() for ln in lines[i : i + 3])]).strip()
            break
    if not detail:
        markers = ("***Parse Error***", "Semantic error", "Fatal error", "Exception")
        detail = next((ln for ln in text.splitlines() if any(m in ln for m in markers)), "")
    return Outcome("error", "", distinct, detail or f"TLC exit status {exit_code}")


def judge(model: Model, outcome: Outcome, exit_code: int) -> tuple[bool, str]:
    """(matches expectation, explanation)."""
    if model.expect == "pass":
        if outcome.result == "pass" and exit_code == EXIT_OK:
            return True, "ok"
        return False, f"expected pass, got {outcome.result}: {outcome.detail}"
    if outcome.result != "violation":
        return False, f"expected violation of {model.violates}, got {outcome.result}"
    if exit_code not in (EXIT_SAFETY, EXIT_LIVENESS):
        return False, f"violation reported with unexpected exit status {exit_code}"
    if outcome.violated != model.violates:
        got = outcome.violated or "an unnamed property"
        return False, f"expected violation of {model.violates}, got {got}"
    return True, "ok"


def java_command(model: Model, jar: Path, metadir: Path, workers: int) -> list[str]:
    return [
        "java",
        "-XX:+UseParallelGC",
        "-Xmx6g",
        "-cp",
        str(jar),
        "tlc2.TLC",
        "-workers",
        str(workers),  # TLC 2.15 has no "-workers auto"
        "-deadlock",
        "-metadir",
        str(metadir),
        "-config",
        model.cfg,  # TLC 2.15 needs the .cfg path relative to the working directory
        f"{model.spec}.tla",
    ]


def run_model(
    model: Model, jar: Path, workers: int, timeout: float, keep: Path | None
) -> tuple[Outcome, int, float]:
    with tempfile.TemporaryDirectory(prefix="tlc-") as tmp:
        metadir = Path(tmp) / "states"
        cmd = java_command(model, jar, metadir, workers)
        start = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                cwd=SPEC_DIR,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            text, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout or b""
            text = out.decode() if isinstance(out, bytes) else out
            elapsed = time.monotonic() - start
            return Outcome("error", "", None, f"timeout after {timeout:.0f} s"), -1, elapsed
        elapsed = time.monotonic() - start
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{model.name}.out").write_text(text)
    props = cfg_properties((SPEC_DIR / model.cfg).read_text())
    return parse_output(text, code, props), code, elapsed


def record_states(manifest: Path, counts: dict[str, int]) -> None:
    """Rewrite `states = N` of the named models, leaving the rest of the file as is."""
    lines = manifest.read_text().splitlines(keepends=True)
    current = None
    for i, line in enumerate(lines):
        name = re.match(r'\s*name\s*=\s*"([^"]+)"', line)
        if name:
            current = name.group(1)
        elif current in counts and re.match(r"\s*states\s*=", line):
            lines[i] = re.sub(r"=\s*\d+", f"= {counts[current]}", line, count=1)
    manifest.write_text("".join(lines))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("models", nargs="*", help="model names to run (default: the --set)")
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--set", dest="set_name", help='run every model of this set ("ci", "deep")')
    ap.add_argument("--jar", type=Path, default=DEFAULT_JAR, help="tla2tools.jar (TLC 2.15)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per model")
    ap.add_argument("-n", "--dry-run", action="store_true", help="print the java commands")
    ap.add_argument("--record", action="store_true", help="write distinct-state counts back")
    ap.add_argument("--keep", type=Path, help="save each model's TLC output in this directory")
    args = ap.parse_args(argv)

    models = load_manifest(args.manifest)
    by_name = {m.name: m for m in models}
    if args.models:
        unknown = [n for n in args.models if n not in by_name]
        if unknown:
            ap.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(by_name)}")
        chosen = [by_name[n] for n in args.models]
    elif args.set_name:
        chosen = [m for m in models if args.set_name in m.sets]
        if not chosen:
            ap.error(f"no model in set {args.set_name!r}")
    else:
        ap.error("name a model or pass --set")

    jar = args.jar if args.jar.is_absolute() else (Path.cwd() / args.jar)
    if args.dry_run:
        for m in chosen:
            cmd = java_command(m, jar, Path(tempfile.gettempdir()) / "tlc-states", args.workers)
            print(f"(cd {shlex.quote(str(SPEC_DIR))} && {shlex.join(cmd)})")
        return 0
    if not jar.is_file():
        print(f"tlc.py: {jar} not found (run tools/bootstrap.sh)", file=sys.stderr)
        return 2

    header = f"{'model':<36} {'expected':<44} {'result':<44} {'states':>11} {'secs':>7}"
    print(header)
    print("-" * len(header))
    failures, counts = 0, {}
    for m in chosen:
        outcome, code, secs = run_model(m, jar, args.workers, args.timeout, args.keep)
        ok, why = judge(m, outcome, code)
        expected = "pass" if m.expect == "pass" else f"violates {m.violates}"
        result = outcome.result if not outcome.violated else f"violates {outcome.violated}"
        states = "-" if outcome.distinct is None else f"{outcome.distinct:,}"
        mark = "" if ok else "  <-- MISMATCH"
        print(f"{m.name:<36} {expected:<44} {result:<44} {states:>11} {secs:7.1f}{mark}")
        sys.stdout.flush()
        if not ok:
            failures += 1
            print(f"    {why}")
        elif m.expect == "pass" and outcome.distinct is not None:
            counts[m.name] = outcome.distinct
            if m.states and abs(outcome.distinct - m.states) > DRIFT * m.states:
                print(f"    warning: {outcome.distinct:,} distinct states, recorded {m.states:,}")
    if args.record and counts:
        record_states(args.manifest, counts)
        print(f"recorded state counts of {len(counts)} model(s) in {args.manifest}")
    total = len(chosen)
    print(f"{total - failures}/{total} models as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
