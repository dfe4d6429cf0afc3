#!/usr/bin/env python3
# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Plant known bugs in a copy of the implementation; the state machines must catch each.

Every mutant is a textual patch keyed to exact source lines of ``impl/reactive_streams``
(see the research catalogue of bug classes in docs/verification.md). The script copies
``impl/`` to a temporary directory, applies one mutant there (never in the working
tree), and runs ``stateful/test_publisher_machine.py`` against the copy. A mutant is
killed when the machine fails; the table shows the rule named by the failure. A patch
that no longer matches the source stops the script with an error: update the mutant.

Usage:
    python tools/mutants.py            # all mutants, then the kill table
    python tools/mutants.py -k wrap    # mutants whose name contains "wrap"
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINE = "stateful/test_publisher_machine.py"


@dataclass(frozen=True)
class Patch:
    file: str  # relative to impl/reactive_streams
    old: str
    new: str
    count: int = 1  # how many times ``old`` must occur


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    rule: str
    patches: tuple[Patch, ...]
    machine: str = MACHINE  # the test file that must kill it
    select: str = ""  # pytest -k expression (the pipeline machine's cells to run)


SUB = "_subscription.py"

MUTANTS = (
    Mutant(
        "lost-demand-update",
        "the drain writes back demand read before the batch; requests made meanwhile are lost",
        "3.8",
        (
            Patch(
                SUB,
                "    def _after_batch(self, it: Iterator[T], sent: int, exhausted: bool) -> bool:\n",
                "    def _after_batch(\n        self, it: Iterator[T], sent: int, exhausted: bool,"
                " start: int = -1\n    ) -> bool:\n",
            ),
            Patch(
                SUB,
                "            with self._lock:\n                requested = self._requested\n",
                "            with self._lock:\n"
                "                requested = self._requested if start < 0 else start\n",
            ),
            Patch(
                SUB,
                "        else:\n            requested = self._requested\n",
                "        else:\n            requested = self._requested if start < 0 else start\n",
            ),
            Patch(
                SUB,
                "        return self._after_batch(it, sent, exhausted)\n",
                "        return self._after_batch(it, sent, exhausted, start)\n",
                count=2,
            ),
            Patch(
                SUB,
                "        on_next = subscriber.on_next\n        sent = 0\n",
                "        on_next = subscriber.on_next\n        start = self._requested\n        sent = 0\n",
            ),
            Patch(
                SUB,
                "        limit = self._requested if sync else min(self._requested, self._batch)\n",
                "        start = self._requested\n"
                "        limit = self._requested if sync else min(self._requested, self._batch)\n",
            ),
        ),
    ),
    Mutant(
        "missed-wake-up",
        "the drainer leaves without looking at work recorded while it ran",
        "3.8",
        (
            Patch(
                "_serial.py",
                "            self._wip = wip\n        return wip\n",
                "            self._wip = 0  # forgets the work recorded meanwhile\n        return 0\n",
            ),
        ),
    ),
    Mutant(
        "wrap-not-saturate",
        "demand overflow wraps around like a 64-bit long instead of saturating",
        "3.17",
        (
            Patch(
                SUB,
                "            self._requested = requested if requested < MAX_DEMAND else MAX_DEMAND"
                "  # rule 3.17\n",
                "            self._requested = requested if requested <= MAX_DEMAND"
                " else requested - 2**64\n",
            ),
            Patch(
                SUB,
                "                self._requested = requested if requested < MAX_DEMAND else MAX_DEMAND\n",
                "                self._requested = requested if requested <= MAX_DEMAND"
                " else requested - 2**64\n",
            ),
        ),
    ),
    Mutant(
        "on-next-after-cancel",
        "the emission loop does not look at the cancel flag",
        "3.12",
        (
            Patch(
                SUB,
                "                if self._halt:\n                    break\n                if item is None:\n",
                "                if False:\n                    break\n                if item is None:\n",
                count=2,
            ),
            Patch(
                SUB,
                "                if self._halt:\n                    break\n                self._seq += 1\n",
                "                if False:\n                    break\n                self._seq += 1\n",
            ),
        ),
    ),
    Mutant(
        "no-error-for-request-0",
        "request(n <= 0) is silently ignored",
        "3.9",
        (
            Patch(
                SUB,
                "            if message is not None:\n"
                "                self._request_invalid(n, message)\n                return\n",
                "            if message is not None:\n                return\n",
            ),
        ),
    ),
    Mutant(
        "unbounded-recursion",
        "request() drains inline even when a drain is already running (no trampoline)",
        "3.3",
        (
            Patch(
                SUB,
                "        if wip == 0:\n            self._drain()\n\n    def _request_invalid",
                "        if True:\n            self._drain()\n\n    def _request_invalid",
            ),
        ),
    ),
    Mutant(
        "terminal-twice",
        "an error path falls through to completion and the terminal guard is gone",
        "1.7",
        (
            Patch(
                SUB,
                "            if self._done or self._cancelled:\n                return None\n",
                "            if self._cancelled:\n                return None\n",
            ),
            Patch(
                SUB,
                "(ValueError(self._bad_request.message))  # rule 3.9\n"
                "            return False\n        if exhausted",
                "(ValueError(self._bad_request.message))  # rule 3.9\n        if exhausted",
            ),
        ),
    ),
    Mutant(
        "signal-before-on-subscribe",
        "the first drain round opens the source before delivering onSubscribe",
        "1.9",
        (
            Patch(
                SUB,
                "        if not self._subscribed:\n            self._deliver_subscribe()\n",
                "        if not self._subscribed and self._it is not None:\n"
                "            self._deliver_subscribe()\n",
            ),
        ),
    ),
    Mutant(
        "over-delivery-at-batch-boundary",
        "a full batch takes one element too few from the demand",
        "1.1",
        (
            Patch(
                SUB,
                "            if requested != MAX_DEMAND:\n"
                "                self._requested = requested - sent\n",
                "            if requested != MAX_DEMAND:\n"
                "                self._requested = requested - sent + (sent == self._batch)\n",
            ),
        ),
    ),
    Mutant(
        "subscriber-kept-after-cancel",
        "the subscription keeps its Subscriber after cancel and after the end",
        "3.13",
        (
            Patch(
                SUB,
                "        self._subscriber = None\n        self._it = None\n",
                "        self._it = None\n",
            ),
        ),
    ),
)


