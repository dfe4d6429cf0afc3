"""spec/TraceReactiveStreams.tla keeps counters where spec/ReactiveStreams.tla keeps the
history of committed signals. TLC checks, on small constants, that every step of the
trace module is a step of the spec (``RefinesSpec``, with ``sent`` mapped to
``SentOf``) and that the two modules' invariants agree (``SameInvariantsInv``); a
planted slip in the counters is caught."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reactive_streams.trace.validate import find_jar

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
JAR = find_jar()
pytestmark = [
    pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed"),
    pytest.mark.skipif(JAR is None or not JAR.is_file(), reason="no TLC jar"),
    pytest.mark.timeout(600),
]

CONSTANTS = """---- MODULE TraceData ----
TraceSync == {sync}
TraceSubs == {{1}}
TraceThreads == {{1, 2}}
TraceDepth == 1
TraceElements == 2
TraceSizes == {{0, 1, 3}}
TraceMaxDemand == 3
TraceMaxCalls == 2
TraceMaxCancels == 2
TraceQueueBound == 2
Quiescent == << >>
Hint == << >>
Traces == << >>
====
"""
CFG = "INIT CounterInit\nNEXT CounterNext\nINVARIANT SameInvariantsInv\nPROPERTY RefinesSpec\n"


def _tlc(tmp_path: Path, sync: bool, trace_spec: str) -> str:
    for name in ("ReactiveStreams.tla",):
        shutil.copy(SPEC / name, tmp_path / name)
    (tmp_path / "TraceReactiveStreams.tla").write_text(trace_spec)
    (tmp_path / "TraceData.tla").write_text(CONSTANTS.format(sync="TRUE" if sync else "FALSE"))
    (tmp_path / "Refines.cfg").write_text(CFG)
    assert JAR is not None
    cmd = ["java", "-XX:+UseParallelGC", f"-Djava.io.tmpdir={tmp_path}", "-cp", str(JAR)]
    cmd += ["tlc2.TLC", "-workers", "1"]
    cmd += ["-deadlock", "-metadir", str(tmp_path / "states"), "-config", "Refines.cfg"]
    proc = subprocess.run(
        [*cmd, "TraceReactiveStreams"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    return proc.stdout


@pytest.mark.parametrize(
    "sync",
    [
        pytest.param(
            False,
            id="async",
            marks=pytest.mark.skipif(
                os.environ.get("RS_SLOW") != "1",
                reason="the asynchronous mode (20 s): make slow-checks",
            ),
        ),
        pytest.param(True, id="sync"),
    ],
)
def test_trace_module_refines_the_spec(tmp_path: Path, sync: bool) -> None:
    out = _tlc(tmp_path, sync, (SPEC / "TraceReactiveStreams.tla").read_text())
    assert "Model checking completed. No error has been found." in out, out[-3000:]
    found = re.findall(r"([\d,]+) distinct states found, 0 states left on queue", out)
    states = int(found[-1].replace(",", ""))
    assert states > 1000, out[-2000:]  # the bounds reach every action, not a corner


def test_a_slip_in_the_counters_is_caught(tmp_path: Path) -> None:
    text = (SPEC / "TraceReactiveStreams.tla").read_text()
    slip = text.replace(
        "cutoff' = [cutoff EXCEPT ![s] = nsent[s]]", "cutoff' = [cutoff EXCEPT ![s] = nsent[s] + 1]"
    )
    assert slip != text
    out = _tlc(tmp_path, False, slip)
    assert "is violated" in out, out[-3000:]
