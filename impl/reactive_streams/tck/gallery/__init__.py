"""The gallery: broken implementations, one per bug class, and the rule the kit must name.

Each :class:`Entry` is a bug class of the catalogue in docs/conformance.md (P = publisher,
S = subscriber, X = processor): a mutation of a small correct implementation
(``bug=None`` is the correct control), the rule it breaks, and how the JVM TCK fares
(``jvm``: the test that catches it, or ``"NONE"``). ``legal`` entries are behaviours the
specification allows: no required check may fail on them. ``unreproducible`` entries say
why no Python mutation exists. ``tests/tck/test_gallery.py`` runs every entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .processors import GalleryProcessor
from .publishers import FailedPublisher, FailingPublisher, GalleryPublisher
from .subscribers import AsyncSubscriber, GallerySubscriber

__all__ = [
    "ENTRIES",
    "AsyncSubscriber",
    "Entry",
    "FailedPublisher",
    "FailingPublisher",
    "GalleryProcessor",
    "GalleryPublisher",
    "GallerySubscriber",
    "by_id",
]

Kind = str  # "publisher" | "whitebox" | "blackbox" | "processor"


@dataclass(frozen=True)
class Entry:
    """One bug class: its id, the suite that checks it (``kind``), the rule it breaks, a
    summary, and the JVM TCK's verdict on it. ``run()`` puts the mutation through the kit."""

    id: str
    kind: Kind
    rule: str
    summary: str
    jvm: str
    legal: bool = False
    threaded: bool = False
    """The mutation signals from its own threads (timed mode, not synchronous)."""
    executor: bool = False
    """The subscriber takes the kit's executor (deterministic quiescence)."""
    unreproducible: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    cited_by: tuple[str, ...] = ()
    """Checks of another rule whose failure cites the entry's rule (run by the kill test)."""

    def caught_by(self, result: Any) -> bool:
        """A failed check result catches the entry: the check is of the entry's rule, or
        is one of ``cited_by`` and its failure cites the entry's rule."""
        if not result.failed:
            return False
        return result.rule == self.rule or (
            result.name in self.cited_by and result.violated == self.rule
        )

    @property
    def jvm_catches(self) -> bool:
        return not self.jvm.startswith("NONE")

    def run(self, only: Callable[[Any], bool] | None = None, **overrides: Any) -> Any:
        """Run the entry's suite; returns the kit's Report."""
        from .. import (
            run_processor_checks,
            run_publisher_checks,
            run_subscriber_blackbox_checks,
            run_subscriber_whitebox_checks,
        )

        if self.unreproducible:
            raise ValueError(f"{self.id} has no mutation: {self.unreproducible}")
        settings: dict[str, Any] = {"synchronous": not self.threaded, **self.config, **overrides}
        bug = None if self.id == "control" else self.id
        label = f"gallery {self.id}"
        if self.kind == "publisher":
            failed_bug = bug if bug in ("P33", "P34", "P50") else None
            failing_bug = bug if bug == "P35" else None
            return run_publisher_checks(
                lambda n: GalleryPublisher(n, bug),
                create_failed_publisher=lambda: FailedPublisher(failed_bug),
                create_failing_publisher=lambda n: FailingPublisher(n, failing_bug),
                only=only,
                label=label,
                **settings,
            )
        if self.kind == "whitebox":
            if self.executor:

                def whitebox(probe: Any, executor: Any) -> Any:
                    return GallerySubscriber(bug, probe, executor)

                return run_subscriber_whitebox_checks(whitebox, only=only, label=label, **settings)
            return run_subscriber_whitebox_checks(
                lambda probe: GallerySubscriber(bug, probe), only=only, label=label, **settings
            )
        if self.kind == "blackbox":
            if self.executor:

                def blackbox(executor: Any) -> Any:
                    return GallerySubscriber(bug, None, executor)

                return run_subscriber_blackbox_checks(blackbox, only=only, label=label, **settings)
            return run_subscriber_blackbox_checks(
                lambda: GallerySubscriber(bug), only=only, label=label, **settings
            )
        assert self.kind == "processor"
        return run_processor_checks(
            lambda size: GalleryProcessor(size, bug), only=only, label=label, **settings
        )


def _p(id: str, rule: str, summary: str, jvm: str, **kw: Any) -> Entry:
    return Entry(id, "publisher", rule, summary, jvm, **kw)


