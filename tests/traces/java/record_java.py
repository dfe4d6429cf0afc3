"""Record the Java-produced fixtures of this directory (needs a JDK: javac).

``examples/java/TraceRuns.java`` runs the JDK's SubmissionPublisher, IterablePublisher
(in the style of reactive-streams-jvm's AsyncIterablePublisher) and the deliberately
broken GreedyPublisher, each recorded by the Java emitter TraceSubscriber. The valid
runs go to ``valid/``; the broken one gets the verdict it must keep in its header
(``expect``), taken from the validator and checked to be rule 1.1. ``make traces``
validates these files on every run, with or without a JDK.
Run: ``PYTHONPATH=impl python tests/traces/java/record_java.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from reactive_streams.trace.validate import validate_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
VALID = ("submission_publisher.jsonl", "iterable_publisher.jsonl")
BROKEN = "greedy_publisher.jsonl"


def record(out: Path, items: int = 20) -> None:
    """Compile examples/java and write the three traces into ``out``."""
    classes = out / "classes"
    classes.mkdir()
    sources = sorted(str(p) for p in (ROOT / "examples" / "java").glob("*.java"))
    subprocess.run(["javac", "-d", str(classes), *sources], check=True, timeout=240)
    run = ["java", "-cp", str(classes), "TraceRuns", str(out), str(items)]
    subprocess.run(run, check=True, timeout=240)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="java-traces-") as tmp:
        out = Path(tmp)
        record(out)
        [verdict], _ = validate_files([out / BROKEN])
        assert verdict.rule == "1.1", verdict.line()
        first, *rest = (out / BROKEN).read_text(encoding="utf-8").splitlines()
        header = json.loads(first)
        header["expect"] = {"event": verdict.index, "rule": verdict.rule}
        text = "\n".join([json.dumps(header, separators=(",", ":")), *rest]) + "\n"
        (HERE / BROKEN).write_text(text, encoding="utf-8")
        for name in VALID:
            shutil.copy(out / name, HERE / "valid" / name)


if __name__ == "__main__":
    main()
