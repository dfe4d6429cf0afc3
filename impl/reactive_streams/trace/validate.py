"""Validate traces: a Python replay names the rule, TLC on the spec decides.

For each trace:

1. shape check (:mod:`~reactive_streams.trace.format`), then subscriber-side traces
   are completed (:mod:`~reactive_streams.trace.expand`);
2. the Python replay (:mod:`~reactive_streams.trace.model`) finds the first event
   whose spec action is not enabled and says which rule it breaks;
3. TLC runs ``spec/TraceReactiveStreams.tla`` on a batch of traces per mode (one JVM
   for many traces) and reports, per trace, accepted / stuck at event k / unfinished.

TLC's answer is the verdict. When both agree on a rejection the message is the
replay's; when only TLC rejects, the message gives the event TLC could not match.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .expand import expand_subscriber_view
from .format import FormatError, Header, Trace, read_trace
from .model import Replay, Violation
from .to_tla import Prepared, render_module, renumber

__all__ = ["Verdict", "find_spec_dir", "prepare", "prepass", "validate_files", "validate_traces"]

_TRACE_LINE = re.compile(r'<<"TRACE", (\d+), "(accepted|stuck|unfinished)", (\d+)>>')
_VIOLATED = re.compile(r"Invariant (\w+) is violated")
_MAX_OUTPUT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Verdict:
    """The outcome for one trace. ``index`` is 1-based; 0 means the end of the trace."""

    name: str
    events: int
    ok: bool
    index: int | None = None
    sig: str | None = None
    message: str = ""
    judge: str = "tlc"  # "tlc", or "python" when TLC was not run

    @property
    def rule(self) -> str | None:
        if self.message.startswith("rule "):
            return self.message[5:].split(":", 1)[0].split()[0]
        return None

    def line(self) -> str:
        if self.ok:
            return f"valid ({self.events} events)"
        if self.index == 0:
            return f"invalid: end of trace (after event {self.events}): {self.message}"
        if self.index is None:
            return f"invalid: {self.message}"
        return f"invalid: event {self.index} ({self.sig}): {self.message}"


def find_spec_dir() -> Path | None:
    """``spec/`` holding TraceReactiveStreams.tla: $RS_SPEC_DIR, or above cwd / this file."""
    env = os.environ.get("RS_SPEC_DIR")
    if env:
        return Path(env)
    for start in (Path.cwd(), Path(__file__).resolve()):
        for parent in (start, *start.parents):
            candidate = parent / "spec"
            if (candidate / "TraceReactiveStreams.tla").is_file():
                return candidate
    return None


def prepare(trace: Trace) -> Prepared:
    events = expand_subscriber_view(trace) if trace.header.view == "subscriber" else trace.events
    return Prepared(renumber(events), trace.header.quiescent)


def prepass(trace: Trace, prepared: Prepared) -> Violation | None:
    """The Python replay: first violation (index 0 = end-of-trace check), or None."""
    from .invariants import check_all

    model = Replay(sync=trace.header.mode == "sync")
    for event in prepared.events:
        why = model.step(event)
        if why is None:
            broken = check_all(model.state(event.sub))
            if broken:
                why = f"{broken[0]} (invariant broken after the step)"
        if why is not None:
            return Violation(event.index, event.sig, why)
    if prepared.quiescent:
        why = model.unfinished()
        if why is not None:
            return Violation(0, "end", why)
    return None


@dataclass(frozen=True)
class _TlcResult:
    status: str  # accepted | stuck | unfinished | violated | unknown
    step: int  # 1-based position in the prepared events (stuck), or the count
    detail: str = ""


def _java_cmd(jar: Path, metadir: Path) -> list[str]:
    return [
        "java",
        "-XX:+UseParallelGC",
        "-Xmx2g",
        "-cp",
        str(jar),
        "tlc2.TLC",
        "-workers",
        "1",
        "-deadlock",
        "-metadir",
        str(metadir),
        "-config",
        "TraceReactiveStreams.cfg",
        "TraceReactiveStreams",
    ]


def _read_bounded(path: Path) -> str:
    size = path.stat().st_size
    with open(path, encoding="utf-8", errors="replace") as f:
        if size <= _MAX_OUTPUT:
            return f.read()
        head = f.read(_MAX_OUTPUT // 2)
        f.seek(size - _MAX_OUTPUT // 2)
        return head + "\n...\n" + f.read()


def run_tlc(
    batch: Sequence[Prepared], sync: bool, spec_dir: Path, jar: Path, timeout: float = 600.0
) -> list[_TlcResult]:
    """One TLC run over ``batch``; returns one result per trace (re-runs after a violation)."""
    results: dict[int, _TlcResult] = {}
    todo = list(range(len(batch)))
    while todo:
        with tempfile.TemporaryDirectory(prefix="rs-trace-") as tmp_name:
            tmp = Path(tmp_name)
            for name in (
                "ReactiveStreams.tla",
                "TraceReactiveStreams.tla",
                "TraceReactiveStreams.cfg",
            ):
                shutil.copy(spec_dir / name, tmp / name)
            (tmp / "TraceData.tla").write_text(
                render_module([batch[k] for k in todo], sync), encoding="utf-8"
            )
            out_path = tmp / "tlc.out"
            with open(out_path, "w", encoding="utf-8") as out:
                proc = subprocess.run(
                    _java_cmd(jar, tmp / "states"),
                    cwd=tmp,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                    check=False,
                )
            text = _read_bounded(out_path)
        for match in _TRACE_LINE.finditer(text):
            k = todo[int(match.group(1)) - 1]
            results[k] = _TlcResult(match.group(2), int(match.group(3)))
        violated = _VIOLATED.search(text)
        if violated is not None:
            ts = re.findall(r"/\\ t = (\d+)", text)
            steps = re.findall(r"/\\ i = (\d+)", text)
            if not ts or not steps:
                raise RuntimeError(
                    f"TLC reported {violated.group(1)} without a state:\n{text[-2000:]}"
                )
            k = todo[int(ts[-1]) - 1]
            results[k] = _TlcResult("violated", int(steps[-1]), violated.group(1))
        elif proc.returncode != 0 or "Model checking completed" not in text:
            raise RuntimeError(f"TLC failed (exit {proc.returncode}):\n{text[-3000:]}")
        remaining = [k for k in todo if k not in results]
        if violated is None and remaining:
            raise RuntimeError(f"TLC gave no verdict for traces {remaining[:5]}:\n{text[-2000:]}")
        todo = remaining
    return [results[k] for k in range(len(batch))]


def _combine(
    trace: Trace, prepared: Prepared, python: Violation | None, tlc: _TlcResult | None
) -> Verdict:
    n = len(trace.events)
    if tlc is None:  # TLC not run: the replay is the judge
        if python is None:
            return Verdict(trace.name, n, True, judge="python")
        return Verdict(trace.name, n, False, python.index, python.sig, python.message, "python")
    if tlc.status == "accepted":
        if python is None:
            return Verdict(trace.name, n, True)
        return Verdict(
            trace.name,
            n,
            False,
            python.index,
            python.sig,
            f"{python.message} [TLC accepted this trace: the replay and the spec disagree]",
        )
    if tlc.status == "unfinished":
        if python is not None and python.index == 0:
            return Verdict(trace.name, n, False, 0, "end", python.message)
        return Verdict(trace.name, n, False, 0, "end", "work still due at the end (TLC: AtRest)")
    event = prepared.events[tlc.step - 1] if 0 < tlc.step <= len(prepared.events) else None
    index = event.index if event is not None else tlc.step
    sig = event.sig if event is not None else "?"
    if tlc.status == "violated":
        message = f"invariant {tlc.detail} violated (TLC)"
        return Verdict(trace.name, n, False, index, sig, message)
    if python is not None and python.index == index:
        return Verdict(trace.name, n, False, index, python.sig, python.message)
    message = "no spec action matches this event (TLC)"
    if python is not None:
        message += f"; the replay first objected at event {python.index}: {python.message}"
    return Verdict(trace.name, n, False, index, sig, message)


def validate_traces(
    traces: Sequence[Trace],
    *,
    use_tlc: bool = True,
    spec_dir: Path | None = None,
    jar: Path | None = None,
    batch_size: int = 400,
) -> list[Verdict]:
    """Verdicts in the order of ``traces``; TLC runs once per mode and batch."""
    prepared = [prepare(t) for t in traces]
    python = [prepass(t, p) for t, p in zip(traces, prepared, strict=True)]
    tlc: list[_TlcResult | None] = [None] * len(traces)
    if use_tlc and traces:
        spec_dir = spec_dir or find_spec_dir()
        if spec_dir is None:
            raise FileNotFoundError("spec/TraceReactiveStreams.tla not found (set RS_SPEC_DIR)")
        jar = jar or spec_dir.parent / ".tools" / "tla2tools.jar"
        for sync in (False, True):
            idx = [k for k, t in enumerate(traces) if (t.header.mode == "sync") == sync]
            for start in range(0, len(idx), batch_size):
                chunk = idx[start : start + batch_size]
                for k, result in zip(
                    chunk, run_tlc([prepared[k] for k in chunk], sync, spec_dir, jar), strict=True
                ):
                    tlc[k] = result
    return [_combine(t, p, v, r) for t, p, v, r in zip(traces, prepared, python, tlc, strict=True)]


def validate_files(
    paths: Iterable[str | os.PathLike[str]], *, use_tlc: bool = True
) -> tuple[list[Verdict], float]:
    """Read and validate files; a malformed file gets a verdict naming its bad line."""
    started = time.monotonic()
    traces: list[Trace] = []
    bad: dict[int, Verdict] = {}
    for k, path in enumerate(paths):
        try:
            traces.append(read_trace(path))
        except FormatError as exc:
            bad[k] = Verdict(
                os.fspath(path), 0, False, exc.index, "format", f"format: {exc.detail}"
            )
            traces.append(Trace(Header(), (), os.fspath(path)))
    good = [t for k, t in enumerate(traces) if k not in bad]
    verdicts = iter(validate_traces(good, use_tlc=use_tlc))
    out = [bad[k] if k in bad else next(verdicts) for k in range(len(traces))]
    return out, time.monotonic() - started
