#!/usr/bin/env python3
"""Mutation testing of impl/reactive_streams with mutmut 3 (``make mutation``; not in CI).

mutmut generates every mutant of a function into one copy of the package behind a
trampoline, records once which tests reach which function, then forks one worker per
mutant that runs only those tests (``-x``): no interpreter start and no import per
mutant, which is what a 2-core machine needs. mutmut names modules after their path, so
the package is staged at the top of ``build/mutation/<group>/`` (``impl/`` would give the
names ``impl.reactive_streams...`` while the tests import ``reactive_streams...``).

Each module in scope has its test files (``TESTS``): unit tests plus the state machines
that drive it, with the small Hypothesis profile ``mutation`` (stateful/conftest.py).
Modules with the same test files share one mutmut run (a group). The table counts, per
module: mutants, killed, survived (incl. mutants no selected test reaches), timeout,
equivalent (survivors listed in tools/mutation_triage.toml with a reason) and the score
killed / (mutants - equivalent). A triage entry names the module, the function and the
mutated line pair (``-`` original, ``+`` mutant), never mutmut's running number.

Usage:
    python tools/mutation.py                       # every group, then the table
    python tools/mutation.py --only _core/demand     # modules whose path contains this
    python tools/mutation.py --only operators/_zip operators/_flat_map   # files in a glob
    python tools/mutation.py --report              # table of the last run, no new run
    python tools/mutation.py --survivors           # also print each untriaged survivor
    python tools/mutation.py --recheck             # survivors again, RECHECK's test files
    python tools/mutation.py --recheck --unrun     # and the mutants a stopped run left
    python tools/mutation.py --record              # the verdicts of a stopped --recheck
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutation"
TRIAGE = ROOT / "tools" / "mutation_triage.toml"
PACKAGE = "reactive_streams"

# a mutant that runs past this (pytest-timeout, seconds) counts as a timeout
TEST_TIMEOUT = 30


def cells(*operators: str) -> tuple[str, ...]:
    """The pipeline machine's cells (fused and unfused) of these operators."""
    machine = "stateful/test_pipeline_machine.py::test_pipeline_machine"
    return tuple(f"{machine}[{op}-{fusion}]" for op in operators for fusion in ("fused", "unfused"))


def contract_files(pattern: str) -> tuple[str, ...]:
    """The survivors' targeted test files (written when a run's survivors are triaged)."""
    return tuple(sorted(str(path.relative_to(ROOT)) for path in ROOT.glob(pattern)))


_CORE_UNIT = (
    *contract_files("tests/test_core_contract.py"),
    *contract_files("tests/test_core_floor_contract.py"),
    *contract_files("tests/test_pump_contract.py"),
    "tests/test_demand.py",
    "tests/test_serial.py",
    "tests/test_sources.py",
    "tests/test_scalar_subscription.py",
    "tests/operators/test_relay.py",
    "tests/operators/test_fusion.py",
    "tests/operators/flat_map/test_flat_map_direct.py",  # the sources' "items" and scalar answers
    "tests/operators/transform/test_transform.py",
    "tests/operators/test_regressions.py",
    "tests/operators/test_hop_traces.py",
    "tests/trace/test_hops.py",
    "tests/trace/test_reentrance.py",
    "tests/trace/test_rule_309.py",
    "stateful/test_publisher_machine.py",
    "stateful/test_reach_sources.py",
    "--deselect",  # 7 s under the trampolines, in every survivor's run: a depth check
    "tests/test_sources.py::test_spec303_request_from_on_next_trampolines_over_100k_elements",
)
# cells over the core's hops: plain relays, fused chains, the arbiter, async hops
_CORE_CELLS = cells("map", "take", "concat_with", "retry", "observe_on", "flat_map")
CORE = _CORE_UNIT + _CORE_CELLS
OPERATORS = (
    "tests/operators",
    "--deselect",
    "tests/operators/test_tck.py",
    "--deselect",
    "tests/operators/test_inline.py",
    "stateful/test_pipeline_machine.py",
)
MULTICAST = (
    # fast: messages, reprs, auto_connect, refusals
    "tests/operators/multicast/test_multicast_contract.py",
    "tests/operators/multicast/test_multicast.py",
    # every by-design edge of Multicast.tla, driven
    "tests/operators/multicast/test_multicast_edges.py",
    "tests/operators/test_regressions.py",
    "stateful/test_multicast_machine.py",
    *cells("publish", "replay", "ref_count"),
)
SPARK = (
    *contract_files("tests/spark/test_*_contract.py"),
    "tests/spark/test_sink_unit.py",
    "tests/spark/test_sink_units.py",
    "tests/spark/test_commit_log.py",
    "tests/spark/test_commit_log_units.py",
    # the other Spark-free files (3 s together): leases, fences, compaction, positions
    "tests/spark/test_lease.py",
    "tests/spark/test_positions.py",
    "tests/spark/test_fanout.py",
    "tests/spark/test_io_errors.py",
    "tests/spark/test_sink_metrics.py",
    "tests/spark/test_sink_budget.py",
    "tests/spark/test_sink_publish.py",
    "stateful/test_spark_sink_machine.py",
)
TCK = (
    "tests/tck/test_probes.py",
    "tests/tck/test_provoking_probes.py",
    "tests/tck/test_kit_semantics.py",
)

