"""The one home of the Python twins of the spec's invariants and properties.

Each twin has the snake_case name of its TLA+ operator
(``Spec101_DeliveredLeqRequestedInv`` -> ``spec101_delivered_leq_requested_inv``) and
returns True when it holds. This module holds those of ``spec/ReactiveStreams.tla``:
most take the state of one subscription as replayed from a trace
(:class:`reactive_streams.trace.state.SubState`); ``check_all`` runs the invariants,
``check_at_rest`` adds the properties on a state at rest (a quiescent recording).
:mod:`.multicast` and :mod:`.spark_sink` hold those of ``Multicast.tla`` and
``SparkSink.tla``. ``SPEC_TWINS`` maps every spec module to its TLA+ names and twin
functions; ``NO_TWIN`` lists the operators without one, with the reason.

The machines (``stateful/``), ``reactive_streams.testing``, the conformance kit and
the trace CLI import these; none defines a twin of its own
(``tests/test_rules_registry.py`` fails if one does).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any, Protocol

from ..state import SubState, any_cancel_queued
from ..transitions import DONE, MAX_DEMAND

_CALLS = ("request", "cancel")

__all__ = [
    "INVARIANTS",
    "NO_TWIN",
    "PROPERTIES_AT_REST",
    "SPEC_TWINS",
    "TWINS",
    "Account",
    "check_all",
    "check_at_rest",
    "serial_calls_inv",
    "spec101_delivered_leq_requested_inv",
    "spec103_serial_signals_inv",
    "spec105_completes_prop",
    "spec107_nothing_after_terminal_inv",
    "spec108_cancel_stops_prop",
    "spec109_on_subscribe_eventually_prop",
    "spec109_on_subscribe_first_inv",
    "spec207_no_nested_calls_inv",
    "spec212_on_subscribe_once_inv",
    "spec213_fault_cancel_once_prop",
    "spec213_fault_cancels_prop",
    "spec303_bounded_recursion_inv",
    "spec306_request_after_cancel_nop_inv",
    "spec307_repeated_cancel_nop_inv",
    "spec308_demand_served_prop",
    "spec308_request_adds_demand_inv",
    "spec309_invalid_request_errors_prop",
    "spec309_invalid_request_no_complete_inv",
    "spec312_silent_after_cancel_inv",
    "spec313_drop_reference_prop",
    "spec317_demand_saturates_inv",
]


def spec101_delivered_leq_requested_inv(s: SubState) -> bool:
    """Rule 1.1: onNext signalled <= elements requested (received), at all times."""
    return s.unbounded or s.next_count <= s.requested


def spec103_serial_signals_inv(s: SubState) -> bool:
    """Rule 1.3: never two top-level on* calls at once, and all open ones on one thread
    (a signal nested in a request/cancel made from a signal is not concurrent)."""
    return s.top_level <= 1 and (not s.open or s.open[0].thread == s.open[-1].thread)


def spec107_nothing_after_terminal_inv(s: SubState) -> bool:
    """Rule 1.7: nothing follows onComplete or onError."""
    return s.after_terminal == 0 and s.count("onComplete") + s.count("onError") <= 1


def spec109_on_subscribe_first_inv(s: SubState) -> bool:
    """Rule 1.9: onSubscribe precedes every other signal."""
    return s.first_sent in (None, "onSubscribe")


def spec207_no_nested_calls_inv(s: SubState) -> bool:
    """Rule 2.7: request()/cancel() never begins directly inside another open call on
    its thread, except the fault cancel inside request() after a raise (rule 2.13)."""
    for stack in s.stacks.values():
        for outer, inner in pairwise(stack):
            nested = outer.sig in _CALLS and inner.sig in _CALLS
            if nested and not (outer.sig == "request" and inner.sig == "cancel" and s.faulted):
                return False
    return True


def serial_calls_inv(s: SubState) -> bool:
    """Rule 2.7 (``SerialCallsInv``): at most one thread is inside request() or cancel()
    (calls nested on one thread are serial). Meaningful once the trace records the
    calls' ends (format version 2), so it is not in ``INVARIANTS`` (docs/spec.md)."""
    return len(s.call_threads) <= 1


def spec212_on_subscribe_once_inv(s: SubState) -> bool:
    """Rule 2.12: onSubscribe at most once per subscription."""
    return s.count("onSubscribe") <= 1


def spec303_bounded_recursion_inv(s: SubState) -> bool:
    """Rule 3.3: onNext -> request -> onNext nests at most ``max_depth`` onNext frames."""
    return s.depth <= s.max_depth


def spec306_request_after_cancel_nop_inv(s: SubState) -> bool:
    """Rule 3.6: a request made after cancel never reaches the Publisher."""
    return s.up_late == 0 and not (s.pub == "cancelled" and s.up_requests > 0)