ENTRIES: tuple[Entry, ...] = (
    _p("P01", "1.1", "emits before any request (eager push)", "required_spec101"),
    _p(
        "P02",
        "1.1",
        "sends n+1 per request(n)",
        "required_spec101, spec102, spec107, spec306, spec317",
    ),
    _p(
        "P03",
        "1.1",
        "ignores demand, emitting from two threads",
        "required_spec312, spec317",
        threaded=True,
    ),
    _p("P04", "1.1", "one extra element when cumulative demand crosses 1024", "NONE"),
    _p("P05", "3.8", "lost update on the demand counter (unlocked read-modify-write)", "NONE"),
    _p(
        "P06",
        "3.8",
        "missed wake-up: a request landing while the emitter exits is never served",
        "NONE",
    ),
    _p("P07", "3.17", "demand wraps negative past 2**63 - 1 and emission stalls", "NONE"),
    _p(
        "P08",
        "3.17",
        "demand overflow signalled as on_error",
        "required_spec317 (cumulative / above MAX)",
    ),
    _p(
        "P09",
        "3.17",
        "demand kept in 32 bits (2**63 - 1 truncates to -1)",
        "required_spec317_mustSupportAPendingElementCountUpToLongMaxValue",
    ),
    _p("P10", "1.1", "demand of 1024 or more treated as unbounded", "NONE"),
    _p("P11", "3.9", "request(n <= 0) silently ignored", "required_spec309 x2"),
    _p("P12", "3.9", "request(n <= 0) raises from request()", "required_spec309 x2"),
    _p("P13", "3.9", "request(n <= 0) signals on_error of the wrong type", "required_spec309 x2"),
    _p("P14", "3.9", "request(n <= 0) only logged", "required_spec309 x2"),
    _p("P15", "3.9", "the rule-3.9 error does not cite the rule", "optional_spec309 (skip only)"),
    _p("P16", "1.6", "request(n <= 0) after on_complete signals on_error", "NONE"),
    _p("P17", "3.6", "elements delivered after cancel and a new request", "required_spec306"),
    _p("P18", "3.7", "a second cancel raises", "required_spec307"),
    _p(
        "P19",
        "3.12",
        "cancel ignored (demand still respected)",
        "NONE (async); a synchronous infinite one hangs spec317",
    ),
    _p(
        "P20",
        "3.12",
        "cancel ignored and the rest flushed regardless of demand",
        "required_spec312",
    ),
    _p(
        "P21",
        "3.13",
        "a publisher-level registry keeps the subscriber after cancel",
        "required_spec313 (timed GC)",
    ),
    _p("P22", "3.13", "the subscriber kept after on_complete", "NONE"),
    _p("P23", "1.5", "no on_complete for a finite stream", "required_spec105, createPublisher1/3"),
    _p("P24", "1.7", "on_complete signalled twice", "incidental (receptacle)"),
    _p("P25", "1.7", "completes, then serves more on request", "required_spec107"),
    _p("P26", "1.7", "signals after on_error (a mid-stream 3.9 error)", "NONE"),
    _p(
        "P27",
        "1.3",
        "cancel() signals on_complete on the cancelling thread, overlapping a running on_next",
        "required_spec307 (reads 3.7 as: no signal at all after cancel)",
        cited_by=("extra_spec305_cancel_does_not_wait_for_a_running_on_next",),
    ),
    _p(
        "P28",
        "1.9",
        "on_complete before on_subscribe",
        "required_spec109_mustIssueOnSubscribeForNonNullSubscriber",
    ),
    _p(
        "P29",
        "1.9",
        "on_subscribe never called",
        "required_spec109_mustIssueOnSubscribeForNonNullSubscriber",
    ),
    _p(
        "P30",
        "1.9",
        "on_subscribe called twice",
        "required_spec109_mustIssueOnSubscribeForNonNullSubscriber",
    ),
    _p(
        "P31",
        "1.9",
        "subscribe(None) returns normally",
        "required_spec109_subscribeThrowNPEOnNullSubscriber",
    ),
    _p("P32", "1.9", "subscribe() raises for a second subscriber", "NONE (required level)"),
    _p(
        "P33",
        "1.9",
        "failed publisher: on_error without on_subscribe",
        "required_spec109_mayReject...",
    ),
    _p("P34", "1.4", "failed publisher never signals on_error", "required_spec109_mayReject..."),
    _p("P35", "1.4", "mid-stream source failure swallowed (completes instead)", "NONE"),
    _p(
        "P36",
        "1.3",
        "signals from a requesting thread overlap a running on_next",
        "stochastic_spec103 only",
    ),
    _p(
        "P37",
        "1.3",
        "on_next on another thread while on_subscribe runs",
        "stochastic_spec103 only",
        threaded=True,
    ),
    Entry(
        "P38",
        "publisher",
        "1.3",
        "serial but without happens-before",
        "NONE",
        unreproducible="CPython's interpreter lock publishes every write between threads; a missing memory fence has no observable effect",
    ),
    _p("P39", "3.3", "unbounded recursion request -> on_next -> request", "required_spec303"),
    _p(
        "P40",
        "3.2",
        "request() not reentrant (deadlocks when called from on_next)",
        "required_spec302 (as a hang)",
    ),
    _p("P41", "3.4", "request() blocks while on_next runs on another thread", "NONE"),
    _p("P42", "3.5", "cancel() blocks while on_next runs on another thread", "NONE"),
    _p("P43", "3.5", "cancel() not thread-safe: frees what the emitter is using", "NONE"),
    _p("P44", "2.13", "emits a None element", "misdiagnosed (null reads as end-of-stream)"),
    _p(
        "P45",
        "1.11",
        "claims multicast, sends each subscriber a different order",
        "optional_spec111 (skip only)",
    ),
    _p("P46", "1.11", "per-subscription demand shared by all subscribers", "NONE"),
    Entry(
        "P47",
        "publisher",
        "1.10",
        "the same subscriber instance accepted twice",
        "NONE",
        unreproducible="rule 1.10 binds the caller of subscribe(), and the 3.13 intent says a publisher need not remember past subscribers; the kit's helper publishers flag a caller that does it",
    ),
    _p("P48", "1.8", "cancel() inside on_subscribe ignored", "NONE"),
    _p(
        "P49",
        "-",
        "lazy completion (on_complete only after an extra request)",
        "tolerated",
        legal=True,
    ),
    _p(
        "P50",
        "1.4",
        "failed publisher signals on_error only after a request",
        "required_spec109_mayReject, optional_spec104 (contested, #559)",
    ),
    _p(
        "P51",
        "3.12",
        "cancel ignored by an asynchronous emitter (a starved one looks stopped)",
        "NONE",
        threaded=True,
    ),
    _p(
        "P52",
        "1.3",
        "unserialised asynchronous drain: a drain thread per request",
        "stochastic_spec103 only",
        threaded=True,
        cited_by=("extra_spec308_concurrent_requests_add_up_exactly",),
    ),
    _p(
        "P53",
        "3.8",
        "the drain stores the demand it read before on_next (a concurrent request is lost)",
        "NONE",
        threaded=True,
    ),
    Entry("S01", "whitebox", "2.1", "never requests", "required_spec201"),
    Entry("S02", "whitebox", "2.1", "requests 0", "ManualPublisher.expectRequest"),
    Entry("S03", "whitebox", "2.3", "cancels inside on_complete / on_error", "required_spec203 x2"),
    Entry(
        "S04",
        "whitebox",
        "2.3",
        "cancels after on_complete, from another task",
        "NONE",
        executor=True,
    ),
    Entry("S05", "whitebox", "2.5", "does not cancel a second subscription", "required_spec205"),
    Entry(
        "S06",
        "blackbox",
        "2.5",
        "requests from the second subscription",
        "required_spec205_blackbox",
    ),
    Entry(
        "S07", "whitebox", "2.5", "cancels the active subscription on a second on_subscribe", "NONE"
    ),
    Entry("S08", "whitebox", "2.13", "accepts None arguments", "required_spec213 x3"),
    Entry("S09", "blackbox", "2.13", "on_next raises on an ordinary element", "NONE"),
    Entry("S10", "whitebox", "2.8", "raises on on_next after its own cancel", "required_spec208"),
    Entry(
        "S11", "whitebox", "2.9", "not ready for on_complete without a request", "required_spec209"
    ),
    Entry(
        "S12", "whitebox", "2.10", "not ready for on_error without a request", "required_spec210"
    ),
    Entry("S13", "whitebox", "2.7", "requests from two threads at once", "NONE"),
    Entry(
        "S14",
        "whitebox",
        "2.11",
        "unsafe hand-off of signals to a worker",
        "NONE",
        unreproducible="a memory-model rule: under CPython's interpreter lock an unsafe hand-off behaves like a safe one",
    ),
    Entry("S15", "whitebox", "2.6", "told it is no longer needed, it does not cancel", "NONE"),
    Entry(
        "S16",
        "blackbox",
        "2.4",
        "requests again after on_complete, from another task",
        "NONE",
        executor=True,
    ),
    Entry("S17", "blackbox", "3.10", "stores its subscription only after requesting", "NONE"),
    Entry(
        "S18",
        "blackbox",
        "2.2",
        "heavy work in on_next on the publisher's thread",
        "NONE",
        unreproducible="2.2 is a SHOULD with no threshold; telling heavy from prompt needs wall-clock time",
    ),
    Entry(
        "S19",
        "blackbox",
        "2.1",
        "mishandles elements when run unmodified",
        "not exercised (#459: blackbox 2.1 sends no element)",
    ),
    Entry(
        "X01",
        "processor",
        "4.2",
        "holds on_error until downstream demand",
        "mustImmediatelyPassOnOnErrorEvents... (contested, #559)",
    ),
    Entry(
        "X02",
        "processor",
        "1.4",
        "on_error reaches only the first subscriber",
        "required_spec104_mustCallOnErrorOnAllItsSubscribers...",
    ),
    Entry(
        "X03",
        "processor",
        "2.1",
        "does not buffer for a subscriber without demand",
        "required_mustRequestFromUpstreamForElementsThatHaveBeenRequestedLongAgo",
    ),
    Entry(
        "X04",
        "processor",
        "2.1",
        "no upstream cancel when its only downstream cancels (not mandated; flagged like the JVM TCK)",
        "required_exerciseWhiteboxHappyPath (stricter than the spec)",
    ),
    Entry(
        "X05",
        "processor",
        "4.2",
        "recovers from on_error but keeps requesting from the dead upstream",
        "NONE",
    ),
    Entry(
        "X06",
        "processor",
        "-",
        "coordinated (lockstep) emission, declared",
        "false failure unless declared",
        legal=True,
        config={"coordinated_emission": True},
    ),
)