# The inliner (_core/inline.py) parses the source of Relay.on_next, each _apply and
# Downstream._send; mutmut's trampolines hide that source, so every other run sets
# RS_INLINE=0 (the hops call _apply and _send: the same signals, the tests run both) and
# leaves out test_inline.py, which asserts that the hops are inlined; inline.py itself is
# mutated alone, every other module intact, with the inliner on.
INLINE_OFF = (("RS_INLINE", "0"),)
INLINE_ON = (("RS_INLINE", "1"),)

# module (path under impl/reactive_streams) -> (test files as pytest arguments, environment);
# in priority order: the core first
TESTS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "_core/downstream.py": (CORE, INLINE_OFF),
    "_core/relay.py": (CORE, INLINE_OFF),
    "_core/fusion.py": (CORE, INLINE_OFF),
    "_core/arbiter.py": (CORE, INLINE_OFF),
    "_core/demand.py": (CORE, INLINE_OFF),
    "_core/serial.py": (CORE, INLINE_OFF),
    "_core/pump.py": (CORE, INLINE_OFF),  # the sources' iterator pump
    "_core/exact.py": (CORE, INLINE_OFF),
    "_core/executing.py": (CORE, INLINE_OFF),
    "_core/tracer.py": (CORE, INLINE_OFF),  # _core/schedpoints.py: test-only, None in use
    "sources.py": (CORE, INLINE_OFF),
    "_core/inline.py": (("tests/operators/test_inline.py", *CORE), INLINE_ON),
    "operators/*.py": (OPERATORS, INLINE_OFF),
    "multicast/*.py": (MULTICAST, INLINE_OFF),
    "spark/sink.py": (SPARK, INLINE_OFF),
    "spark/commit_log.py": (SPARK, INLINE_OFF),
    "tck/probes.py": (TCK, INLINE_OFF),
}

_OPERATORS_FIRST = contract_files("tests/operators/**/test_*_contract.py")  # families too
_BEFORE_THE_25_FIX = ("--deselect", "tests/operators/test_refused_subscription.py")


def deselected(prefix: str, *tests: str) -> tuple[str, ...]:
    """``--deselect`` arguments: tests that assert fixes made after a run's copy was staged."""
    return tuple(arg for test in tests for arg in ("--deselect", prefix + test))


