#!/usr/bin/env python3
"""Run the TLC models and the spec mutations listed in spec/models.toml.

Goals: no dependencies beyond the standard library (Python 3.11 for tomllib), one
command per set (`--set ci` for `make check`, `--set deep` for `make check-deep`), the
.cfg files rendered from the manifest instead of kept as near-copies, a table that says
what each model was expected to do and what it did, and a non-zero exit status on any
mismatch.

The manifest has three kinds of tables:
- `[spec.<Name>]`: the module TLC runs (`MC<Name>`), its SPECIFICATION, and the full
  lists of invariants and properties.  Every rendered model checks all of them unless
  it says `properties = false` (safety only).
- `[[model]]`: constants, sets, the expected result and, for passing models, the
  recorded distinct-state count; `coverage = false` leaves a model out of the action
  coverage (TLC's -coverage roughly doubles a large model's time, and the small models
  take every action).  An entry with `cfg = "models/x.cfg"` runs that
  hand-written .cfg instead.  TLC checks for deadlock unless the entry says
  `deadlock = true` with a `deadlock_reason`.
- `[[mutation]]`: one deliberate defect (`override`, normative operator -> Mut_*
  operator of the MC module) and the model that must catch it.  It runs with the sets
  of its model (kill models are ci models) unless it names its own `sets` (e.g.
  `["deep"]`: a costly row whose target another ci row catches alone).  A passing kill model
  keeps every invariant and property of its spec; any violation or deadlock counts as
  caught.  A witness model (expect = "violation" of a `~(legal situation)` witness)
  catches a stricter spec: the mutation is caught when the witness is no longer
  violated (TLC passes, or deadlocks).  A mutation with `equivalent = "<reason>"` is
  a reading shown equivalent: it must pass with the unmutated model's recorded
  state count.  Every other mutation names what must catch it, `catches = "<name>"`:
  an invariant or property of its spec (its target: the kill table fails when TLC
  reports another), the witness of its witness model, or "deadlock".  TLC 2.15 does not
  name a violated temporal property when several are checked; the runner then checks
  the mutation once more with that one property (and every invariant) to name it.

A model passes when
- expect = "pass": TLC finishes with "No error has been found" (exit status 0);
- expect = "violation": TLC reports a violation of exactly the property named in
  `violates`, with exit status 12 (invariant) or 13 (temporal property).  TLC 2.15
  does not name a violated temporal property, so such a model must check exactly one
  PROPERTY; the runner reads the name from the .cfg.
Anything else (parse error, deadlock, a different invariant, a crash) is a failure.

Usage:
    python spec/tlc.py --set ci                  # models, kill table, action coverage
    python spec/tlc.py rs_async_safety           # one model by name
    python spec/tlc.py --mutation extra_on_next  # one mutation
    python spec/tlc.py -n rs_async_safety        # print the cfg and the java command
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

SPEC_DIR = Path(__file__).resolve().parent
REPO_ROOT = SPEC_DIR.parent
DEFAULT_MANIFEST = SPEC_DIR / "models.toml"
DEFAULT_JAR = REPO_ROOT / ".tools" / "tla2tools.jar"

# TLC 2.15 exit statuses (tlc2.output.EC.ExitStatus), checked on this jar.
EXIT_OK = 0
EXIT_SAFETY = 12  # invariant or action property violated
EXIT_LIVENESS = 13  # temporal property violated
EXIT_DEADLOCK = 11
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
# A property's `[]P` conjunct TLC checks as an invariant, named by its place in the module.
_LOCATED_RE = re.compile(r"^Error: Invariant line (\d+), col \d+ to .* of module (\w+) is violated")
_ACTION_PROP_RE = re.compile(r"^Error: Action property (\S+) .*is violated")
_DISTINCT_RE = re.compile(
    r"([\d,]+) states generated(?: \([^)]*\))?, ([\d,]+) distinct states found"
)
# Failures TLC 2.15 shows on a loaded machine that the next run does not: a parse of a
# module that parses ("Module-Table lookup failure"), and a states directory named by the
# clock that "already exists" (TLC's own text says to run it again).
_TRANSIENT = ("Parsing or semantic analysis failed", "Trying to run TLC again will probably fix")
_COVERAGE_RE = re.compile(r"^<(\w+) line \d+, col \d+ to .* of module (\w+)>: (\d+):(\d+)")


@dataclasses.dataclass(frozen=True)
class SpecDefaults:
    """One [spec.<Name>] table: what every rendered model of that spec checks."""

    name: str
    module: str
    specification: str
    invariants: tuple[str, ...]
    properties: tuple[str, ...]
    # ...Inv/...Prop that others imply, so no mutation can break it alone -> why
    implied: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Model:
    """One [[model]] entry of the manifest (cfg: hand-written .cfg, or "" = rendered)."""

    name: str
    spec: str
    cfg: str
    sets: tuple[str, ...]
    expect: str
    violates: str
    states: int
    constants: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    check_properties: bool = True
    invariants: tuple[str, ...] | None = None  # None: all invariants of the spec
    properties: tuple[str, ...] | None = None  # None: all (if check_properties)
    extra: tuple[str, ...] = ()  # raw .cfg lines (e.g. "SYMMETRY Symmetry")
    overrides: Mapping[str, str] = dataclasses.field(default_factory=dict)
    deadlock: bool = False  # True: run with -deadlock (no deadlock check)
    deadlock_reason: str = ""
    note: str = ""
    coverage: bool = True  # False: never run with -coverage


@dataclasses.dataclass(frozen=True)
class Mutation:
    """One [[mutation]] entry: a defect and the model that must catch it."""

    name: str
    rule: str
    what: str
    model: str
    override: Mapping[str, str]
    equivalent: str = ""  # the reason it is equivalent ("": it must be caught)
    catches: str = ""  # the invariant/property, witness or "deadlock" that catches it
    sets: tuple[str, ...] = ()  # the sets it runs in (): its model's


# The set whose kill table must catch every ...Inv/...Prop alone (`make check`); other
# sets' mutations only add rows.
GUARD_SET = "ci"


@dataclasses.dataclass(frozen=True)
class Manifest:
    specs: Mapping[str, SpecDefaults]
    models: tuple[Model, ...]
    mutations: tuple[Mutation, ...]

    def model(self, name: str) -> Model:
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(name)

    def mutation_sets(self, mut: Mutation) -> tuple[str, ...]:
        """The sets `mut` runs in: its own, or else its model's."""
        return mut.sets or self.model(mut.model).sets


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What TLC did, as parsed from its output."""

    result: str  # "pass", "violation", "deadlock", "error"
    violated: str  # invariant/property name, "" if none or unknown
    distinct: int | None
    detail: str  # first error line, for the report
    coverage: Mapping[str, int] = dataclasses.field(default_factory=dict)  # action -> steps
    alone: bool = False  # a mutation's target caught it and nothing else it checks did


class ManifestError(ValueError):
    pass


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def load_manifest(path: Path) -> Manifest:
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    specs = {}
    for name, entry in data.get("spec", {}).items():
        specs[name] = SpecDefaults(
            name=name,
            module=entry.get("module", name),
            specification=entry.get("specification", "Spec"),
            invariants=_strings(entry, "invariants", f"spec.{name}"),
            properties=_strings(entry, "properties", f"spec.{name}"),
            implied=dict(entry.get("implied", {})),
        )
        unknown = set(specs[name].implied) - {*specs[name].invariants, *specs[name].properties}
        if unknown:
            raise ManifestError(f"spec.{name}: implied names unchecked {sorted(unknown)}")
    models = []
    for entry in data.get("model", []):
        name = entry.get("name", "?")
        expect = entry.get("expect", "pass")
        if expect not in ("pass", "violation"):
            raise ManifestError(f"{name}: expect must be 'pass' or 'violation'")
        cfg = entry.get("cfg", "")
        if not cfg and entry["spec"] not in specs:
            raise ManifestError(f"{name}: no cfg and no [spec.{entry['spec']}] to render one")
        deadlock = bool(entry.get("deadlock", False))
        reason = entry.get("deadlock_reason", "")
        if deadlock and not reason:
            raise ManifestError(f"{name}: deadlock = true needs a deadlock_reason")
        invs = entry.get("invariants")
        props = entry.get("properties")
        check_props = True
        if isinstance(props, bool):
            check_props, props = props, None
        models.append(
            Model(
                name=name,
                spec=entry["spec"],
                cfg=cfg,
                sets=tuple(entry.get("sets", [])),
                expect=expect,
                violates=entry.get("violates", ""),
                states=int(entry.get("states", 0)),
                constants=dict(entry.get("constants", {})),
                check_properties=check_props,
                invariants=None if invs is None else _strings(entry, "invariants", name),
                properties=None if props is None else _strings(entry, "properties", name),
                extra=_strings(entry, "extra", name),
                overrides=dict(entry.get("overrides", {})),
                deadlock=deadlock,
                deadlock_reason=reason,
                note=entry.get("note", ""),
                coverage=bool(entry.get("coverage", True)),
            )
        )
    names = [m.name for m in models]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ManifestError(f"duplicate model names in {path}: {sorted(dupes)}")
    mutations = []
    for entry in data.get("mutation", []):
        mut = Mutation(
            name=entry["name"],
            rule=entry.get("rule", ""),
            what=entry.get("what", ""),
            model=entry["model"],
            override=dict(entry["override"]),
            equivalent=entry.get("equivalent", ""),
            catches=entry.get("catches", ""),
            sets=_strings(entry, "sets", f"mutation {entry['name']}"),
        )
        if not mut.equivalent and not mut.catches:
            raise ManifestError(f"mutation {mut.name}: say what catches it (catches = ...)")
        if mut.model not in names:
            raise ManifestError(f"mutation {mut.name}: unknown model {mut.model}")
        mutations.append(mut)
    mnames = [m.name for m in mutations]
    if len(set(mnames)) != len(mnames):
        raise ManifestError(f"duplicate mutation names in {path}")
    return Manifest(specs, tuple(models), tuple(mutations))


def tla_value(value: Any) -> str:
    """A manifest constant as .cfg text: bools and ints as TLA+, strings verbatim."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if value < 0:
            raise ManifestError(f"TLC 2.15 .cfg files have no negative literals: {value}")
        return str(value)
    if isinstance(value, str):
        return value
    raise ManifestError(f"unsupported constant value {value!r}")


