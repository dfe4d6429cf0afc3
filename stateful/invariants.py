"""The Python twins of ``spec/ReactiveStreams.tla``'s invariants, for the machines here.

The definitions live in :mod:`reactive_streams.trace.invariants` (installed with the
package, so the conformance kit and the trace validator use the same functions); this
module re-exports them under the names the machines use. Each takes the replayed
state of one subscription (:class:`reactive_streams.trace.model.SubState`).

| TLA+ operator                          | Python twin                                | rule |
|----------------------------------------|--------------------------------------------|------|
| Spec101_DeliveredLeqRequestedInv       | spec101_delivered_leq_requested_inv        | 1.1  |
| Spec103_SerialSignalsInv               | spec103_serial_signals_inv                 | 1.3  |
| Spec107_NothingAfterTerminalInv        | spec107_nothing_after_terminal_inv         | 1.7  |
| Spec109_OnSubscribeFirstInv            | spec109_on_subscribe_first_inv             | 1.9  |
| Spec207_NoNestedCallsInv               | spec207_no_nested_calls_inv                | 2.7  |
| Spec212_OnSubscribeOnceInv             | spec212_on_subscribe_once_inv              | 2.12 |
| Spec303_BoundedRecursionInv            | spec303_bounded_recursion_inv              | 3.3  |
| Spec306_RequestAfterCancelNopInv       | spec306_request_after_cancel_nop_inv       | 3.6  |
| Spec307_RepeatedCancelNopInv           | spec307_repeated_cancel_nop_inv            | 3.7  |
| Spec308_RequestAddsDemandInv           | spec308_request_adds_demand_inv            | 3.8  |
| Spec309_InvalidRequestNoCompleteInv    | spec309_invalid_request_no_complete_inv    | 3.9  |
| Spec312_SilentAfterCancelInv           | spec312_silent_after_cancel_inv            | 3.12 |
| Spec317_DemandSaturatesInv             | spec317_demand_saturates_inv               | 3.17 |

Properties, checked when the machine is at rest (nothing running or queued):
``check_at_rest`` (the replay's ``PROPERTIES_AT_REST``), ``spec105_completes_prop`` and
``spec308_demand_served_prop`` (they read the probe and the source's length).
``TWINS`` maps every TLA+ name of ReactiveStreams.tla to its twin.
"""

from reactive_streams.trace.invariants import (
    INVARIANTS,
    PROPERTIES_AT_REST,
    TWINS,
    check_all,
    check_at_rest,
    serial_calls_inv,
    spec101_delivered_leq_requested_inv,
    spec103_serial_signals_inv,
    spec105_completes_prop,
    spec107_nothing_after_terminal_inv,
    spec108_cancel_stops_prop,
    spec109_on_subscribe_eventually_prop,
    spec109_on_subscribe_first_inv,
    spec207_no_nested_calls_inv,
    spec212_on_subscribe_once_inv,
    spec213_fault_cancel_once_prop,
    spec213_fault_cancels_prop,
    spec303_bounded_recursion_inv,
    spec306_request_after_cancel_nop_inv,
    spec307_repeated_cancel_nop_inv,
    spec308_demand_served_prop,
    spec308_request_adds_demand_inv,
    spec309_invalid_request_errors_prop,
    spec309_invalid_request_no_complete_inv,
    spec312_silent_after_cancel_inv,
    spec313_drop_reference_prop,
    spec317_demand_saturates_inv,
)

__all__ = [
    "INVARIANTS",
    "PROPERTIES_AT_REST",
    "TWINS",
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