# --recheck's fixed test files per group (fast first; -x stops at the first failure): the
# unit tests, the new kills among them, and the publisher machine
RECHECK: dict[str, tuple[str, ...]] = {
    "core-downstream": (
        *contract_files("tests/test_core_contract.py"),
        "tests/test_demand.py",
        "tests/test_serial.py",
        "tests/test_scalar_subscription.py",
        "tests/operators/test_relay.py",
        "tests/operators/test_fusion.py",
        "tests/operators/flat_map/test_flat_map_direct.py",  # the sources' "items" answers
        "tests/operators/transform/test_transform.py",
        "tests/test_sources.py",
        "--deselect",
        "tests/test_sources.py::test_spec303_request_from_on_next_trampolines_over_100k_elements",
        "tests/operators/test_regressions.py",
        "tests/operators/test_hop_traces.py",
        "tests/trace/test_hops.py",
        "tests/trace/test_reentrance.py",
        "tests/trace/test_rule_309.py",
        "stateful/test_publisher_machine.py",
    ),
    # the targeted files first: -x stops a killed mutant's run at its first failure; the
    # rule 2.5 fix of 2026-11-26 16:48 came after both copies were staged
    "operators-_drained": (*_OPERATORS_FIRST, *OPERATORS, *_BEFORE_THE_25_FIX),
    "operators-_aggregate": (*_OPERATORS_FIRST, *OPERATORS, *_BEFORE_THE_25_FIX),
    "core-inline": ("tests/operators/test_inline.py", "tests/operators/test_relay.py"),
    "multicast": (  # the unit tests and the machine; the pipeline cells ran in the run
        "tests/operators/multicast/test_multicast_contract.py",
        "tests/operators/multicast/test_multicast.py",
        "stateful/test_multicast_machine.py",
        "tests/operators/test_regressions.py",
        # they assert two fixes made after the run's copy was staged (13:21, 2026-11-26)
        "--deselect",
        "tests/operators/multicast/test_multicast_contract.py::test_spec205_an_on_subscribe_after_the_disconnect_is_cancelled",
        "--deselect",
        "tests/operators/multicast/test_multicast_contract.py::"
        "test_a_child_that_slips_in_while_disconnecting_is_treated_as_the_others[none]",
    ),
    # the unit tests, the new ones first; the machine ran in the first run already
    "spark-sink": (
        *contract_files("tests/spark/test_*_contract.py"),
        "tests/spark/test_sink_units.py",
        "tests/spark/test_commit_log_units.py",
        *(n for n in SPARK if not any(part in n for part in ("units", "contract", "stateful/"))),
        "--deselect",  # asserts the message fixed after the run's copy was staged
        "tests/spark/test_sink_units.py::test_an_os_error_names_its_errno_once",
        "--deselect",  # the same: an empty first batch (fixed 2026-11-26 16:50)
        "tests/spark/test_sink_contract.py::"
        "test_an_empty_batch_of_records_first_takes_a_slot_and_writes_nothing",
        *deselected(  # the three sink defects of the fourth round (fixed 2026-11-26 19:10)
            "tests/spark/test_sink_contract.py::",
            "test_a_failure_is_not_lost_to_an_on_complete_that_lands_as_its_batch_leaves",
            "test_a_failed_sink_resolves_after_the_batches_it_still_writes",
            "test_a_cancelled_sink_resolves_after_its_sealed_batches_are_dropped",
            "test_an_upstream_error_then_a_cancel_counts_what_the_cancel_dropped",
        ),
    ),
}

KILLED = {1, 3}
TIMEOUT = {36, -24, 24, 152, 255}
NO_TESTS = {5, 33}


@dataclass
class Row:
    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    timeout: int = 0
    equivalent: int = 0
    seconds: float = 0.0
    unchecked: int = 0  # not run (an interrupted run): left out of the score
    blind: int = 0  # survivors mutmut cannot kill here (triage kind "blind"), in survived
    survivors: list[tuple[str, str, str]] = field(default_factory=list)  # name, function, diff

    @property
    def score_text(self) -> str:
        ran = self.mutants - self.equivalent - self.unchecked
        return f"{self.score:.1f}%" if ran else "n/a"

    @property
    def score(self) -> float:
        """killed / (mutants - equivalent), over the mutants that ran."""
        live = self.mutants - self.equivalent - self.unchecked
        return 100.0 * self.killed / live if live else 100.0


Env = tuple[tuple[str, str], ...]
Spec = tuple[tuple[str, ...], Env]


def groups(only: list[str]) -> dict[Spec, list[str]]:
    """Modules that share their test files and environment, in the order of TESTS."""
    found: dict[Spec, list[str]] = {}
    for module, tests in TESTS.items():
        if only and not any(part in module for part in only):
            # a part naming files inside a glob (``operators/_zip``) selects just those
            inside = sorted(
                str(path.relative_to(ROOT / "impl" / PACKAGE))
                for path in (ROOT / "impl" / PACKAGE).glob(module)
                if any(str(path.relative_to(ROOT / "impl" / PACKAGE)).startswith(p) for p in only)
            )
            if "*" in module and inside:
                found.setdefault(tests, []).extend(inside)
            continue
        found.setdefault(tests, []).append(module)
    return found


def slug(modules: list[str]) -> str:
    return modules[0].replace("/*.py", "").replace(".py", "").replace("/", "-").strip("_")


