"""The check registry: every check has a name, a rule, a status and (unless untested) a body.

Names follow the JVM TCK (``required_spec101_...`` in snake_case). Statuses are the
JVM's: ``required`` (a MUST; failing fails the run), ``optional`` (a MAY/SHOULD, or a
reading stricter than the MUST; failing is reported as ``failed-optional``),
``stochastic`` (repeated; may pass a broken implementation by luck) and ``untested``
(never run; the reason is reported). Checks that go beyond the JVM TCK are named
``extra_specXYY_...`` and carry one of the first three statuses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["STATUSES", "Check", "Status", "Suite", "check", "checks_of"]

Status = Literal["required", "optional", "stochastic", "untested"]
Suite = Literal["publisher", "subscriber_whitebox", "subscriber_blackbox", "processor"]
STATUSES: tuple[Status, ...] = ("required", "optional", "stochastic", "untested")

_NAME = re.compile(r"^(required|optional|stochastic|untested|extra)_spec(\d)(\d\d)_[a-z0-9_]+$")

Body = Callable[..., None]


@dataclass(frozen=True)
class Check:
    name: str
    suite: Suite
    rule: str
    status: Status
    jvm: str | None
    """The JVM TCK method this check ports (None for an ``extra_`` check)."""
    body: Body | None
    reason: str = ""
    """Untested checks: why. Others: what goes beyond the JVM TCK, if anything."""
    threads: int = 0
    """Executor mode: worker threads of the kit's executor (0: driven by the check)."""
    needs: tuple[str, ...] = ()
    """Optional inputs the check skips without (e.g. ``"failed"``, ``"hypothesis"``)."""

    @property
    def extra(self) -> bool:
        return self.jvm is None

    @property
    def doc(self) -> str:
        return (self.body.__doc__ or "").strip() if self.body is not None else self.reason


_REGISTRY: dict[Suite, list[Check]] = {
    "publisher": [],
    "subscriber_whitebox": [],
    "subscriber_blackbox": [],
    "processor": [],
}


def check(
    suite: Suite,
    *,
    jvm: str | None = None,
    status: Status | None = None,
    threads: int = 0,
    needs: tuple[str, ...] = (),
    reason: str = "",
) -> Callable[[Body], Body]:
    """Register the decorated function as a check named after it."""

    def register(body: Body) -> Body:
        add(
            suite,
            body.__name__,
            body,
            jvm=jvm,
            status=status,
            threads=threads,
            needs=needs,
            reason=reason,
        )
        return body

    return register


def add(
    suite: Suite,
    name: str,
    body: Body | None,
    *,
    jvm: str | None = None,
    status: Status | None = None,
    threads: int = 0,
    needs: tuple[str, ...] = (),
    reason: str = "",
) -> Check:
    match = _NAME.match(name)
    if match is None:
        raise ValueError(f"check name {name!r} does not follow <status>_specXYY_<what>")
    prefix, section, number = match.groups()
    if prefix == "extra":
        if status is None:
            raise ValueError(f"{name}: an extra check needs an explicit status")
        if jvm is not None:
            raise ValueError(f"{name}: an extra check ports no JVM test")
    else:
        if status is not None and status != prefix:
            raise ValueError(f"{name}: status {status} contradicts the prefix")
        status = prefix  # type: ignore[assignment]
        if jvm is None:
            raise ValueError(f"{name}: name the JVM test it ports")
    assert status is not None
    if (status == "untested") != (body is None):
        raise ValueError(f"{name}: untested checks (only) have no body")
    if status == "untested" and not reason:
        raise ValueError(f"{name}: an untested check must say why")
    entry = Check(
        name, suite, f"{section}.{int(number)}", status, jvm, body, reason, threads, needs
    )
    if any(c.name == name for c in _REGISTRY[suite]):
        raise ValueError(f"duplicate check {name} in {suite}")
    _REGISTRY[suite].append(entry)
    return entry


def untested(suite: Suite, name: str, jvm: str, reason: str) -> None:
    add(suite, name, None, jvm=jvm, reason=reason)


def checks_of(suite: Suite) -> list[Check]:
    return list(_REGISTRY[suite])


def call(c: Check, env: Any, subject: Any) -> None:
    assert c.body is not None
    c.body(env, subject)