def spec307_repeated_cancel_nop_inv(s: SubState) -> bool:
    """Rule 3.7: a cancel() once the Publisher is done is a no-op: no cancel in flight
    then (a second cancel queued behind the first is never received, so the spec does
    not count them)."""
    return s.pub not in DONE or not any_cancel_queued(s)


def spec308_request_adds_demand_inv(s: SubState) -> bool:
    """Rule 3.8: the Publisher's demand is what was requested minus what was signalled."""
    expected = MAX_DEMAND if s.unbounded else s.requested - s.next_count
    return s.demand == expected


def spec309_invalid_request_no_complete_inv(s: SubState) -> bool:
    """Rule 3.9: after request(n <= 0) the subscription never completes normally."""
    return not s.invalid or s.count("onComplete") == 0


def spec312_silent_after_cancel_inv(s: SubState) -> bool:
    """Rules 3.12, 1.8: once the cancel is observed, no further signal is committed."""
    return s.pub != "cancelled" or s.sent_total == s.cutoff


def spec317_demand_saturates_inv(s: SubState) -> bool:
    """Rule 3.17: demand stays in 0..2**63-1 and, once unbounded, stays unbounded."""
    return 0 <= s.demand <= MAX_DEMAND and (not s.unbounded or s.demand == MAX_DEMAND)


INVARIANTS: dict[str, Callable[[SubState], bool]] = {
    "Spec101_DeliveredLeqRequestedInv": spec101_delivered_leq_requested_inv,
    "Spec103_SerialSignalsInv": spec103_serial_signals_inv,
    "Spec107_NothingAfterTerminalInv": spec107_nothing_after_terminal_inv,
    "Spec109_OnSubscribeFirstInv": spec109_on_subscribe_first_inv,
    "Spec207_NoNestedCallsInv": spec207_no_nested_calls_inv,
    "Spec212_OnSubscribeOnceInv": spec212_on_subscribe_once_inv,
    "Spec303_BoundedRecursionInv": spec303_bounded_recursion_inv,
    "Spec306_RequestAfterCancelNopInv": spec306_request_after_cancel_nop_inv,
    "Spec307_RepeatedCancelNopInv": spec307_repeated_cancel_nop_inv,
    "Spec308_RequestAddsDemandInv": spec308_request_adds_demand_inv,
    "Spec309_InvalidRequestNoCompleteInv": spec309_invalid_request_no_complete_inv,
    "Spec312_SilentAfterCancelInv": spec312_silent_after_cancel_inv,
    "Spec317_DemandSaturatesInv": spec317_demand_saturates_inv,
}

_RULE = {name: f"{name[4]}.{name[5:7].lstrip('0')}" for name in INVARIANTS}


def check_all(s: SubState) -> list[str]:
    """The invariants ``s`` breaks, as "rule x.y: Name" strings (empty: all hold)."""
    return [f"rule {_RULE[name]}: {name}" for name, holds in INVARIANTS.items() if not holds(s)]


# ----------------------------------------------------------- properties at rest
def spec108_cancel_stops_prop(s: SubState) -> bool:
    """Rules 1.8, 3.12 at rest: after cancel the Publisher has stopped (cancel observed
    or a terminal signal sent) and nothing is in flight."""
    return not s.cancelled or (s.pub in DONE and s.in_flight == 0 and not s.open)


def spec109_on_subscribe_eventually_prop(s: SubState) -> bool:
    """Rule 1.9 at rest: subscribe was answered by onSubscribe."""
    return s.pub != "subscribed" and (s.pub == "idle" or s.delivered >= 1)


def spec213_fault_cancel_once_prop(s: SubState) -> bool:
    """Rule 2.13 (an action property in the spec): a cancel() directly inside request()
    is the implementation's one fault cancel. In a state: such a cancel frame is open
    only after a raise; the replay refuses a second one as a step (``_call``)."""
    for stack in s.stacks.values():
        for outer, inner in pairwise(stack):
            if outer.sig == "request" and inner.sig == "cancel" and not s.faulted:
                return False
    return True


def spec213_fault_cancels_prop(s: SubState) -> bool:
    """Rule 2.13 at rest: a Subscriber method that raised has been answered by a cancel."""
    return not s.faulted or s.cancelled


def spec309_invalid_request_errors_prop(s: SubState) -> bool:
    """Rule 3.9 at rest: a received request(n <= 0) was answered by onError (unless cancelled)."""
    return not s.invalid or s.count("onError") == 1 or s.pub == "cancelled"


def spec313_drop_reference_prop(s: SubState) -> bool:
    """Rule 3.13 at rest (model view): after cancel the Publisher holds no reference.

    The stateful machines also check the real object graph (``gc.get_referents``).
    """
    return not (s.cancelled and s.pub == "cancelled") or not s.ref