def stage(directory: Path, modules: list[str], tests: tuple[str, ...]) -> None:
    """A fresh copy with the package at its top and a pyproject for pytest and mutmut."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "impl" / PACKAGE, directory / PACKAGE, ignore=ignore)
    for name in ("tests", "stateful", "docs", "spec"):  # docs, spec: read by tests
        shutil.copytree(ROOT / name, directory / name, ignore=ignore)
    # the edge suites read TLC's graphs (cached by the specs' digest) and, without one, the jar
    shutil.copytree(ROOT / ".tools", directory / ".tools", ignore=shutil.ignore_patterns("dl"))
    if (ROOT / "build" / "model-edges").is_dir():
        shutil.copytree(ROOT / "build" / "model-edges", directory / "build" / "model-edges")
    only = [f"{PACKAGE}/{module}" for module in modules]
    directory.joinpath("pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        'addopts = "-p no:cacheprovider"\n'
        f"timeout = {TEST_TIMEOUT}\n"
        'markers = ["spark: Spark", "slow: slow"]\n'
        "[tool.mutmut]\n"
        f'source_paths = ["{PACKAGE}"]\n'
        f"only_mutate = {json.dumps(only)}\n"
        'also_copy = ["stateful/", "docs/", "spec/", ".tools/", "build/"]\n'
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}\n"
        "timeout_multiplier = 5.0\n"
        # no test runs in the process the workers fork from: a test that starts a shared
        # pool there leaves its threads behind, and that test then fails in every fork
        'process_isolation = "forkserver"\n'
        "use_git_change_detection = false\n"
    )


def restage_tests(directory: Path) -> None:
    """The current tests into a staged run; the mutants and their verdicts stay."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for base in (directory, directory / "mutants"):
        for name in ("tests", "stateful"):
            shutil.rmtree(base / name, ignore_errors=True)
            shutil.copytree(ROOT / name, base / name, ignore=ignore)


def survivors_of(directory: Path, modules: list[str], unrun: bool = False) -> list[str]:
    """(``unrun``) The mutants an interrupted run never ran, first: they have no verdict
    at all; then those that are neither killed, timed out nor triaged; then the timed-out
    ones (a CPU limit hit on a loaded machine, or a hang that a new fast test may catch)."""
    never: list[str] = []
    timed_out: list[str] = []
    for pattern in modules:
        for _, codes in metas(directory, pattern):
            timed_out += [name for name, code in codes.items() if code in TIMEOUT]
            never += [name for name, code in codes.items() if unrun and code is None]
    survived = [n for row in rows_for(directory, modules, 0.0) for n, _, _ in row.survivors]
    return never + survived + timed_out


_NICE = ("nice", "-n", "10")
_LIMIT = str(TEST_TIMEOUT)
_FORKED = """
import json, os, sys, time
import pytest
from mutmut.mutation.trampoline import set_mutant_under_test

files, names, out = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[4]
args = ["-x", "-q", "-p", "no:cacheprovider", "--timeout", sys.argv[3], *files]


def run(name):
    # every run in a fork, the clean one too: a test that starts a shared pool in this
    # process would leave its threads behind in every later fork (they fail there)
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        set_mutant_under_test(name)
        sys.stdout = sys.stderr = open(os.devnull, "w")
        os._exit(int(pytest.main(args)))
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    # a failure after the per-test limit may be pytest-timeout's: a timeout, not a kill
    return 36 if code == 1 and time.monotonic() - started >= float(sys.argv[3]) else code


if run("") != 0:
    sys.exit("the unmutated copy fails the tests")
for name in names:
    code = run(name)
    with open(out, "a") as verdicts:  # one line per mutant: an interrupted run keeps them
        verdicts.write(json.dumps([name, code]) + "\\n")
"""