def checked(model: Model, specs: Mapping[str, SpecDefaults]) -> tuple[list[str], list[str]]:
    """(invariants, properties) a rendered model checks."""
    defaults = specs[model.spec]
    invs = list(defaults.invariants if model.invariants is None else model.invariants)
    if not model.check_properties:
        return invs, []
    props = list(defaults.properties if model.properties is None else model.properties)
    return invs, props


def render_cfg(
    model: Model, specs: Mapping[str, SpecDefaults], override: Mapping[str, str] | None = None
) -> str:
    """The .cfg text of a rendered model, with optional operator overrides."""
    defaults = specs[model.spec]
    invs, props = checked(model, specs)
    lines = [f"\\* {model.name}: generated by spec/tlc.py from spec/models.toml."]
    if model.note:
        lines.append(f"\\* {model.note}")
    lines.append(f"SPECIFICATION {defaults.specification}")
    lines.append("CONSTANTS")
    for key, value in model.constants.items():
        lines.append(f"    {key} = {tla_value(value)}")
    for op, replacement in {**model.overrides, **(override or {})}.items():
        lines.append(f"    {op} <- {replacement}")
    lines.extend(model.extra)
    if invs:
        lines.append("INVARIANTS")
        lines.extend(f"    {name}" for name in invs)
    if props:
        lines.append("PROPERTIES")
        lines.extend(f"    {name}" for name in props)
    return "\n".join(lines) + "\n"