def apply(mutant: Mutant, package: Path) -> None:
    for patch in mutant.patches:
        path = package / patch.file
        text = path.read_text(encoding="utf-8")
        found = text.count(patch.old)
        if found != patch.count:
            raise SystemExit(
                f"mutant {mutant.name}: patch for {patch.file} matches {found} time(s), "
                f"expected {patch.count}; the source changed, update the mutant:\n{patch.old}"
            )
        path.write_text(text.replace(patch.old, patch.new), encoding="utf-8")


_RULE = re.compile(r"(rule \d\.\d+[^\n]{0,90})")
_ASSERTION = re.compile(r"AssertionError: ([^\n]+)")


def run_machine(
    impl: Path, timeout: float, machine: str = MACHINE, select: str = ""
) -> tuple[int, str, float]:
    env = dict(os.environ, PYTHONPATH=str(impl), HYPOTHESIS_PROFILE="mutants")
    env.pop("RS_TRACE_DIR", None)
    probe = subprocess.run(
        [sys.executable, "-c", "import reactive_streams; print(reactive_streams.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    if not probe.stdout.startswith(str(impl)):
        raise SystemExit(f"the copy is not the one imported: {probe.stdout.strip()}")
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:logging",
                "--timeout",
                str(int(timeout)),
                *(["-k", select] if select else []),
                machine,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout + 60,
            check=False,
        )
        output, code = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        output, code = "timed out", -1
    return code, output, time.monotonic() - started


def reason(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("E ") and "rule" in line:
            match = _RULE.search(line)
            if match:
                return match.group(1).strip()
    match = _RULE.search(output)
    if match:
        return match.group(1).strip()
    found = _ASSERTION.search(output)  # the value oracle and liveness name no rule number
    return found.group(1).strip()[:100] if found else "(no rule named)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant run")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if args.k in m.name]
    rows = []
    with tempfile.TemporaryDirectory(prefix="rs-mutants-") as tmp:
        base = Path(tmp) / "baseline"
        shutil.copytree(ROOT / "impl", base, ignore=shutil.ignore_patterns("__pycache__"))
        for machine in sorted({m.machine for m in chosen}):
            code, output, secs = run_machine(base, args.timeout, machine)
            if code != 0:
                print(output[-3000:])
                raise SystemExit(f"the unmutated copy fails {machine}: fix that first")
            print(f"baseline (no mutant) {machine}: passes in {secs:.1f} s", flush=True)
        for mutant in chosen:
            impl = Path(tmp) / mutant.name
            shutil.copytree(ROOT / "impl", impl, ignore=shutil.ignore_patterns("__pycache__"))
            apply(mutant, impl / "reactive_streams")
            code, output, secs = run_machine(impl, args.timeout, mutant.machine, mutant.select)
            killed = code == 1 and "failed" in output
            why = reason(output) if killed else ("timed out" if code == -1 else f"exit {code}")
            rows.append((mutant, killed, why, secs))
            print(
                f"{mutant.name:34} {'KILLED' if killed else 'SURVIVED':8} {secs:6.1f} s  {why}",
                flush=True,
            )
    print()
    print("| mutant | bug class | rule | result | caught by | seconds |")
    print("|---|---|---|---|---|---|")
    for mutant, killed, why, secs in rows:
        verdict = "killed" if killed else "**survived**"
        print(f"| {mutant.name} | {mutant.bug} | {mutant.rule} | {verdict} | {why} | {secs:.0f} |")
    survivors = [m.name for m, killed, _, _ in rows if not killed]
    print(f"\n{len(rows) - len(survivors)}/{len(rows)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