def forked_pytest(
    directory: Path, extra: Env, names: list[str], files: list[str]
) -> dict[str, int]:
    """pytest on ``files`` in the staged copy, once clean, then once per mutant in a fork
    with the mutant switched on through mutmut's trampolines (``MUTANT_UNDER_TEST``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra)
    env.update(PYTHONPATH=str(directory / "mutants"), HYPOTHESIS_PROFILE="mutation")
    out = directory / "recheck.jsonl"
    out.unlink(missing_ok=True)
    arguments = [json.dumps(files), json.dumps(names), _LIMIT, str(out)]
    done = subprocess.run(
        [*_NICE, sys.executable, "-c", _FORKED, *arguments],
        cwd=directory / "mutants",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"recheck stopped:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    lines = out.read_text().splitlines() if out.exists() else []
    return {name: int(code) for name, code in map(json.loads, lines)}


def recheck(
    directory: Path, modules: list[str], extra: Env, files: list[str], unrun: bool
) -> float:
    """Run the survivors again against the current ``files`` (after new tests were written):
    a mutant that fails them is recorded as killed in mutmut's meta file; a mutant never
    run before (``unrun``) gets whatever verdict ``files`` give it, survived included."""
    started = time.monotonic()
    names = survivors_of(directory, modules, unrun)
    restage_tests(directory)
    print(f"{len(names)} survivors of {', '.join(modules)} against {' '.join(files)} ...")
    codes = forked_pytest(directory, extra, names, files)
    record(directory, codes)
    killed = sum(1 for code in codes.values() if code in (1, 36))
    print(f"killed now: {killed} of {len(names)}")
    return time.monotonic() - started


def record(directory: Path, codes: dict[str, int]) -> None:
    """A recheck's verdicts into mutmut's meta files: killed (1) or timed out (36) now; a
    mutant not run before, or timed out before, gets its verdict either way."""
    for meta in (directory / "mutants" / PACKAGE).rglob("*.meta"):
        data = json.loads(meta.read_text())
        known = data["exit_code_by_key"]
        hits = {
            n: c
            for n, c in codes.items()
            if n in known and (c in (1, 36) or known[n] is None or known[n] in TIMEOUT)
        }
        if hits:
            data["exit_code_by_key"].update(hits)
            meta.write_text(json.dumps(data, indent=4))


def record_partial(directory: Path) -> None:
    """The verdicts a stopped ``--recheck`` wrote (one line per mutant) into the meta files."""
    out = directory / "recheck.jsonl"
    lines = out.read_text().splitlines() if out.exists() else []
    record(directory, {name: int(code) for name, code in map(json.loads, lines)})
    print(f"{directory.name}: {len(lines)} verdicts of a stopped recheck recorded")


def run_group(directory: Path, extra: Env, children: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HYPOTHESIS_PROFILE"] = "mutation"
    env.update(extra)
    mutmut = Path(sys.executable).parent / "mutmut"
    started = time.monotonic()
    with open(directory / "run.log", "w") as log:
        subprocess.run(
            ["nice", "-n", "10", str(mutmut), "run", "--max-children", str(children)],
            cwd=directory,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    return time.monotonic() - started


def diff_lines(diff: str) -> str:
    """The mutated lines of a mutmut diff, stripped, after the line before them (``@``):
    a stable id across runs (a line such as ``return False`` recurs in a function)."""
    lines = diff.splitlines()[2:]  # the ---/+++ header
    body = [line for line in lines if line[:1] in "+-"]
    before = ""
    for line in lines:
        if line[:1] in "+-":
            break
        if line[:1] == " " and line.strip():
            before = line.strip()
    mutated = [line[0] + " " + line[1:].strip() for line in body]
    return "\n".join(([f"@ {before}"] if before else []) + mutated)


def function_of(name: str) -> str:
    mangled = name.rsplit(".", 1)[1].partition("__mutmut_")[0]
    return mangled[2:] if mangled.startswith("x_") else mangled[2:].replace("ǁ", ".")


def diffs(directory: Path, names: list[str]) -> dict[str, str]:
    """mutmut's diff of each named mutant (mutmut reads its config from the cwd)."""
    if not names:
        return {}
    from mutmut.configuration import reset_config
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    here = os.getcwd()
    os.chdir(directory)
    reset_config()
    try:
        return {name: get_diff_for_mutant(name) for name in names}
    finally:
        os.chdir(here)
        reset_config()


def load_triage() -> list[dict[str, str]]:
    if not TRIAGE.exists():
        return []
    with TRIAGE.open("rb") as handle:
        data = tomllib.load(handle)
    blind = [{**entry, "kind": "blind"} for entry in data.get("blind", [])]
    return [*data.get("equivalent", []), *blind]


def triaged(triage: list[dict[str, str]], module: str, function: str, lines: str) -> str:
    """The kind of the first triage entry for this mutant ("equivalent", or "blind": a
    mutant mutmut cannot run, see the file), "" if none. An entry names the module and the
    function (globs) and the exact mutated lines (``diff``) or a regular expression that
    one of them matches (``pattern``)."""
    for entry in triage:
        if not (fnmatch(module, entry["module"]) and fnmatch(function, entry["function"])):
            continue
        exact = "diff" in entry and entry["diff"].strip() == lines
        if exact or ("pattern" in entry and re.search(entry["pattern"], lines, re.MULTILINE)):
            return entry.get("kind", "equivalent")
    return ""