def cfg_text(model: Model, manifest: Manifest, override: Mapping[str, str] | None = None) -> str:
    if model.cfg:
        if override:
            raise ManifestError(f"{model.name}: a hand-written cfg cannot take a mutation")
        return (SPEC_DIR / model.cfg).read_text()
    return render_cfg(model, manifest.specs, override)


def tla_module(model: Model, manifest: Manifest) -> str:
    if model.cfg:
        return model.spec
    return manifest.specs[model.spec].module


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


def parse_coverage(text: str) -> dict[str, int]:
    """Action name -> states generated by it, from the last `-coverage` report."""
    coverage: dict[str, int] = {}
    for line in text.splitlines():
        match = _COVERAGE_RE.match(line)
        if match:
            coverage[match.group(1)] = int(match.group(4))
    return coverage


def enclosing_definition(module: str, line: int, names: Sequence[str]) -> str:
    """The definition of `names` in spec/<module>.tla whose text holds `line` ("" if none)."""
    path = SPEC_DIR / f"{module}.tla"
    if not path.is_file():
        return ""
    found = ""
    for text in path.read_text().splitlines()[:line]:
        match = re.match(r"(\w+)\s*==", text)
        if match:
            found = match.group(1) if match.group(1) in names else ""
    return found


def parse_output(text: str, exit_code: int, properties: Sequence[str] = ()) -> Outcome:
    """Classify a TLC 2.15 run from its stdout/stderr and exit status."""
    distinct = None
    for match in _DISTINCT_RE.finditer(text):
        distinct = int(match.group(2).replace(",", ""))
    coverage = parse_coverage(text)
    first_error = next((ln for ln in text.splitlines() if ln.startswith("Error:")), "")
    for line in text.splitlines():
        located = _LOCATED_RE.match(line)
        if located:  # a property's []P conjunct: name the property that holds it
            name = enclosing_definition(located.group(2), int(located.group(1)), properties)
            return Outcome("violation", name, distinct, line, coverage)
        inv = _INVARIANT_RE.match(line) or _ACTION_PROP_RE.match(line)
        if inv:
            return Outcome("violation", inv.group(1), distinct, line, coverage)
    if "Temporal properties were violated" in text:
        name = properties[0] if len(properties) == 1 else ""
        return Outcome("violation", name, distinct, first_error, coverage)
    if "Deadlock reached" in text:
        return Outcome("deadlock", "", distinct, first_error, coverage)
    if exit_code == EXIT_OK and "No error has been found" in text:
        return Outcome("pass", "", distinct, "", coverage)
    detail = first_error
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("The exception was"):  # say which exception and why
            detail = " ".join([detail, *(ln.strip() for ln in lines[i : i + 3])]).strip()
            break
    if not detail:
        markers = ("***Parse Error***", "Semantic error", "Fatal error", "Exception")
        detail = next((ln for ln in text.splitlines() if any(m in ln for m in markers)), "")
    return Outcome("error", "", distinct, detail or f"TLC exit status {exit_code}", coverage)


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


