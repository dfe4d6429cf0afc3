"""Expected verdicts of the kit on each reference port.

``jvm``: the JVM TCK 1.0.4 verdict of every JVM-named check that does not pass (the
rest pass, ``untested_`` ones are never run). ``extras``: every ``extra_`` check that
does not pass, with the outcome and why: a failure cites the rule text it proves, a
skip says what is missing. Kit outcomes map to JVM verdicts as passed -> pass,
failed -> fail, failed-optional or skipped -> skip (a failing JVM optional test skips).
"""

from __future__ import annotations

from dataclasses import dataclass, field

COMPLETION = (
    "skip: the JVM skips it when maxElementsFromPublisher() is Long.MAX_VALUE "
    "(publisherUnableToSignalOnComplete); the kit skips it under cannot_complete"
)
NO_FAILED = "skip: the JVM test class gives no failed publisher (createFailedPublisher null)"
NO_FAILING = "the JVM examples have no publisher that fails mid-stream"


@dataclass(frozen=True)
class Table:
    jvm: dict[str, str] = field(default_factory=dict)
    """JVM-named check -> "fail" / "skip: why" (absent: pass, or untested)."""
    extras: dict[str, tuple[str, str]] = field(default_factory=dict)
    """extra_ check -> (kit outcome, citation or reason) (absent: passed)."""


RANGE = Table(
    jvm={
        "optional_spec104_must_signal_on_error_when_fails": NO_FAILED,
        "required_spec109_may_reject_calls_to_subscribe_if_publisher_is_unable_or_unwilling_to_serve_them_rejection_must_trigger_on_error_after_on_subscribe": NO_FAILED,  # noqa: E501
    },
    extras={
        "extra_spec306_non_positive_request_after_cancel_is_a_nop": (
            "failed",
            "rule 3.6 'After the Subscription is cancelled, additional "
            "Subscription.request(long n) MUST be NOPs': request(0) after cancel() (no "
            "outstanding demand) restarts the emission loop, which signals on_error.",
        ),
        "extra_spec103_no_signal_overlaps_a_running_signal": (
            "failed",
            "rule 1.3 'onSubscribe, onNext, onError and onComplete signaled to a Subscriber "
            "MUST be signaled serially': while on_subscribe still runs on one thread, a "
            "request(3) made (serially, rule 2.7) from another thread finds the demand "
            "counter at 0 and emits on_next on that thread, overlapping on_subscribe.",
        ),
        "extra_spec104_mid_stream_failure_signals_on_error": ("skipped", NO_FAILING),
    },
)

ITERABLE = Table(
    extras={
        "extra_spec101_generated_request_sequences_never_over_deliver": (
            "failed",
            "rule 1.1 'The total number of onNext's signalled by a Publisher to a Subscriber "
            "MUST be less than or equal to the total number of elements requested': "
            "request(1024) yields 1025 (the batch loop's short-circuit skips the last "
            "demand decrement when a batch of 1024 ends as demand runs out).",
        ),
        "extra_spec104_mid_stream_failure_signals_on_error": ("skipped", NO_FAILING),
    },
)

_NEEDS_COMPLETION_JVM = (
    "required_spec105_create_publisher1_must_produce_a_stream_of_exactly1_element",
    "required_spec105_create_publisher3_must_produce_a_stream_of_exactly3_elements",
    "required_spec102_may_signal_less_than_requested_and_terminate_subscription",
    "stochastic_spec103_must_signal_on_methods_sequentially",
    "required_spec105_must_signal_on_complete_when_finite_stream_terminates",
    "optional_spec105_empty_stream_must_terminate_by_signalling_on_complete",
    "required_spec107_must_not_emit_further_signals_once_on_complete_has_been_signalled",
    "optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_one_by_one",
    "optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_many_upfront_and_complete_as_expected",
    "required_spec317_must_support_a_pending_element_count_up_to_long_max_value",
    "required_spec317_must_support_a_cumulative_pending_element_count_up_to_long_max_value",
)
_NEEDS_COMPLETION_EXTRA = (
    "extra_spec101_generated_request_sequences_never_over_deliver",
    "extra_spec305_generated_concurrent_request_and_cancel_keep_the_invariants",
    "extra_spec106_request_and_cancel_after_on_complete_are_nops",
    "extra_spec313_publisher_drops_the_subscriber_after_a_terminal_signal",
    "extra_spec317_delivery_continues_after_demand_saturates",
    "extra_spec107_concurrent_requests_as_the_stream_ends_complete_it_once",
    "extra_spec105_completion_needs_no_further_demand",
)

INFINITE = Table(
    jvm=dict.fromkeys(_NEEDS_COMPLETION_JVM, COMPLETION),
    extras={
        **{
            name: ("skipped", "needs on_complete; the publisher declares it cannot complete")
            for name in _NEEDS_COMPLETION_EXTRA
        },
        "extra_spec104_mid_stream_failure_signals_on_error": ("skipped", NO_FAILING),
    },
)

SYNC_SUBSCRIBER_BLACKBOX = Table()
SYNC_SUBSCRIBER_WHITEBOX = Table()
ASYNC_SUBSCRIBER_BLACKBOX = Table()
TRIGGERED_SUBSCRIBER_BLACKBOX = Table()
TRIGGERED_SUBSCRIBER_WHITEBOX = Table()
