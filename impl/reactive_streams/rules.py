"""The rule registry: one row per rule of Reactive Streams 1.0.4, sections 1 to 4.

This table is the single source of truth that links each rule to the places that
enforce or check it:

* ``tla``: invariants and temporal properties in ``spec/ReactiveStreams.tla``;
* ``twins``: their Python twins, the function objects of
  ``reactive_streams.trace.invariants.TWINS`` (snake_case names, ``stateful``);
* the conformance kit's checks, whose names carry the rule code
  (``required_spec309_...``), grouped by :func:`kit_checks_by_rule`;
* unit tests, named after the rule code (``test_spec309_...``).

``docs/rules.md`` is rendered from it (``python -m reactive_streams.rules``) and
``tests/test_rules_registry.py`` keeps the table, the spec, the twins, the kit
and the docs in sync. Summaries paraphrase the specification; the normative text
is the reactive-streams-jvm 1.0.4 README.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["BY_ID", "RULES", "Level", "Rule", "kit_checks_by_rule", "render_markdown", "snake_case"]

Level = Literal["MUST", "MUST NOT", "SHOULD", "MAY", "NOTE"]


@dataclass(frozen=True)
class Rule:
    """One rule: its id (``"3.9"``), RFC 2119 level, a paraphrase, and the spec's names for it."""

    id: str
    level: Level
    summary: str
    tla: tuple[str, ...] = field(default=())

    @property
    def code(self) -> str:
        """The identifier form used in test and check names: ``"3.9"`` -> ``"spec309"``."""
        section, number = self.id.split(".")
        return f"spec{section}{int(number):02d}"

    @property
    def twins(self) -> tuple[Callable[..., Any], ...]:
        """The Python twins of ``tla``: functions of ``reactive_streams.trace.invariants``."""
        from .trace.invariants import TWINS

        return tuple(TWINS[name] for name in self.tla)

    @property
    def stateful(self) -> tuple[str, ...]:
        """Names of the Python twins of ``tla`` (snake_case)."""
        return tuple(twin.__name__ for twin in self.twins)


def snake_case(tla_name: str) -> str:
    """``Spec101_DeliveredLeqRequestedInv`` -> ``spec101_delivered_leq_requested_inv``."""
    out: list[str] = []
    for i, ch in enumerate(tla_name):
        if ch.isupper() and i > 0 and tla_name[i - 1] not in "_" and not tla_name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