def caught_by(outcome: Outcome, exit_code: int) -> str:
    """What caught a mutation ("" if it survived or TLC failed to run)."""
    if outcome.result == "violation" and exit_code in (EXIT_SAFETY, EXIT_LIVENESS):
        return outcome.violated or "a temporal property"
    if outcome.result == "deadlock":
        return "deadlock"
    return ""


def java_command(
    module: str, cfg: str, jar: Path, metadir: Path, workers: int, deadlock: bool, coverage: bool
) -> list[str]:
    # TLC writes the standard modules it parses into java.io.tmpdir: one per run, so
    # two runs at a time never read each other's half-written Naturals.tla
    cmd = ["java", "-XX:+UseParallelGC", "-Xmx4g", f"-Djava.io.tmpdir={metadir.parent}"]
    cmd += ["-cp", str(jar), "tlc2.TLC", "-workers", str(workers)]  # no "-workers auto" in 2.15
    if deadlock:
        cmd.append("-deadlock")  # the model terminates by design (manifest says why)
    if coverage:
        cmd += ["-coverage", "60"]  # TLC prints the action coverage at the end
    cmd += ["-metadir", str(metadir), "-config", cfg, f"{module}.tla"]
    return cmd


def run_tlc(
    model: Model,
    manifest: Manifest,
    jar: Path,
    workers: int,
    timeout: float,
    keep: Path | None,
    override: Mapping[str, str] | None = None,
    label: str = "",
    coverage: bool = False,
) -> tuple[Outcome, int, float]:
    label = label or model.name
    text_cfg = cfg_text(model, manifest, override)
    props = cfg_properties(text_cfg)
    module = tla_module(model, manifest)
    with tempfile.TemporaryDirectory(prefix="tlc-") as tmp:
        cfg_path = Path(tmp) / f"{label}.cfg"
        cfg_path.write_text(text_cfg)
        cmd = java_command(
            module, str(cfg_path), jar, Path(tmp) / "states", workers, model.deadlock, coverage
        )
        start = time.monotonic()
        for attempt in (1, 2, 3):
            shutil.rmtree(Path(tmp) / "states", ignore_errors=True)
            try:
                proc = subprocess.run(
                    cmd, cwd=SPEC_DIR, capture_output=True, text=True, timeout=timeout, check=False
                )
                text, code = proc.stdout + proc.stderr, proc.returncode
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - start
                return Outcome("error", "", None, f"timeout after {timeout:.0f} s"), -1, elapsed
            # a real parse error fails every attempt
            if attempt < 3 and any(t in text for t in _TRANSIENT):
                continue
            break
        elapsed = time.monotonic() - start
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{label}.out").write_text(text)
        (keep / f"{label}.cfg").write_text(text_cfg)
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


