"""The catalogue: every bug class of the gallery, collected from the ``rules_*`` and
``legal`` modules; how one runs through the kit; the kill table rendered from them.

A bug class is found, not listed: any :class:`~.specimen.Specimen` subclass defined in
one of ``MODULES`` with an ``id`` of its own. ``UNREPRODUCIBLE`` holds the catalogue's
entries that no Python mutation can show, and why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .._checks import Suite, checks_of
from . import legal, rules_1_publisher, rules_2_subscriber, rules_3_subscription, rules_4_processor
from .processors import GalleryProcessor
from .publishers import FailedPublisher, FailingPublisher, GalleryPublisher, ThreadedPublisher
from .specimen import Specimen
from .subscribers import GallerySubscriber

__all__ = [
    "BUGS",
    "CONTROLS",
    "MODULES",
    "UNREPRODUCIBLE",
    "Unreproducible",
    "by_id",
    "control_of",
    "render_kill_table",
    "run",
    "suite_of",
    "summary",
]

Bug = type[Specimen]

MODULES: tuple[ModuleType, ...] = (
    rules_1_publisher,
    rules_2_subscriber,
    rules_3_subscription,
    rules_4_processor,
    legal,
)

CONTROLS: tuple[Bug, ...] = (
    GalleryPublisher,
    FailedPublisher,
    FailingPublisher,
    ThreadedPublisher,
    GallerySubscriber,
    GalleryProcessor,
)
"""The correct subjects; every bug subclasses one."""


def _defined_in(module: ModuleType) -> list[Bug]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Specimen)
        and value.__module__ == module.__name__
        and "id" in vars(value)
    ]


BUGS: tuple[Bug, ...] = tuple(
    sorted((bug for module in MODULES for bug in _defined_in(module)), key=lambda b: b.id)
)
"""Every reproducible bug class (legal variants included), by id."""


@dataclass(frozen=True)
class Unreproducible:
    """A bug class of the catalogue that no Python mutation can show."""

    id: str
    rule: str
    summary: str
    jvm: str
    why: str


UNREPRODUCIBLE: tuple[Unreproducible, ...] = (
    Unreproducible(
        "P38",
        "1.3",
        "Serial but without happens-before.",
        "NONE",
        "CPython's interpreter lock publishes every write between threads; a missing memory fence has no observable effect",
    ),
    Unreproducible(
        "P47",
        "1.10",
        "The same subscriber instance accepted twice.",
        "NONE",
        "rule 1.10 binds the caller of subscribe(), and the 3.13 intent says a publisher need not remember past subscribers; the kit's helper publishers flag a caller that does it",
    ),
    Unreproducible(
        "S14",
        "2.11",
        "Unsafe hand-off of signals to a worker.",
        "NONE",
        "a memory-model rule: under CPython's interpreter lock an unsafe hand-off behaves like a safe one",
    ),
    Unreproducible(
        "S18",
        "2.2",
        "Heavy work in on_next on the publisher's thread.",
        "NONE",
        "2.2 is a SHOULD with no threshold; telling heavy from prompt needs wall-clock time",
    ),
)


def by_id(bug_id: str) -> Bug:
    """The bug class with this id (``"P02"``); KeyError if none (or unreproducible)."""
    for bug in BUGS:
        if bug.id == bug_id:
            return bug
    raise KeyError(bug_id)


def summary(bug: Bug) -> str:
    """The bug's entry in the kill table: its docstring's first line."""
    return (bug.__doc__ or "").strip().splitlines()[0]


def control_of(bug: Bug) -> Bug:
    """The correct subject ``bug`` mutates (itself, for a control)."""
    return next(c for c in bug.__mro__ if c in CONTROLS)


def suite_of(bug: Bug) -> Suite:
    """The suite ``bug`` runs in: a subscriber's is its check's (whitebox or blackbox)."""
    control = control_of(bug)
    if control is GalleryProcessor:
        return "processor"
    if control is not GallerySubscriber:
        return "publisher"
    suites: list[Suite] = ["subscriber_whitebox", "subscriber_blackbox"]
    found = [s for s in suites if any(c.name == bug.check for c in checks_of(s))]
    if len(found) != 1:
        raise ValueError(f"{bug.id}: check {bug.check!r} is in {found or 'no'} subscriber suite")
    return found[0]


def run(
    bug: Bug,
    *,
    suite: Suite | None = None,
    executor: bool | None = None,
    only: Callable[[Any], bool] | None = None,
    **overrides: Any,
) -> Any:
    """Run ``bug`` (or a control, with ``suite`` for a subscriber) through its suite, in
    the synchronous mode unless it signals from threads of its own; returns the Report.
    ``executor``: a subscriber takes the kit's executor (default ``bug.uses_executor``)."""
    from .. import (
        run_processor_checks,
        run_publisher_checks,
        run_subscriber_blackbox_checks,
        run_subscriber_whitebox_checks,
    )

    settings: dict[str, Any] = {"synchronous": bug.synchronous, **bug.config, **overrides}
    kit: dict[str, Any] = {"only": only, "label": f"gallery {bug.id}", **settings}
    suite = suite or suite_of(bug)
    executor = bug.uses_executor if executor is None else executor
    if suite == "publisher":
        publisher: Bug = GalleryPublisher
        failed: Bug = FailedPublisher
        failing: Bug = FailingPublisher
        if issubclass(bug, FailedPublisher):
            failed = bug
        elif issubclass(bug, FailingPublisher):
            failing = bug
        else:
            publisher = bug
        return run_publisher_checks(
            lambda n: publisher(n),  # type: ignore[call-arg]
            create_failed_publisher=lambda: failed(),
            create_failing_publisher=lambda n: failing(n),  # type: ignore[call-arg]
            **kit,
        )
    if suite == "processor":
        return run_processor_checks(lambda size: bug(size), **kit)  # type: ignore[call-arg]
    if suite == "subscriber_whitebox":
        if executor:

            def whitebox(probe: Any, executor: Any) -> Any:
                return bug(probe, executor)  # type: ignore[call-arg]

            return run_subscriber_whitebox_checks(whitebox, **kit)
        return run_subscriber_whitebox_checks(lambda probe: bug(probe), **kit)  # type: ignore[call-arg]
    if executor:

        def blackbox(executor: Any) -> Any:
            return bug(None, executor)  # type: ignore[call-arg]

        return run_subscriber_blackbox_checks(blackbox, **kit)
    return run_subscriber_blackbox_checks(lambda: bug(), **kit)


def render_kill_table() -> str:
    """Markdown, one row per bug class: id, rule, the class and what it does, the JVM
    TCK's verdict, and the kit check that must fail on it."""
    rows = [
        "| id | rule | bug class | JVM TCK | the kit check that must fail on it |",
        "|---|---|---|---|---|",
    ]
    entries: list[tuple[str, str]] = [(bug.id, _row(bug)) for bug in BUGS]
    entries += [
        (u.id, f"| {u.id} | {u.rule} | {u.summary} | {u.jvm} | not reproducible: {u.why} |")
        for u in UNREPRODUCIBLE
    ]
    rows += [row for _, row in sorted(entries)]
    return "\n".join(rows)


def _row(bug: Bug) -> str:
    verdict = "none: legal, every required check passes" if bug.legal else f"`{bug.check}`"
    where = f"`{bug.__module__.rsplit('.', 1)[-1]}.{bug.__name__}`"
    return f"| {bug.id} | {bug.rule} | {where}: {summary(bug)} | {bug.jvm} | {verdict} |"
