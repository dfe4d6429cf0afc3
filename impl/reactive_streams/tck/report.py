"""Check results and the report: a table for people, JSON for machines."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Literal

__all__ = ["CheckResult", "Outcome", "Report"]

Outcome = Literal["passed", "failed", "failed-optional", "untested", "skipped"]


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
    """``deterministic`` or ``timed`` (absence judged by a quiet period)."""
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
        timed = sum(1 for r in self.results if r.evidence == "timed")
        note = f"; {timed} judged absence by a quiet period" if timed else ""
        return f"{self.subject}: {', '.join(parts)} in {self.seconds:.1f}s{note}"

    def table(self, *, width: int = 100) -> str:
        rows = [("rule", "check", "status", "outcome", "message")]
        for r in self.results:
            message = r.message.replace("\n", " ")
            if len(message) > width:
                message = message[: width - 3] + "..."
            rows.append((r.rule, r.name, r.status, r.outcome, message))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = []
        for i, row in enumerate(rows):
            lines.append(
                "  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row[:4])) + "  " + row[4]
            )
            if i == 0:
                lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 7)
        lines.append("")
        lines.append(self.summary())
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "subject": self.subject,
                "ok": self.ok,
                "seconds": round(self.seconds, 3),
                "counts": self.counts(),
                "results": [asdict(r) for r in self.results],
            },
            indent=2,
        )

    def write_json(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_json() + "\n")