def mutation_verdict(mut: Mutation, model: Model, outcome: Outcome, exit_code: int) -> str:
    """What caught `mut` on `model`, "" if it survived; for an equivalent mutation a
    non-empty verdict says the equivalence held (pass, same state count)."""
    if mut.equivalent:
        same = outcome.result == "pass" and exit_code == EXIT_OK
        if same and outcome.distinct is not None and outcome.distinct == model.states:
            return f"equivalent ({outcome.distinct:,} states, as unmutated)"
        return ""
    if model.expect == "violation":  # a witness: a stricter spec no longer reaches it
        if outcome.result == "pass" and exit_code == EXIT_OK:
            return f"{model.violates} unreachable"
        if outcome.result == "deadlock":
            return "deadlock"
        return ""
    return caught_by(outcome, exit_code)


def off_target(mut: Mutation, verdict: str) -> str:
    """Why `verdict` is not the catch `mut` names ("" if it is, or names none)."""
    if not mut.catches or not verdict or mut.equivalent:
        return ""
    if verdict in (mut.catches, f"{mut.catches} unreachable"):
        return ""
    return f"caught by {verdict}, not by its target {mut.catches}"


def check_kill_model(model: Model, manifest: Manifest) -> str:
    """Why `model` cannot judge mutations ("" if it can): it must check everything,
    or be a rendered witness model (expect = "violation")."""
    if model.cfg:
        return "a hand-written cfg"
    if "ci" not in model.sets:
        return "not a ci model"
    if model.expect == "violation":
        return "" if model.violates else "a witness model names no witness"
    if model.expect != "pass":
        return "not a passing model"
    defaults = manifest.specs[model.spec]
    invs, props = checked(model, manifest.specs)
    if set(invs) != set(defaults.invariants) or set(props) != set(defaults.properties):
        return "does not check every invariant and property"
    return ""


def _parallel(
    fn: Callable[[T], tuple[Outcome, int, float]], items: Sequence[T], jobs: int
) -> Iterator[tuple[Outcome, int, float]]:
    """fn over items, `jobs` TLC processes at a time, results in the order of items."""
    if jobs <= 1:
        yield from map(fn, items)
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(fn, items)


def run_models(args: argparse.Namespace, manifest: Manifest, chosen: Sequence[Model]) -> int:
    header = f"{'model':<34} {'expected':<42} {'result':<42} {'states':>10} {'secs':>6}"
    print(header)
    print("-" * len(header))
    failures, counts = 0, {}
    coverage: dict[str, dict[str, int]] = {}

    def one(m: Model) -> tuple[Outcome, int, float]:
        want_cov = args.coverage and not m.cfg and m.expect == "pass" and m.coverage
        return run_tlc(
            m, manifest, args.jar, args.workers, args.timeout, args.keep, coverage=want_cov
        )

    for m, (outcome, code, secs) in zip(chosen, _parallel(one, chosen, args.jobs), strict=True):
        want_cov = args.coverage and not m.cfg and m.expect == "pass" and m.coverage
        ok, why = judge(m, outcome, code)
        expected = "pass" if m.expect == "pass" else f"violates {m.violates}"
        result = outcome.result if not outcome.violated else f"violates {outcome.violated}"
        states = "-" if outcome.distinct is None else f"{outcome.distinct:,}"
        mark = "" if ok else "  <-- MISMATCH"
        print(f"{m.name:<34} {expected:<42} {result:<42} {states:>10} {secs:6.1f}{mark}")
        sys.stdout.flush()
        if not ok:
            failures += 1
            print(f"    {why}")
        elif m.expect == "pass" and outcome.distinct is not None:
            counts[m.name] = outcome.distinct
            if m.states and abs(outcome.distinct - m.states) > DRIFT * m.states:
                print(f"    warning: {outcome.distinct:,} distinct states, recorded {m.states:,}")
        if want_cov and outcome.coverage:
            spec_cov = coverage.setdefault(m.spec, {})
            for action, steps in outcome.coverage.items():
                spec_cov[action] = spec_cov.get(action, 0) + steps
    if args.record and counts:
        record_states(args.manifest, counts)
        print(f"recorded state counts of {len(counts)} model(s) in {args.manifest}")
    total = len(chosen)
    print(f"{total - failures}/{total} models as expected")
    if coverage:
        failures += print_coverage(coverage)
    return failures