PROPERTIES_AT_REST: dict[str, Callable[[SubState], bool]] = {
    "Spec108_CancelStopsProp": spec108_cancel_stops_prop,
    "Spec109_OnSubscribeEventuallyProp": spec109_on_subscribe_eventually_prop,
    "Spec309_InvalidRequestErrorsProp": spec309_invalid_request_errors_prop,
    "Spec313_DropReferenceProp": spec313_drop_reference_prop,
}


def check_at_rest(s: SubState) -> list[str]:
    """The at-rest property twins ``s`` breaks (call when nothing is running or queued)."""
    out = check_all(s)
    for name, holds in PROPERTIES_AT_REST.items():
        if not holds(s):
            out.append(f"rule {name[4]}.{name[5:7].lstrip('0')}: {name}")
    return out


# ------------------------------------------------ properties on what a Subscriber saw
class Account(Protocol):
    """What a Subscriber saw of one subscription (the stateful machines' ``Probe``):
    valid demand requested (saturating), elements received, and how it ended."""

    requested: int
    received: int
    invalid: bool
    cancelled: bool
    faulted: bool

    @property
    def terminated(self) -> bool: ...


def spec105_completes_prop(a: Account, length: int | None) -> bool:
    """Rule 1.5 at rest: with demand beyond the source's ``length``, the stream ended."""
    if length is None or a.cancelled or a.faulted:
        return True
    return a.requested <= length or a.terminated


def spec308_demand_served_prop(a: Account, length: int | None) -> bool:
    """Rule 3.8 at rest: outstanding demand with elements left is served (no lost
    request, no missed wake-up, no wrapped demand); rule 3.9 governs an invalid one."""
    if length is None or a.cancelled or a.faulted or a.terminated or a.invalid:
        return True
    return min(a.requested, length) - a.received <= 0


def spec213_raised_considered_cancelled_prop(s: SubState) -> bool:
    """Rule 2.13's "considered cancelled" (an action property in the spec): once a
    Subscriber method raised, nothing but the cancel goes upstream. In a state: with the
    fault recorded and no cancel yet, no request waits upstream behind it."""
    return not s.faulted or s.cancelled or s.up_requests == 0


def spec315_calls_return_prop(s: SubState) -> bool:
    """Rules 3.15, 3.16 at rest: every request()/cancel() call has returned (no call
    frame is open when nothing runs)."""
    return not any(
        frame.sig in ("request", "cancel") for stack in s.stacks.values() for frame in stack
    )


# ------------------------------------------------------------------ the registry
TWINS: dict[str, Callable[..., bool]] = {
    **INVARIANTS,
    **PROPERTIES_AT_REST,
    "SerialCallsInv": serial_calls_inv,
    "Spec105_CompletesProp": spec105_completes_prop,
    "Spec213_FaultCancelsProp": spec213_fault_cancels_prop,
    "Spec213_FaultCancelOnceProp": spec213_fault_cancel_once_prop,
    "Spec213_RaisedConsideredCancelledProp": spec213_raised_considered_cancelled_prop,
    "Spec308_DemandServedProp": spec308_demand_served_prop,
    "Spec315_CallsReturnProp": spec315_calls_return_prop,
}

from . import multicast, spark_sink  # noqa: E402  (they import nothing from here)

# spec module -> TLA+ name -> twin (TraceReactiveStreams restates ReactiveStreams' names).
SPEC_TWINS: dict[str, dict[str, Callable[..., Any]]] = {
    "ReactiveStreams": TWINS,
    "Multicast": multicast.TWINS,
    "MulticastLead": multicast.LEAD_TWINS,
    "SparkSink": spark_sink.TWINS,
}

# spec module -> TLA+ name -> why it has no Python twin.
NO_TWIN: dict[str, dict[str, str]] = {
    "Multicast": multicast.NO_TWIN,
    "SparkSink": spark_sink.NO_TWIN,
    "TraceReactiveStreams": {
        "TraceVerdictInv": "prints TLC's verdict on a trace (PrintT); it never fails",
        "SameInvariantsInv": "checks the trace spec's restated invariants against "
        "ReactiveStreams.tla's (tests/trace/test_trace_spec_refines.py), a spec-to-spec check",
    },
    "MCTraceReactiveStreams": {
        "MustRejectInv": "the trace module's kill model: a mutated module accepts a fixture "
        "it must reject; the replay's side is tests/trace/test_fixtures_v2.py on the same files",
        "MustAcceptInv": "the trace module's kill model: a mutated module cannot take a fixture "
        "it must accept; the replay's side is tests/trace/test_fixtures_v2.py on the same files",
    },
}