RULES: tuple[Rule, ...] = (
    # --- 1. Publisher -------------------------------------------------------------------------
    Rule(
        "1.1",
        "MUST",
        "The total number of onNext signals to a Subscriber is at most the total it requested.",
        tla=("Spec101_DeliveredLeqRequestedInv",),
    ),
    Rule(
        "1.2",
        "MAY",
        "A Publisher may signal fewer onNext than requested and end with onComplete or onError.",
    ),
    Rule(
        "1.3",
        "MUST",
        "onSubscribe, onNext, onError and onComplete to a Subscriber are signalled serially.",
        tla=("Spec103_SerialSignalsInv",),
    ),
    Rule("1.4", "MUST", "A failed Publisher signals onError."),
    Rule(
        "1.5",
        "MUST",
        "A Publisher that terminates successfully signals onComplete.",
        tla=("Spec105_CompletesProp",),
    ),
    Rule("1.6", "MUST", "After onError or onComplete the Subscription is considered cancelled."),
    Rule(
        "1.7",
        "MUST",
        "After a terminal signal no further signals occur.",
        tla=("Spec107_NothingAfterTerminalInv",),
    ),
    Rule("1.8", "MUST", "After cancel, signals eventually stop.", tla=("Spec108_CancelStopsProp",)),
    Rule(
        "1.9",
        "MUST",
        "subscribe calls onSubscribe before any other signal and returns normally, except for a null Subscriber (TypeError).",
        tla=("Spec109_OnSubscribeFirstInv", "Spec109_OnSubscribeEventuallyProp"),
    ),
    Rule(
        "1.10", "MAY", "subscribe may be called many times, each time with a different Subscriber."
    ),
    Rule(
        "1.11",
        "MAY",
        "A Publisher may support multiple Subscribers and decides unicast or multicast.",
    ),
    # --- 2. Subscriber ------------------------------------------------------------------------
    Rule(
        "2.1", "MUST", "A Subscriber signals demand through request(n) to receive onNext signals."
    ),
    Rule(
        "2.2",
        "SHOULD",
        "A Subscriber that suspects its processing harms the Publisher's responsiveness dispatches asynchronously.",
    ),
    Rule(
        "2.3",
        "MUST NOT",
        "onComplete and onError do not call methods on the Subscription or the Publisher.",
    ),
    Rule(
        "2.4",
        "MUST",
        "onComplete and onError make the Subscriber consider the Subscription cancelled.",
    ),
    Rule(
        "2.5",
        "MUST",
        "A Subscriber that already has an active Subscription cancels any new one given to onSubscribe.",
    ),
    Rule("2.6", "MUST", "A Subscriber cancels its Subscription when it no longer needs it."),
    Rule(
        "2.7",
        "MUST",
        "A Subscriber calls request and cancel serially.",
        tla=("SerialCallsInv", "Spec207_NoNestedCallsInv"),
    ),
    Rule("2.8", "MUST", "A Subscriber is prepared for onNext after it called cancel."),
    Rule(
        "2.9",
        "MUST",
        "A Subscriber is prepared for onComplete with or without a preceding request.",
    ),
    Rule(
        "2.10", "MUST", "A Subscriber is prepared for onError with or without a preceding request."
    ),
    Rule(
        "2.11",
        "MUST",
        "Signal processing happens-after the signal call; a Subscriber publishes its state safely.",
    ),
    Rule(
        "2.12",
        "MUST",
        "onSubscribe is called at most once per Subscriber (the same Subscriber is not subscribed twice).",
        tla=("Spec212_OnSubscribeOnceInv",),
    ),
    Rule(
        "2.13",
        "MUST",
        "Signal methods return normally, except on null arguments (TypeError); a failing Subscriber makes the Publisher cancel it.",
        tla=(
            "Spec213_FaultCancelsProp",
            "Spec213_FaultCancelOnceProp",
            "Spec213_RaisedConsideredCancelledProp",
        ),
    ),
    # --- 3. Subscription ----------------------------------------------------------------------
    Rule("3.1", "MUST", "request and cancel are only called inside the Subscriber's context."),
    Rule("3.2", "MUST", "request may be called synchronously from within onNext and onSubscribe."),
    Rule(
        "3.3",
        "MUST",
        "request places an upper bound on recursion between Publisher and Subscriber.",
        tla=("Spec303_BoundedRecursionInv",),
    ),
    Rule("3.4", "SHOULD", "request respects the responsiveness of its caller."),
    Rule(
        "3.5",
        "MUST",
        "cancel respects the responsiveness of its caller, is idempotent and thread-safe.",
    ),
    Rule(
        "3.6",
        "MUST",
        "After the Subscription is cancelled, further request(n) are no-ops.",
        tla=("Spec306_RequestAfterCancelNopInv",),
    ),
    Rule(
        "3.7",
        "MUST",
        "After the Subscription is cancelled, further cancel() calls are no-ops.",
        tla=("Spec307_RepeatedCancelNopInv",),
    ),
    Rule(
        "3.8",
        "MUST",
        "While not cancelled, request(n) registers n more elements to be produced.",
        tla=("Spec308_RequestAddsDemandInv", "Spec308_DemandServedProp"),
    ),
    Rule(
        "3.9",
        "MUST",
        "While not cancelled, request(n) with n <= 0 signals onError with an IllegalArgumentException (here ValueError).",
        tla=("Spec309_InvalidRequestNoCompleteInv", "Spec309_InvalidRequestErrorsProp"),
    ),
    Rule(
        "3.10",
        "MAY",
        "While not cancelled, request(n) may synchronously call onNext on this Subscriber.",
    ),
    Rule(
        "3.11",
        "MAY",
        "While not cancelled, request(n) may synchronously call onComplete or onError.",
    ),
    Rule(
        "3.12",
        "MUST",
        "While not cancelled, cancel requests the Publisher to eventually stop signalling.",
        tla=("Spec312_SilentAfterCancelInv",),
    ),
    Rule(
        "3.13",
        "MUST",
        "While not cancelled, cancel requests the Publisher to eventually drop references to the Subscriber.",
        tla=("Spec313_DropReferenceProp",),
    ),
    Rule(
        "3.14",
        "MAY",
        "While not cancelled, cancel may cause the Publisher to transition to cancelled state.",
    ),
    Rule("3.15", "MUST", "cancel returns normally.", tla=("Spec315_CallsReturnProp",)),
    Rule("3.16", "MUST", "request returns normally."),
    Rule(
        "3.17",
        "MUST",
        "Demand up to 2**63-1 is supported; reaching it is 'effectively unbounded' (saturate, never wrap).",
        tla=("Spec317_DemandSaturatesInv",),
    ),
    # --- 4. Processor -------------------------------------------------------------------------
    Rule(
        "4.1", "MUST", "A Processor is both a Subscriber and a Publisher and obeys both contracts."
    ),
    Rule(
        "4.2",
        "MAY",
        "A Processor may recover from an onError; if it does, it considers the Subscription cancelled, else it propagates the error.",
    ),
)

BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def kit_checks_by_rule() -> dict[str, list[str]]:
    """Conformance-kit check names grouped by rule id (imports the kit lazily)."""
    from .tck import all_check_names

    grouped: dict[str, list[str]] = {rule.id: [] for rule in RULES}
    for name in all_check_names():
        code = name.split("_", 2)[1]  # "<status>_specXYY_<what>"
        grouped[f"{code[4]}.{int(code[5:7])}"].append(name)
    return grouped


def render_markdown() -> str:
    """The table in ``docs/rules.md``."""
    kit = kit_checks_by_rule()
    lines = [
        "# Rules",
        "",
        "Generated by `python -m reactive_streams.rules` (`make docs`) from",
        "`impl/reactive_streams/rules.py`; `tests/test_rules_registry.py` fails when it is stale.",
        "",
        "Each rule links the TLA+ operators that check it in `spec/ReactiveStreams.tla`,",
        "their Python twins (same name in snake_case, in `reactive_streams.trace.invariants`,",
        "used by the stateful machines, trace validation and the kit), and the conformance-kit",
        "checks (`python -m reactive_streams.tck`). Unit tests carry the rule code in their",
        "name (`test_spec309_...`).",
        "",
        "| rule | level | summary | TLA+ (spec) | Python twin | kit checks |",
        "|---|---|---|---|---|---|",
    ]
    for rule in RULES:
        tla = "<br>".join(f"`{name}`" for name in rule.tla) or "-"
        twin = "<br>".join(f"`{name}`" for name in rule.stateful) or "-"
        checks = kit[rule.id]
        kit_cell = "<br>".join(f"`{name}`" for name in checks) if checks else "-"
        lines.append(f"| {rule.id} | {rule.level} | {rule.summary} | {tla} | {twin} | {kit_cell} |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render_markdown())