def print_coverage(coverage: Mapping[str, Mapping[str, int]]) -> int:
    """Print the action coverage per spec; the number of actions never taken."""
    print()
    print("Action coverage (TLC -coverage, states generated per action, summed over models)")
    missing = 0
    for spec, actions in sorted(coverage.items()):
        taken = sorted(a for a, n in actions.items() if n > 0)
        never = sorted(a for a, n in actions.items() if n == 0)
        missing += len(never)
        print(f"  {spec}: {len(taken)}/{len(actions)} actions taken")
        print("    " + ", ".join(f"{a} {actions[a]:,}" for a in taken))
        if never:
            print(f"    NEVER TAKEN: {', '.join(never)}")
    return missing


def run_mutations(
    args: argparse.Namespace,
    manifest: Manifest,
    chosen: Sequence[Mutation],
    whole_set: bool = False,
) -> int:
    print()
    print("Spec-mutation kill table (every invariant and property of the model enabled)")
    header = f"{'mutation':<38} {'rule':<5} {'model':<36} {'caught by':<44} {'states':>8} {'s':>5}"
    print(header)
    print("-" * len(header))
    failures = 0
    sole: set[tuple[str, str]] = set()  # (spec, target) of a mutation caught by it alone
    unfit = {mut.name: check_kill_model(manifest.model(mut.model), manifest) for mut in chosen}

    def one(mut: Mutation) -> tuple[Outcome, int, float]:
        if unfit[mut.name]:
            return Outcome("error", "", None, f"model unfit: {unfit[mut.name]}"), -1, 0.0
        model = target_last(manifest.model(mut.model), manifest, mut.catches)

        def run(m: Model, label: str) -> tuple[Outcome, int, float]:
            return run_tlc(
                m,
                manifest,
                args.jar,
                args.workers,
                args.timeout,
                args.keep,
                override=mut.override,
                label=label,
            )

        _, props = checked(model, manifest.specs)
        if model.expect == "pass" and is_temporal(mut.catches, model, manifest):
            return temporal_catch(mut, model, props, run)
        outcome, code, secs = run(model, f"mutation_{mut.name}")
        if model.expect != "pass":
            return outcome, code, secs
        verdict = caught_by(outcome, code)
        if verdict == mut.catches:
            # reported although listed last: at the first violating state nothing
            # else it checks broke
            return dataclasses.replace(outcome, alone=True), code, secs
        if verdict not in ("", "deadlock", "a temporal property"):
            # another broke first: is the target reported in the spec's own order?
            again, code, more = run(manifest.model(mut.model), f"mutation_{mut.name}_in_order")
            return again, code, secs + more
        if caught_by(outcome, code) == "a temporal property" and mut.catches in props:
            # TLC 2.15 names none of several: without the target, does anything break?
            rest = tuple(p for p in props if p != mut.catches)
            others, code2, more = run(
                dataclasses.replace(model, properties=rest), f"mutation_{mut.name}_others"
            )
            secs += more
            if caught_by(others, code2) == "":
                named = dataclasses.replace(
                    outcome, result="violation", violated=mut.catches, alone=True
                )
                return named, EXIT_LIVENESS, secs
            # something else breaks too: is the target among them?
            named, code, more = run(
                dataclasses.replace(model, properties=(mut.catches,)),
                f"mutation_{mut.name}_{mut.catches}",
            )
            if caught_by(named, code) == "":  # another property broke, not this one
                named = dataclasses.replace(named, result="violation", violated="another property")
                code = EXIT_LIVENESS
            outcome, secs = dataclasses.replace(named, distinct=outcome.distinct), secs + more
        return outcome, code, secs

    for mut, (outcome, code, secs) in zip(chosen, _parallel(one, chosen, args.jobs), strict=True):
        verdict = mutation_verdict(mut, manifest.model(mut.model), outcome, code)
        miss = off_target(mut, verdict)
        who = "" if miss else verdict
        states = "-" if outcome.distinct is None else f"{outcome.distinct:,}"
        if who:
            shown = who
        elif miss:
            shown = f"OFF TARGET ({verdict}, not {mut.catches})"
        elif mut.equivalent:
            shown = f"NOT EQUIVALENT ({outcome.result}, {states} states)"
        elif outcome.result in ("pass", "violation"):
            shown = "SURVIVED"
        else:
            shown = f"ERROR ({outcome.detail})"
        mark = "" if who else "  <-- MISMATCH"
        if who and outcome.alone:
            shown += " (alone)"
            sole.add((manifest.model(mut.model).spec, mut.catches))
        print(
            f"{mut.name:<38} {mut.rule:<5} {mut.model:<36} {shown:<44} {states:>8} {secs:5.1f}"
            + mark
        )
        sys.stdout.flush()
        if not who:
            failures += 1
    equivalent = sum(1 for mut in chosen if mut.equivalent)
    print(
        f"{len(chosen) - failures}/{len(chosen)} mutations caught"
        + (f" ({equivalent} shown equivalent)" if equivalent else "")
    )
    if whole_set:
        spared = unguarded(manifest, chosen, sole)
        if spared:
            print(
                "no mutation is caught by these alone (every ...Inv/...Prop must be): "
                + ", ".join(spared)
            )
        failures += len(spared)
    return failures