def by_id(entry_id: str) -> Entry:
    """The entry with this id (``"P02"``, ``"S13"``, ``"control"`` is not one); KeyError
    if there is none."""
    for entry in ENTRIES:
        if entry.id == entry_id:
            return entry
    raise KeyError(entry_id)


@dataclass(frozen=True)
class Kill:
    """One row of the kill table: what a full run of the kit says about an entry."""

    entry: Entry
    caught: bool
    on_rule: list[str]
    """Failed checks that catch the entry (``Entry.caught_by``)."""
    ported_jvm_fails: bool
    """A port of a JVM TCK test fails it (required or stochastic)."""
    seconds: float


def kill_table(**overrides: Any) -> list[Kill]:
    """Run every reproducible entry through its whole suite (a few minutes)."""
    import time

    rows: list[Kill] = []
    for entry in ENTRIES:
        if entry.unreproducible:
            rows.append(Kill(entry, False, [], False, 0.0))
            continue
        started = time.monotonic()
        tight = {} if entry.legal else {"check_timeout": 5.0, "check_cap": 5.0, "timeout": 1.0}
        report = entry.run(**{**tight, **overrides})
        on_rule = [r.name for r in report.failures() if entry.caught_by(r)]
        caught = report.ok if entry.legal else bool(on_rule)
        ported = any(r.jvm is not None and r.outcome == "failed" for r in report.results)
        rows.append(Kill(entry, caught, on_rule, ported, time.monotonic() - started))
    return rows


def render_kill_table(rows: list[Kill]) -> str:
    """Markdown: id, rule, bug, JVM TCK verdict, kit verdict and the checks that fail."""
    out = [
        "| id | rule | bug class | JVM TCK | kit | failing checks on the rule |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        e = row.entry
        if e.unreproducible:
            verdict = "not reproducible"
        elif e.legal:
            verdict = "passes (legal)" if row.caught else "FALSE FAILURE"
        else:
            verdict = "caught" if row.caught else "MISSED"
        checks = ", ".join(f"`{name}`" for name in dict.fromkeys(row.on_rule))
        if e.unreproducible:
            checks = e.unreproducible
        out.append(f"| {e.id} | {e.rule} | {e.summary} | {e.jvm} | {verdict} | {checks} |")
    return "\n".join(out)