def metas(directory: Path, pattern: str) -> Iterator[tuple[str, dict[str, int | None]]]:
    for meta in sorted((directory / "mutants" / PACKAGE).glob(pattern + ".meta")):
        module = str(meta.relative_to(directory / "mutants" / PACKAGE))[: -len(".meta")]
        yield module, json.loads(meta.read_text())["exit_code_by_key"]


def rows_for(directory: Path, modules: list[str], seconds: float) -> list[Row]:
    triage = load_triage()
    rows: list[Row] = []
    for pattern in modules:
        for module, codes in metas(directory, pattern):
            row = Row(module)
            alive = []
            for name, code in codes.items():
                row.mutants += 1
                if code in KILLED:
                    row.killed += 1
                elif code in TIMEOUT:
                    row.timeout += 1
                elif code is None:
                    row.unchecked += 1  # not run (an interrupted run): no verdict
                    continue
                else:  # survived, no test reaches it, not checked, suspicious
                    alive.append(name)
            for name, diff in diffs(directory, alive).items():
                lines = diff_lines(diff)
                function = function_of(name)
                kind = triaged(triage, module, function, lines)
                if kind == "equivalent":
                    row.equivalent += 1
                elif kind == "blind":
                    row.survived += 1  # not killed: counted against the score
                    row.blind += 1
                else:
                    row.survived += 1
                    row.survivors.append((name, function, lines))
            rows.append(row)
    total = sum(row.mutants for row in rows) or 1
    for row in rows:  # one run per group: its time shared by the modules' mutant counts
        row.seconds = seconds * row.mutants / total
    return rows


def table(rows: list[Row]) -> str:
    head: tuple[str, ...] = ("module", "mutants", "killed", "survived", "timeout")
    head += ("equivalent", "not run", "score", "seconds")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        lines.append(
            f"| {row.module} | {row.mutants} | {row.killed} | {row.survived} | {row.timeout} "
            f"| {row.equivalent} | {row.unchecked} | {row.score_text} | {row.seconds:.0f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="modules whose path contains one")
    parser.add_argument("--report", action="store_true", help="table of the last run only")
    parser.add_argument("--survivors", action="store_true", help="print untriaged survivors")
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="the last run's survivors and unrun mutants again, against RECHECK's files",
    )
    parser.add_argument(
        "--unrun",
        action="store_true",
        help="with --recheck: also the mutants an interrupted run never ran",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="record the verdicts of a stopped --recheck (its recheck.jsonl), then the table",
    )
    parser.add_argument("--max-children", type=int, default=2)
    args = parser.parse_args()

    rows: list[Row] = []
    times_file = WORK / "seconds.json"

    def seconds_of() -> dict[str, float]:
        return json.loads(times_file.read_text()) if times_file.exists() else {}

    def keep_seconds(key: str, seconds: float) -> None:
        # read again: two groups may run at once, each keeps the other's figure
        WORK.mkdir(parents=True, exist_ok=True)
        times_file.write_text(json.dumps({**seconds_of(), key: seconds}, indent=1))

    for (tests, extra), modules in groups(args.only).items():
        directory = WORK / slug(modules)
        if args.record and (directory / "mutants").exists():
            record_partial(directory)
        elif args.recheck and (directory / "mutants").exists():
            files = list(RECHECK.get(slug(modules), tests))
            seconds = recheck(directory, modules, extra, files, args.unrun)
            keep_seconds(slug(modules) + " recheck", seconds)
        elif not (args.report or args.recheck or args.record):  # never a mutmut run
            stage(directory, modules, tests)
            print(f"mutmut over {', '.join(modules)} ...", flush=True)
            keep_seconds(slug(modules), run_group(directory, extra, args.max_children))
        if not (directory / "mutants").exists():
            print(f"not measured: {', '.join(modules)}")
            continue
        rows += rows_for(directory, modules, seconds_of().get(slug(modules), 0.0))
    print(table(rows))
    for row in rows:
        if row.blind:
            print(f"{row.module}: {row.blind} of the survivors are blind spots (triage file)")
    total = Row("total")
    for row in rows:
        for name in ("mutants", "killed", "survived", "timeout", "equivalent", "unchecked"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
        total.seconds += row.seconds
    print(
        f"total: {total.mutants} mutants, {total.killed} killed, {total.survived} survived, "
        f"{total.equivalent} equivalent, {total.unchecked} not run, score {total.score:.1f}%, "
        f"{total.seconds:.0f} s"
    )
    if args.survivors:
        for row in rows:
            for name, function, lines in row.survivors:
                print(f"\n# {row.module} :: {function}  ({name})\n{lines}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