def definition(name: str, paths: Sequence[Path]) -> str:
    """The text of `name ==` in the first of `paths` that defines it, up to the next
    top-level definition or blank line ("" if none)."""
    for path in paths:
        lines = path.read_text().splitlines() if path.is_file() else []
        for i, line in enumerate(lines):
            if re.match(rf"{re.escape(name)}\s*==", line):
                body = [line]
                for more in lines[i + 1 :]:
                    if not more.strip() or re.match(r"\w+.*==", more):
                        break
                    body.append(more)
                return "\n".join(body)
    return ""


def is_temporal(name: str, model: Model, manifest: Manifest) -> bool:
    """Whether `name` is a property with a ~> or <> (TLC 2.15 names no violation of it)."""
    _, props = checked(model, manifest.specs)
    if name not in props:
        return False
    modules = (SPEC_DIR / f"{model.spec}.tla", SPEC_DIR / f"{tla_module(model, manifest)}.tla")
    text = definition(name, modules)
    return "~>" in text or "<>" in text


RunFn = Callable[[Model, str], tuple[Outcome, int, float]]


def temporal_catch(
    mut: Mutation, model: Model, props: Sequence[str], run: RunFn
) -> tuple[Outcome, int, float]:
    """A temporal target, which TLC does not name among several: one run without it
    (does anything else catch the mutation?), then one with it alone (and every
    invariant), which names it.  Caught alone iff the first passes and the second fails;
    two runs of about one property set together, not a run of all and one of the rest."""
    rest = tuple(p for p in props if p != mut.catches)
    others, code, secs = run(
        dataclasses.replace(model, properties=rest), f"mutation_{mut.name}_others"
    )
    if caught_by(others, code) not in ("", "a temporal property"):
        return others, code, secs  # an invariant, action property or deadlock of the rest
    named, code2, more = run(
        dataclasses.replace(model, properties=(mut.catches,)), f"mutation_{mut.name}_{mut.catches}"
    )
    named = dataclasses.replace(named, distinct=named.distinct or others.distinct)
    if caught_by(named, code2) == mut.catches:
        return dataclasses.replace(named, alone=caught_by(others, code) == ""), code2, secs + more
    if caught_by(others, code) == "":
        return named, code2, secs + more  # nothing catches it: it survived
    # another property broke, not this one
    return (
        dataclasses.replace(named, result="violation", violated="another property"),
        EXIT_LIVENESS,
        secs + more,
    )


def target_last(model: Model, manifest: Manifest, target: str) -> Model:
    """`model` with `target` checked after every other invariant or property but those
    others imply (`implied`, which break with what implies them), so that a violation
    TLC reports of it means nothing else broke first."""
    if model.cfg or model.expect != "pass":
        return model
    invs, props = checked(model, manifest.specs)
    implied = manifest.specs[model.spec].implied

    def ordered(names: Sequence[str]) -> tuple[str, ...]:
        rest = [n for n in names if n != target]
        return (*(n for n in rest if n not in implied), target, *(n for n in rest if n in implied))

    if target in invs:
        return dataclasses.replace(model, invariants=ordered(invs))
    if target in props:
        return dataclasses.replace(model, properties=ordered(props))
    return model


def guarded_names(manifest: Manifest, specs: set[str]) -> list[tuple[str, str]]:
    """(spec, name) of the ...Inv/...Prop of these specs that need a mutation only they
    catch: all but those the [spec] table says others imply."""
    names = []
    for spec in sorted(specs):
        defaults = manifest.specs.get(spec)
        if defaults is None:
            continue
        for name in (*defaults.invariants, *defaults.properties):
            if name.endswith(("Inv", "Prop")) and name not in defaults.implied:
                names.append((spec, name))
    return names


