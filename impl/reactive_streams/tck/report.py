"""Check results and the report: a table for people, JSON for machines."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Any, Literal

__all__ = ["EVIDENCE", "MIN_WIDTH", "CheckResult", "Outcome", "Report", "kit_version"]

MIN_WIDTH = 40
"""The narrowest table ``Report.table`` lays out."""

Outcome = Literal["passed", "failed", "failed-optional", "untested", "skipped"]

EVIDENCE = ("deterministic", "deadline", "quiet period")
"""What a result rests on: something observed (or exact quiescence), a deadline that
passed, or absence judged by a quiet period."""

SPEC = "1.0.4"


def kit_version() -> str:
    """The version of the package the kit ships in."""
    try:
        return metadata.version("reactive-streams-reference")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class CheckResult:
    suite: str
    name: str
    rule: str
    status: str
    outcome: Outcome
    message: str = ""
    violated: str | None = None
    """The rule the failure message cites (may differ from ``rule``)."""
    evidence: str = "deterministic"
    """One of ``EVIDENCE``: ``deterministic``, ``deadline`` or ``quiet period``."""
    seconds: float = 0.0
    jvm: str | None = None

    @property
    def failed(self) -> bool:
        return self.outcome in ("failed", "failed-optional")


@dataclass
class Report:
    subject: str
    results: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0
    mode: str = ""
    """How absence was judged: ``executor``, ``synchronous`` or ``timed``."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The ``Config`` the checks ran with."""
    deadlocks: dict[str, str] = field(default_factory=dict)
    """Where the subject deadlocked (file:line) and the check that reported it."""
    threads_left_running: int = 0
    """Set by the CLI: threads still alive after the checks that Python's exit would wait
    for (non-daemon ones, pool workers); it exits without waiting."""

    @property
    def ok(self) -> bool:
        """True when no required (or stochastic) check failed."""
        return not any(r.outcome == "failed" for r in self.results)

    def failures(self, *, optional: bool = True) -> list[CheckResult]:
        kinds = ("failed", "failed-optional") if optional else ("failed",)
        return [r for r in self.results if r.outcome in kinds]

    def failed_rules(self) -> set[str]:
        """Rules of failed checks, plus the rules their messages cite."""
        rules: set[str] = set()
        for r in self.failures():
            rules.add(r.rule)
            if r.violated:
                rules.add(r.violated)
        return rules

    def result(self, name: str) -> CheckResult:
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)

    def counts(self) -> dict[str, int]:
        return dict(Counter(r.outcome for r in self.results))

    def summary(self) -> str:
        counts = self.counts()
        parts = [
            f"{counts.get(k, 0)} {k}"
            for k in ("passed", "failed", "failed-optional", "skipped", "untested")
        ]
        timed = sum(1 for r in self.results if r.evidence == "quiet period")
        note = f"; {timed} judged absence by a quiet period" if timed else ""
        return f"{self.subject}: {', '.join(parts)} in {self.seconds:.1f}s{note}"

    def table(self, *, width: int | None = None) -> str:
        """One row per check (rule, status, outcome, check), its message on the lines
        below, then the summary. With ``width``, no line is longer than ``width``: long
        names and messages wrap (``width`` must be at least ``MIN_WIDTH``)."""
        if width is not None and width < MIN_WIDTH:
            raise ValueError(f"width must be at least {MIN_WIDTH}, got {width}")
        rows = [(r.rule, r.status, r.outcome, r.name, r.message) for r in self.results]
        head = ("rule", "status", "outcome")
        widths = [max([len(head[i]), *(len(row[i]) for row in rows)]) for i in range(3)]
        indent = sum(widths) + 2 * len(widths)
        if width is not None and width - indent < 20:  # keep room for the check column
            indent = min(indent, 6)
        lines = [
            _columns(head, widths) + "check",
            _columns(["-" * w for w in widths], widths) + "-----",
        ]
        for rule, status, outcome, name, message in rows:
            first = _columns((rule, status, outcome), widths)
            if width is None:
                lines.append(first + name)
            else:
                lines.extend(_fit(first, name, width, indent))
            text = " ".join(message.split())
            if text:
                lines.extend(_wrap(text, width, indent))
        failures = self.failures()
        if failures:  # rule, check, and a one-line reason under it
            lines.extend(["", "failures:"])
            rules = [f"rule {r.violated or r.rule}" for r in failures]
            pad = max(len(rule) for rule in rules) + 2
            for rule, r in zip(rules, failures, strict=True):
                first = rule.ljust(pad)
                lines.extend([first + r.name] if width is None else _fit(first, r.name, width, 4))
                room = (width if width is not None else 124) - 4
                reason = " ".join(r.message.split()) or "(no message)"
                if len(reason) > room:
                    reason = reason[: room - 3] + "..."
                lines.append("    " + reason)
        lines.append("")
        lines.extend(_wrap(self.summary(), width, 0))
        if self.threads_left_running:
            note = (
                f"{self.threads_left_running} thread(s) of the subject still running after "
                "the checks (non-daemon, or pool workers Python's exit joins): exiting "
                "without waiting for them"
            )
            lines.extend(_wrap(note, width, 0))
        return "\n".join(line[:width] if width is not None else line for line in lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "subject": self.subject,
                "kit": {"version": kit_version(), "spec": SPEC},
                "mode": self.mode,
                "settings": self.settings,
                "ok": self.ok,
                "seconds": round(self.seconds, 3),
                "counts": self.counts(),
                "threads_left_running": self.threads_left_running,
                "results": [asdict(r) for r in self.results],
            },
            indent=2,
        )

    def write_json(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_json() + "\n")


def _columns(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "".join(cell.ljust(w) + "  " for cell, w in zip(cells, widths, strict=True))


def _fit(first: str, name: str, width: int, indent: int) -> list[str]:
    """``first`` then ``name``, broken after underscores so every line fits ``width``."""
    room = width - len(first)
    if len(name) <= room:
        return [first + name]
    if room < 20:  # the status columns leave too little room: the name goes below
        lines, rest = [first.rstrip()], name
    else:
        cut = _cut(name, room)
        lines, rest = [first + name[:cut]], name[cut:]
    while rest:
        cut = _cut(rest, width - indent)
        lines.append(" " * indent + rest[:cut])
        rest = rest[cut:]
    return lines


def _cut(name: str, room: int) -> int:
    if len(name) <= room:
        return len(name)
    at = name.rfind("_", 0, room) + 1
    return at if at > room // 2 else room


def _wrap(text: str, width: int | None, indent: int) -> list[str]:
    """Words packed into lines of at most ``width``; a word longer than a line (a check
    name) breaks after an underscore."""
    pad = " " * indent
    if width is None:
        return [pad + text]
    room = width - indent
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) <= room:
            line += " " + word
            continue
        if line:
            lines.append(pad + line)
        while len(word) > room:
            cut = _cut(word, room)
            lines.append(pad + word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(pad + line)
    return lines