def unguarded(
    manifest: Manifest, chosen: Sequence[Mutation], sole: set[tuple[str, str]]
) -> list[str]:
    """The ...Inv/...Prop of the specs these mutations mutate that none of them is caught
    by alone.  A must-fail model with a hand-written .cfg (``cfg =`` in the manifest) of
    one of these sets would stand for a mutation of the property it violates; every model
    is rendered from spec/models.toml today, so only the mutations count."""
    models = [manifest.model(name) for name in sorted({mut.model for mut in chosen})]
    sets = {s for m in models for s in m.sets}
    variants = {
        (m.spec, m.violates)
        for m in manifest.models
        if m.cfg and m.expect == "violation" and sets & set(m.sets)
    }
    names = guarded_names(manifest, {m.spec for m in models})
    return [f"{spec}.{name}" for spec, name in names if (spec, name) not in sole | variants]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("models", nargs="*", help="model names to run (default: the --set)")
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--set", dest="set_name", help='run every model of this set ("ci", "deep")')
    ap.add_argument("--mutation", action="append", default=[], help="run this mutation")
    ap.add_argument("--no-mutations", action="store_true", help="skip the kill table")
    ap.add_argument("--mutations-only", action="store_true", help="only the set's kill table")
    ap.add_argument("--coverage", action="store_true", help="report TLC action coverage")
    ap.add_argument("--jar", type=Path, default=DEFAULT_JAR, help="tla2tools.jar (TLC 2.15)")
    ap.add_argument("--workers", type=int, default=1, help="TLC workers per run")
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="TLC runs at a time (one per core)"
    )
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per model")
    ap.add_argument("-n", "--dry-run", action="store_true", help="print cfgs and java commands")
    ap.add_argument("--record", action="store_true", help="write distinct-state counts back")
    ap.add_argument("--keep", type=Path, help="save each run's cfg and TLC output here")
    args = ap.parse_args(argv)

    try:
        manifest = load_manifest(args.manifest)
    except (ManifestError, KeyError) as exc:
        print(f"tlc.py: {args.manifest}: {exc}", file=sys.stderr)
        return 2
    by_name = {m.name: m for m in manifest.models}
    muts = {m.name: m for m in manifest.mutations}
    chosen_muts: list[Mutation] = []
    if args.models or args.mutation:
        unknown = [n for n in args.models if n not in by_name]
        unknown += [n for n in args.mutation if n not in muts]
        if unknown:
            ap.error(f"unknown model(s)/mutation(s): {', '.join(unknown)}")
        chosen = [by_name[n] for n in args.models]
        chosen_muts = [muts[n] for n in args.mutation]
    elif args.set_name:
        chosen = [m for m in manifest.models if args.set_name in m.sets]
        if not chosen:
            ap.error(f"no model in set {args.set_name!r}")
        if args.mutations_only:
            chosen_muts = [
                mu for mu in manifest.mutations if args.set_name in manifest.mutation_sets(mu)
            ]
            chosen = []
        elif not args.no_mutations:
            chosen_muts = [
                mu for mu in manifest.mutations if args.set_name in manifest.mutation_sets(mu)
            ]
    else:
        ap.error("name a model or pass --set")

    args.jar = args.jar if args.jar.is_absolute() else (Path.cwd() / args.jar)
    if args.dry_run:
        for m in chosen:
            print(cfg_text(m, manifest), end="")
            cmd = java_command(
                tla_module(m, manifest),
                f"{m.name}.cfg",
                args.jar,
                Path(tempfile.gettempdir()) / "tlc-states",
                args.workers,
                m.deadlock,
                args.coverage,
            )
            print(f"(cd {shlex.quote(str(SPEC_DIR))} && {shlex.join(cmd)})\n")
        return 0
    if not args.jar.is_file():
        print(f"tlc.py: {args.jar} not found (run tools/bootstrap.sh)", file=sys.stderr)
        return 2

    start = time.monotonic()
    failures = run_models(args, manifest, chosen) if chosen else 0
    if chosen_muts:
        whole = args.set_name == GUARD_SET and not (args.models or args.mutation)
        failures += run_mutations(args, manifest, chosen_muts, whole_set=whole)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"TLC total {time.monotonic() - start:.1f} s wall, "
        f"{cpu.ru_utime + cpu.ru_stime:.1f} s CPU ({args.jobs} runs at a time)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
