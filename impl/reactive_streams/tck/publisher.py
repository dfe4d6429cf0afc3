"""Publisher checks: the 38 tests of the JVM ``PublisherVerification`` and the kit's extras.

The subject is a factory ``create_publisher(n) -> Publisher`` emitting exactly ``n``
elements (optionally taking ``executor=``), plus optional ``create_failed_publisher()``
(fails at once) and ``create_failing_publisher(n)`` (emits ``n`` elements, then fails).
Python mapping: Java's ``NullPointerException`` is ``TypeError``, its
``IllegalArgumentException`` is ``ValueError``, ``Long.MAX_VALUE`` is ``2**63 - 1``.
"""

from __future__ import annotations

import functools
import gc
import random
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core.demand import MAX_DEMAND
from ..api import Publisher, Subscription
from ._checks import Suite, check, untested
from ._env import CheckFailure, Config, Env, Skip
from ._runner import accepts_executor
from .probes import ProbeSubscriber, subscribe_probe

__all__ = ["PublisherSubject"]

P: Suite = "publisher"
Factory = Callable[..., Publisher[Any]]

_IGNORED_CANCEL = 100_000
"""Signals after cancel() that prove it was ignored (rule 3.12) where the stream is too long
to wait for its end: far beyond any batch in flight."""


_LONG = 1000
"""A factory that raises for a stream this long or longer is taken to have a bound it did
not declare (the check is skipped, saying so), not to break the check's rule."""


@dataclass
class PublisherSubject:
    """What publisher checks run against."""

    factory: Factory
    config: Config
    failed: Callable[..., Publisher[Any]] | None = None
    failing: Callable[..., Publisher[Any]] | None = None

    def _call(self, factory: Callable[..., Publisher[Any]], env: Env, *args: int) -> Publisher[Any]:
        if accepts_executor(factory):
            return factory(*args, executor=env.executor)
        return factory(*args)

    def create(self, env: Env, n: int) -> Publisher[Any]:
        if n > self.config.max_elements:
            raise Skip(
                f"needs a publisher of {n} elements; max_elements is {self.config.max_elements}"
            )
        try:
            return self._call(self.factory, env, n)
        except Exception as exc:
            if n < _LONG:
                raise
            raise Skip(  # no rule is broken by a factory that cannot make so long a stream
                f"create_publisher({n}) raised {exc!r}: the factory cannot make this stream; "
                "declare the longest it can make (max_elements, --max-elements)"
            ) from exc

    def create_failed(self, env: Env) -> Publisher[Any]:
        assert self.failed is not None
        # its own declaration, not --synchronous
        env.use_factory(accepts_executor(self.failed), self.config.synchronous_failed)
        return self._call(self.failed, env)

    def create_failing(self, env: Env, n: int) -> Publisher[Any]:
        assert self.failing is not None
        env.use_factory(accepts_executor(self.failing), self.config.synchronous_failed)
        return self._call(self.failing, env, n)

    def cap(self, n: int) -> int:
        return min(n, self.config.max_elements)


def _sub(env: Env, pub: Publisher[Any], name: str = "subscriber", **hooks: Any) -> ProbeSubscriber:
    probe = ProbeSubscriber(env, name, **hooks)
    subscribe_probe(env, pub, probe)
    probe.expect_subscribed()
    return probe


# =========================================================================== JVM tests
@check(P, jvm="required_validate_maxElementsFromPublisher")
def required_spec317_validate_max_elements_from_publisher(env: Env, s: PublisherSubject) -> None:
    """Configuration: ``max_elements`` is at least 0."""
    if s.config.max_elements < 0:
        raise env.fail(f"max_elements must be >= 0, got {s.config.max_elements}")


@check(P, jvm="required_validate_boundedDepthOfOnNextAndRequestRecursion")
def required_spec303_validate_bounded_depth_of_on_next_and_request_recursion(
    env: Env, s: PublisherSubject
) -> None:
    """Configuration: the allowed recursion depth is at least 1."""
    if s.config.bounded_depth < 1:
        raise env.fail(f"bounded_depth must be >= 1, got {s.config.bounded_depth}")


@check(P, jvm="required_createPublisher1MustProduceAStreamOfExactly1Element", needs=("completion",))
def required_spec105_create_publisher1_must_produce_a_stream_of_exactly1_element(
    env: Env, s: PublisherSubject
) -> None:
    """pub(1): request(1) yields an element, request(1) again yields on_complete."""
    probe = _sub(env, s.create(env, 1))
    probe.request(1)
    probe.expect_next()
    probe.request(1)
    probe.expect_complete()


@check(
    P, jvm="required_createPublisher3MustProduceAStreamOfExactly3Elements", needs=("completion",)
)
def required_spec105_create_publisher3_must_produce_a_stream_of_exactly3_elements(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): three rounds of request(1) each yield an element, then on_complete."""
    probe = _sub(env, s.create(env, 3))
    for _ in range(3):
        probe.request(1)
        probe.expect_next()
    probe.request(1)
    probe.expect_complete()


@check(P, jvm="required_spec101_subscriptionRequestMustResultInTheCorrectNumberOfProducedElements")
def required_spec101_subscription_request_must_result_in_the_correct_number_of_produced_elements(
    env: Env, s: PublisherSubject
) -> None:
    """pub(5): nothing before a request; request(1) gives 1; request(1)+request(2) give 3."""
    probe = _sub(env, s.create(env, 5))
    probe.expect_none("no element before any request", "1.1", since=1)
    probe.request(1)
    probe.expect_next()
    probe.expect_none("no second element after request(1)", "1.1", since=2)
    probe.request(1)
    probe.request(2)
    probe.expect_elements(3)
    probe.expect_none("no element beyond the 4 requested", "1.1", since=5)
    probe.cancel()


@check(
    P,
    jvm="required_spec102_maySignalLessThanRequestedAndTerminateSubscription",
    needs=("completion",),
)
def required_spec102_may_signal_less_than_requested_and_terminate_subscription(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): request(10) yields 3 elements, then on_complete."""
    probe = _sub(env, s.create(env, 3))
    probe.request(10)
    probe.expect_elements(3)
    probe.expect_complete()


@check(
    P, jvm="stochastic_spec103_mustSignalOnMethodsSequentially", threads=2, needs=("completion",)
)
def stochastic_spec103_must_signal_on_methods_sequentially(env: Env, s: PublisherSubject) -> None:
    """pub(10), repeated: request(1) in on_subscribe and in every on_next; the probe flags
    any signal that overlaps one on another thread (the JVM barrier, without its
    nested-frame hole: overlap is tracked per thread)."""
    for run in range(s.config.stochastic_runs):
        probe = _sub(
            env,
            s.create(env, 10),
            f"run {run + 1}",
            on_subscribe=lambda p, _: p.request(1),
            on_next=lambda p, _: p.request(1),
        )
        probe.expect_complete()
        env.verify()


@check(P, jvm="optional_spec104_mustSignalOnErrorWhenFails", needs=("failed",))
def optional_spec104_must_signal_on_error_when_fails(env: Env, s: PublisherSubject) -> None:
    """Failed publisher, no request: exactly one on_subscribe, then exactly one on_error."""
    probe = _sub(env, s.create_failed(env))
    probe.expect_error(BaseException, "1.4")
    probe.expect_none("nothing after on_error", "1.7")


@check(
    P, jvm="required_spec105_mustSignalOnCompleteWhenFiniteStreamTerminates", needs=("completion",)
)
def required_spec105_must_signal_on_complete_when_finite_stream_terminates(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): request(1) three times gives 3 elements, request(1) gives on_complete."""
    probe = _sub(env, s.create(env, 3))
    for _ in range(3):
        probe.request(1)
        probe.expect_next()
    probe.request(1)
    probe.expect_complete()
    probe.expect_none("nothing after on_complete", "1.7")


@check(
    P, jvm="optional_spec105_emptyStreamMustTerminateBySignallingOnComplete", needs=("completion",)
)
def optional_spec105_empty_stream_must_terminate_by_signalling_on_complete(
    env: Env, s: PublisherSubject
) -> None:
    """pub(0): request(1) leads to on_complete (eager or lazy completion both pass)."""
    probe = _sub(env, s.create(env, 0))
    probe.request(1)
    probe.expect_complete()
    probe.expect_none("nothing after on_complete", "1.7")


untested(
    P,
    "untested_spec106_must_consider_subscription_cancelled_after_on_error_or_on_complete_has_been_called",
    "untested_spec106_mustConsiderSubscriptionCancelledAfterOnErrorOrOnCompleteHasBeenCalled",
    "JVM: not testable without hooking into the publisher. The kit checks the observable "
    "effects instead: extra_spec106_request_and_cancel_after_on_complete_are_nops, "
    "extra_spec313_publisher_drops_the_subscriber_after_a_terminal_signal.",
)


@check(
    P,
    jvm="required_spec107_mustNotEmitFurtherSignalsOnceOnCompleteHasBeenSignalled",
    needs=("completion",),
)
def required_spec107_must_not_emit_further_signals_once_on_complete_has_been_signalled(
    env: Env, s: PublisherSubject
) -> None:
    """pub(1): request(10) gives 1 element and on_complete; request(10) again gives nothing."""
    probe = _sub(env, s.create(env, 1))
    probe.request(10)
    probe.expect_next()
    probe.expect_complete()
    mark = probe.mark()
    probe.request(10)
    probe.expect_none("nothing after on_complete", "1.7", since=mark)


untested(
    P,
    "untested_spec107_must_not_emit_further_signals_once_on_error_has_been_signalled",
    "untested_spec107_mustNotEmitFurtherSignalsOnceOnErrorHasBeenSignalled",
    "JVM: possible but not written (issue #355). The kit checks it: "
    "extra_spec107_no_signals_after_on_error (and every probe flags a signal after a terminal one).",
)
untested(
    P,
    "untested_spec108_possibly_canceled_subscription_should_not_receive_on_error_or_on_complete_signals",
    "untested_spec108_possiblyCanceledSubscriptionShouldNotReceiveOnErrorOrOnCompleteSignals",
    "JVM: no agreement on how to verify 'eventually'. Rule 1.8 allows signals in flight, a "
    "terminal one included, so the kit does not forbid them; it checks that signals stop well "
    "before the end of a 10**6-element stream: extra_spec108_signals_stop_once_cancel_is_called_"
    "from_a_signal and extra_spec312_cancel_stops_emission_with_outstanding_demand (required).",
)
untested(
    P,
    "untested_spec109_subscribe_should_not_throw_non_fatal_throwable",
    "untested_spec109_subscribeShouldNotThrowNonFatalThrowable",
    "JVM: no agreement on what is fatal. The kit checks that subscribe() returns normally: "
    "extra_spec109_subscribe_never_raises_for_a_subscriber, "
    "extra_spec109_subscribe_returns_normally_when_the_subscriber_raises.",
)


@check(P, jvm="required_spec109_subscribeThrowNPEOnNullSubscriber")
def required_spec109_subscribe_throw_npe_on_null_subscriber(env: Env, s: PublisherSubject) -> None:
    """pub(0): subscribe(None) raises TypeError (Java: NullPointerException)."""
    pub = s.create(env, 0)
    try:
        pub.subscribe(None)  # type: ignore[arg-type]
    except TypeError:
        return
    except Exception as exc:
        raise env.fail(f"rule 1.9: subscribe(None) raised {exc!r}, expected TypeError") from exc
    raise env.fail("rule 1.9: subscribe(None) returned normally, expected TypeError")


@check(P, jvm="required_spec109_mustIssueOnSubscribeForNonNullSubscriber")
def required_spec109_must_issue_on_subscribe_for_non_null_subscriber(
    env: Env, s: PublisherSubject
) -> None:
    """pub(0): on_subscribe arrives, exactly once, before any other signal."""
    probe = _sub(env, s.create(env, 0))
    env.settle()  # a second on_subscribe or an early signal would be flagged by the probe
    kinds = probe.kinds()
    if kinds.count("on_subscribe") != 1:
        raise env.fail(f"rule 1.9: expected exactly one on_subscribe, got {kinds}")
    probe.cancel()


@check(
    P,
    jvm="required_spec109_mayRejectCallsToSubscribeIfPublisherIsUnableOrUnwillingToServeThemRejectionMustTriggerOnErrorAfterOnSubscribe",
    needs=("failed",),
)
def required_spec109_may_reject_calls_to_subscribe_if_publisher_is_unable_or_unwilling_to_serve_them_rejection_must_trigger_on_error_after_on_subscribe(
    env: Env, s: PublisherSubject
) -> None:
    """Failed publisher, no request: on_subscribe, then exactly one on_error."""
    probe = _sub(env, s.create_failed(env))
    probe.expect_error(BaseException, "1.9")
    probe.expect_none("nothing after on_error", "1.7")


untested(
    P,
    "untested_spec110_reject_a_subscription_request_if_the_same_subscriber_subscribes_twice",
    "untested_spec110_rejectASubscriptionRequestIfTheSameSubscriberSubscribesTwice",
    "Rule 1.10 binds the caller of subscribe(), and 3.13's intent says publishers need not "
    "remember past subscribers. The kit obeys it (a fresh probe per subscribe) and its "
    "helper publishers flag a caller that subscribes the same subscriber twice.",
)


def _two(env: Env, s: PublisherSubject, n: int, count: int = 2) -> list[ProbeSubscriber]:
    pub = s.create(env, n)
    return [_sub(env, pub, f"subscriber {i + 1}") for i in range(count)]


def _no_errors(env: Env, probes: list[ProbeSubscriber], rule: str) -> None:
    for probe in probes:
        if probe.errors:
            raise env.fail(f"rule {rule}: {probe.name} got on_error({probe.errors[0]!r})")


@check(P, jvm="optional_spec111_maySupportMultiSubscribe")
def optional_spec111_may_support_multi_subscribe(env: Env, s: PublisherSubject) -> None:
    """pub(1): two subscribers both get on_subscribe and no on_error."""
    probes = _two(env, s, 1)
    env.settle()
    _no_errors(env, probes, "1.11")


@check(P, jvm="optional_spec111_registeredSubscribersMustReceiveOnNextOrOnCompleteSignals")
def optional_spec111_registered_subscribers_must_receive_on_next_or_on_complete_signals(
    env: Env, s: PublisherSubject
) -> None:
    """pub(1), two subscribers: request(1) yields an element or completion for each."""
    probes = _two(env, s, 1)
    for probe in probes:
        probe.request(1)
        probe.expect_element_or_end()
    _no_errors(env, probes, "1.11")


def _same_sequences(env: Env, probes: list[ProbeSubscriber], count: int) -> None:
    first = probes[0].values[:count]
    for probe in probes[1:]:
        if probe.values[:count] != first:
            raise env.fail(
                f"rule 1.11: {probe.name} got {probe.values[:count]!r}, {probes[0].name} got {first!r}"
            )


@check(
    P,
    jvm="optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingOneByOne",
    needs=("completion",),
)
def optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_one_by_one(
    env: Env, s: PublisherSubject
) -> None:
    """pub(5), three subscribers requesting (1,1,2,1), (2,3), (3,1,1): equal sequences."""
    probes = _two(env, s, 5, 3)
    patterns = [(1, 1, 2, 1), (2, 3), (3, 1, 1)]
    for probe, pattern in zip(probes, patterns, strict=True):
        for n in pattern:
            probe.request(n)
            probe.expect_elements(n)
        probe.request(1)
        probe.expect_complete()
    _same_sequences(env, probes, 5)


@check(
    P,
    jvm="optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingManyUpfront",
)
def optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_many_upfront(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3), three subscribers each request(4) and take 3: equal sequences."""
    probes = _two(env, s, 3, 3)
    for probe in probes:
        probe.request(4)
    for probe in probes:
        probe.expect_elements(3)
    _same_sequences(env, probes, 3)


@check(
    P,
    jvm="optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingManyUpfrontAndCompleteAsExpected",
    needs=("completion",),
)
def optional_spec111_multicast_must_produce_the_same_elements_in_the_same_sequence_to_all_of_its_subscribers_when_requesting_many_upfront_and_complete_as_expected(
    env: Env, s: PublisherSubject
) -> None:
    """As above, and each subscriber gets on_complete."""
    probes = _two(env, s, 3, 3)
    for probe in probes:
        probe.request(4)
    for probe in probes:
        probe.expect_elements(3)
        probe.expect_complete()
    _same_sequences(env, probes, 3)


@check(P, jvm="required_spec302_mustAllowSynchronousRequestCallsFromOnNextAndOnSubscribe")
def required_spec302_must_allow_synchronous_request_calls_from_on_next_and_on_subscribe(
    env: Env, s: PublisherSubject
) -> None:
    """pub(6): request(1) three times inside on_subscribe and once in every on_next; six
    elements arrive and nothing is flagged (the JVM test does not require completion)."""

    def in_subscribe(probe: ProbeSubscriber, _: object) -> None:
        for _i in range(3):
            probe.request(1)

    probe = _sub(
        env, s.create(env, 6), on_subscribe=in_subscribe, on_next=lambda p, _: p.request(1)
    )
    probe.expect_elements(6)


@check(P, jvm="required_spec303_mustNotAllowUnboundedRecursion")
def required_spec303_must_not_allow_unbounded_recursion(env: Env, s: PublisherSubject) -> None:
    """pub(20): every on_next calls request(1); on_next -> request -> on_next nesting
    (on_next frames open at once on one thread, as the JVM counts it) stays within
    ``bounded_depth``. Signals nested in on_subscribe are legal and not counted."""
    n = s.cap(20)
    if n < 2:
        raise Skip("needs a publisher of at least 2 elements")
    probe = _sub(
        env,
        s.create(env, n),
        on_subscribe=lambda p, _: p.request(1),
        on_next=lambda p, _: p.request(1),
    )
    probe.expect_elements(n)
    if probe.max_depth > s.config.bounded_depth:
        raise env.fail(
            f"rule 3.3: on_next nested {probe.max_depth} deep on one thread "
            f"(on_next -> request -> on_next ...); the bound is {s.config.bounded_depth}"
        )


untested(
    P,
    "untested_spec304_request_should_not_perform_heavy_computations",
    "untested_spec304_requestShouldNotPerformHeavyComputations",
    "JVM: no agreed detector for 'heavy'. The kit checks responsiveness instead: "
    "extra_spec304_request_does_not_wait_for_a_running_on_next.",
)
untested(
    P,
    "untested_spec305_cancel_must_not_synchronously_perform_heavy_computation",
    "untested_spec305_cancelMustNotSynchronouslyPerformHeavyComputation",
    "JVM: no agreed detector for 'heavy'. The kit checks responsiveness and thread safety: "
    "extra_spec305_cancel_does_not_wait_for_a_running_on_next, "
    "extra_spec305_generated_concurrent_request_and_cancel_keep_the_invariants.",
)


@check(P, jvm="required_spec306_afterSubscriptionIsCancelledRequestMustBeNops")
def required_spec306_after_subscription_is_cancelled_request_must_be_nops(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): cancel without any request, then request(1) three times: nothing."""
    probe = _sub(env, s.create(env, 3))
    probe.cancel()
    mark = probe.mark()
    for _ in range(3):
        probe.request(1)
    probe.expect_none("no signal after cancel", "3.6", since=mark)


@check(P, jvm="required_spec307_afterSubscriptionIsCancelledAdditionalCancelationsMustBeNops")
def required_spec307_after_subscription_is_cancelled_additional_cancelations_must_be_nops(
    env: Env, s: PublisherSubject
) -> None:
    """pub(1): cancel three times: no signal, no exception."""
    probe = _sub(env, s.create(env, 1))
    mark = probe.mark()
    for _ in range(3):
        probe.cancel()
    probe.expect_none("no signal after cancel", "3.7", since=mark)


@check(P, jvm="required_spec309_requestZeroMustSignalIllegalArgumentException")
def required_spec309_request_zero_must_signal_illegal_argument_exception(
    env: Env, s: PublisherSubject
) -> None:
    """pub(10): request(0) leads to on_error(ValueError)."""
    probe = _sub(env, s.create(env, s.cap(10)))
    probe.request(0)
    probe.expect_error(ValueError, "3.9")


_NEGATIVE = -random.Random(309).randint(1, 2**31 - 1)


@check(P, jvm="required_spec309_requestNegativeNumberMustSignalIllegalArgumentException")
def required_spec309_request_negative_number_must_signal_illegal_argument_exception(
    env: Env, s: PublisherSubject
) -> None:
    """pub(10): request(negative) leads to on_error(ValueError)."""
    probe = _sub(env, s.create(env, s.cap(10)))
    probe.request(_NEGATIVE)
    probe.expect_error(ValueError, "3.9")


@check(
    P,
    jvm="optional_spec309_requestNegativeNumberMaySignalIllegalArgumentExceptionWithSpecificMessage",
)
def optional_spec309_request_negative_number_may_signal_illegal_argument_exception_with_specific_message(
    env: Env, s: PublisherSubject
) -> None:
    """As above; the message cites the rule ("3.9", "non-positive subscription request"...)."""
    probe = _sub(env, s.create(env, s.cap(10)))
    probe.request(_NEGATIVE)
    error = probe.expect_error(ValueError, "3.9")
    text = str(error)
    if not any(
        k in text
        for k in ("3.9", "non-positive subscription request", "negative subscription request")
    ):
        raise env.fail(f"rule 3.9: the error message {text!r} does not cite rule 3.9")


@check(P, jvm="required_spec312_cancelMustMakeThePublisherToEventuallyStopSignaling")
def required_spec312_cancel_must_make_the_publisher_to_eventually_stop_signaling(
    env: Env, s: PublisherSubject
) -> None:
    """pub(20): request(10), request(5), take 1, cancel; at most 15 elements in all."""
    probe = _sub(env, s.create(env, s.cap(20)))
    probe.request(10)
    probe.request(5)
    probe.expect_next()
    probe.cancel()
    env.settle()
    if len(probe.values) > 15:  # as the JVM: at most the demand (stopping is extra_spec312's)
        raise env.fail(f"rule 3.12: {len(probe.values)} elements delivered for a demand of 15")


def _request_after_cancel_is_a_nop(env: Env, probe: ProbeSubscriber) -> None:
    """After cancel(), request(5) must add nothing (rule 3.6).

    With exact quiescence (executor or synchronous mode) no signal may follow it at all.
    In timed mode a quiet period cannot tell "stopped" from "starved": elements requested
    before the cancel may still be in flight (rule 1.8 allows them), so only an element
    beyond that earlier demand proves the request was served.
    """
    before = probe.requested
    mark = probe.mark()
    probe.request(5)
    if env.mode != "timed":
        probe.expect_none("no signal after cancel", "3.6", since=mark)
        return
    env.settle()
    if len(probe.values) > before:
        raise env.fail(
            f"rule 3.6: request(5) after cancel() was served: {len(probe.values)} elements "
            f"for a demand of {before} before the cancel",
            "3.6",
        )


def _collectable(env: Env, make: Callable[[], weakref.ref[Any]], rule: str, what: str) -> None:
    ref = make()
    env.settle()

    def dropped() -> bool:
        gc.collect()
        return ref() is None

    # an asynchronous publisher may still hold it in a queued task: wait, by deadline
    if env.wait_for(dropped):
        return
    target = ref()
    holders = [type(r).__name__ for r in gc.get_referrers(target) if not isinstance(r, type(gc))]
    del target
    raise env.fail(
        f"rule {rule}: the subscriber is still reachable {what} (held by {holders[:4]}; "
        f"deadline: {env.config.timeout}s)"
    )


@check(
    P, jvm="required_spec313_cancelMustMakeThePublisherEventuallyDropAllReferencesToTheSubscriber"
)
def required_spec313_cancel_must_make_the_publisher_eventually_drop_all_references_to_the_subscriber(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): request(1), take 1, cancel; after quiescence and gc.collect() the subscriber
    is unreachable (a weak reference; no timed GC wait)."""
    pub = s.create(env, 3)

    def run() -> weakref.ref[Any]:
        probe = _sub(env, pub)
        probe.request(1)
        probe.expect_next()
        probe.cancel()
        return weakref.ref(probe)

    _collectable(env, run, "3.13", "after cancel")


@check(
    P, jvm="required_spec317_mustSupportAPendingElementCountUpToLongMaxValue", needs=("completion",)
)
def required_spec317_must_support_a_pending_element_count_up_to_long_max_value(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): request(2**63 - 1) yields 3 elements and on_complete."""
    probe = _sub(env, s.create(env, 3))
    probe.request(MAX_DEMAND)
    probe.expect_elements(3, "3.17")
    probe.expect_complete()


@check(
    P,
    jvm="required_spec317_mustSupportACumulativePendingElementCountUpToLongMaxValue",
    needs=("completion",),
)
def required_spec317_must_support_a_cumulative_pending_element_count_up_to_long_max_value(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3): request(MAX // 2) twice plus request(1), exactly 2**63 - 1 in all."""
    probe = _sub(env, s.create(env, 3))
    probe.request(MAX_DEMAND // 2)
    probe.request(MAX_DEMAND // 2)
    probe.request(1)
    probe.expect_elements(3, "3.17")
    probe.expect_complete()


@check(P, jvm="required_spec317_mustNotSignalOnErrorWhenPendingAboveLongMaxValue")
def required_spec317_must_not_signal_on_error_when_pending_above_long_max_value(
    env: Env, s: PublisherSubject
) -> None:
    """pub(2**31 - 1): request(1); the first on_next requests 2**63 - 2 ten times, takes 10
    more elements and cancels; no on_error."""
    calls = {"n": 0}

    def on_next(probe: ProbeSubscriber, _: object) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            for _i in range(10):
                probe.request(MAX_DEMAND - 1)
        elif calls["n"] == 11:
            probe.cancel()

    probe = _sub(
        env,
        s.create(env, 2**31 - 1),
        on_subscribe=lambda p, _: p.request(1),
        on_next=on_next,
        limit_after_cancel=_IGNORED_CANCEL,  # an emitter ignoring cancel would run ~2**31
    )
    probe.expect_elements(11, "3.17")  # a demand wrapped past 2**63 - 1 stalls delivery
    env.settle(strict=False)  # the JVM test checks no on_error only; stopping is 3.12's
    if probe.errors:
        raise env.fail(f"rule 3.17: on_error({probe.errors[0]!r}) for a demand above 2**63 - 1")


# ============================================================================= extras
def _hypothesis_run(
    env: Env,
    test: Callable[..., None],
    *strategies: Any,
    examples: tuple[tuple[Any, ...], ...] = (),
) -> None:
    """Run ``test`` on generated examples (after the explicit boundary ``examples``);
    a failure carries the shrunk example."""
    from hypothesis import HealthCheck, example, given, settings

    for args in examples:
        test = example(*args)(test)
    wrapped: Callable[[], None] = settings(
        max_examples=env.config.examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )(given(*strategies)(test))  # type: ignore[no-untyped-call]
    try:
        wrapped()
    except CheckFailure as exc:
        notes = " ".join(getattr(exc, "__notes__", []))
        raise CheckFailure(f"{exc} [{notes}]", exc.rule) from None
    except BaseExceptionGroup as group:  # several distinct failures, or a flaky one
        inner = [e for e in _leaves(group) if isinstance(e, CheckFailure)]
        if not inner:
            raise
        first = inner[0]
        notes = " ".join(getattr(first, "__notes__", []))
        raise CheckFailure(
            f"{type(group).__name__} of {len(inner)}: {first} [{notes}]", first.rule
        ) from None


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for e in group.exceptions:
        out.extend(_leaves(e) if isinstance(e, BaseExceptionGroup) else [e])
    return out


def _child_verify(child: Env) -> None:
    child.settle()
    child.verify()


@check(P, status="required", needs=("hypothesis", "completion"))
def extra_spec101_generated_request_sequences_never_over_deliver(
    env: Env, s: PublisherSubject
) -> None:
    """Hypothesis picks n and a request sequence (boundary sizes 255..2048, huge values);
    after each request, delivered reaches min(n, requested) (waited for, deadline only)
    and never exceeds it (the probe flags the first element beyond demand, rule 1.1);
    at the end, nothing more arrives once settled."""
    from hypothesis import strategies as st

    cap = s.cap(3000)
    sizes = st.one_of(
        st.integers(1, 8),
        st.sampled_from([255, 256, 257, 1023, 1024, 1025, 2047, 2048]),
        st.integers(1, 3000),
        st.just(MAX_DEMAND),
    )

    def example(n: int, requests: list[int]) -> None:
        child = env.child()
        try:
            probe = _sub(child, s.create(child, n))
            total = 0
            for i, k in enumerate(requests):
                probe.request(k)
                total = min(total + k, MAX_DEMAND)
                expected = min(n, total)
                child.wait_until(
                    lambda: len(probe.values) >= expected or probe.terminated,  # noqa: B023
                    lambda: (
                        f"rule 3.8: after requests {requests[: i + 1]} on pub({n}), "  # noqa: B023
                        f"{len(probe.values)} of {expected} elements delivered"  # noqa: B023
                    ),
                    "3.8",
                )
                child.verify()
            child.settle()
            child.verify()
            if len(probe.values) != expected:
                raise child.fail(
                    f"rule {'1.1' if len(probe.values) > expected else '3.8'}: after requests "
                    f"{requests} on pub({n}), {len(probe.values)} elements delivered, "
                    f"expected {expected}"
                )
            if total > n:
                probe.expect_complete()
            _child_verify(child)
        finally:
            child.close()

    boundaries = (
        (cap, [1023, 1, 1]),
        (cap, [1024, 1]),
        (cap, [256, 256, 256, 256, 1]),
        (cap, [2048, 1]),
    )
    _hypothesis_run(
        env,
        example,
        st.one_of(st.just(cap), st.integers(0, cap)),
        st.lists(sizes, min_size=1, max_size=6),
        examples=boundaries,
    )


@check(P, status="required", threads=2)
def extra_spec308_concurrent_requests_add_up_exactly(env: Env, s: PublisherSubject) -> None:
    """pub(400), 50 rounds: four threads released together each call request(1), after
    0-3 yields (staggered by round and thread); after every round all requested elements
    must arrive, no more (a lost update delivers fewer or more, a missed wake-up leaves
    the round's last request unserved). The probe yields inside each on_next, so requests
    land while a signal runs, and a second emitter there overlaps it (rule 1.3)."""
    n = s.cap(400)
    if n < 201:
        raise Skip("needs a publisher of at least 201 elements")
    probe = _sub(env, s.create(env, n))
    workers = 4
    start = threading.Barrier(workers + 1, timeout=env.config.timeout)
    done = threading.Barrier(workers + 1, timeout=env.config.timeout)
    rounds = 50

    def worker(i: int) -> None:
        for r in range(rounds):
            try:
                start.wait()
            except threading.BrokenBarrierError:
                return  # the check's thread broke it and says why: no evidence of its own
            for _ in range((r + i) % workers):  # staggered: some land as the emitter leaves
                time.sleep(0)
            probe.request(1)
            try:
                done.wait()
            except threading.BrokenBarrierError:
                return

    for i in range(workers):
        env.spawn(functools.partial(worker, i), f"tck-request-{i}")
    try:
        for r in range(rounds):
            start.wait()
            done.wait()
            want = workers * (r + 1)

            def arrived(want: int = want) -> bool:
                return len(probe.values) >= want or probe.terminated

            env.wait_until(
                arrived,
                lambda: (
                    f"rule 3.8: round {r + 1}: {want} elements requested "  # noqa: B023
                    f"from {workers} threads, {len(probe.values)} delivered"
                ),
                "3.8",
            )
    except threading.BrokenBarrierError as exc:
        raise env.fail(
            f"rule 3.4: a request() call did not return (deadline: {env.config.timeout}s)"
        ) from exc
    except BaseException:
        start.abort()  # release the workers (only on failure: abort races a normal release)
        done.abort()
        raise
    total = workers * rounds
    probe.expect_none(f"no element beyond the {total} requested", "1.1", since=probe.mark())
    if len(probe.values) != total or probe.terminated:
        raise env.fail(
            f"rule 3.8: {total} requested concurrently, got {len(probe.values)} elements "
            f"(terminated: {probe.terminated})"
        )


def _parked(env: Env, s: PublisherSubject, action: str, where: str) -> ProbeSubscriber:
    """A signal parks until another thread's ``action`` (request(3) or cancel) returns."""
    returned: dict[str, bool] = {}

    def helper(probe: ProbeSubscriber) -> None:
        if action == "request":
            probe.request(3)
        else:
            probe.cancel()
        returned["yes"] = True
        env.notify()

    parked: list[bool] = []

    def park(probe: ProbeSubscriber, _: object) -> None:
        if where == "on_subscribe":
            probe.request(1)
        if parked:
            return
        parked.append(True)
        env.spawn(lambda: helper(probe), f"tck-{action}")
        with env.cond:
            env.cond.wait_for(lambda: "yes" in returned or env.aborted, env.config.timeout)
        if "yes" not in returned:
            rule = "3.4" if action == "request" else "3.5"
            env.flop(
                rule,
                f"rule {rule}: {action}() on another thread did not return while {where} "
                f"was running (deadline: {env.config.timeout}s; it waits for the emitter?)",
            )

    first = 1 if action == "request" else 3  # cancel: leave the emitter work to do after it
    hooks: dict[str, Any] = (
        {"on_subscribe": park}
        if where == "on_subscribe"
        else {
            "on_subscribe": lambda p, _: p.request(first),
            "on_next": park,
        }
    )
    probe = _sub(env, s.create(env, s.cap(10)), f"subscriber parked in {where}", **hooks)
    if action == "request":
        probe.expect_elements(4)
    env.settle()
    return probe


@check(P, status="required", threads=2)
def extra_spec103_no_signal_overlaps_a_running_signal(env: Env, s: PublisherSubject) -> None:
    """While on_subscribe (then on_next) is parked, another thread requests more: the
    publisher must not signal on that thread before the parked signal returns. The
    overlap is observed, not sampled (covers the JVM barrier's nested-frame hole)."""
    if s.cap(10) < 4:
        raise Skip("needs a publisher of at least 4 elements")
    _parked(env, s, "request", "on_subscribe")
    env.verify()
    _parked(env, s, "request", "on_next")


@check(P, status="required", threads=2)
def extra_spec304_request_does_not_wait_for_a_running_on_next(
    env: Env, s: PublisherSubject
) -> None:
    """request() from another thread returns while on_next is still running (rule 3.4:
    responsive; a request that takes the emitter's lock blocks here)."""
    if s.cap(10) < 4:
        raise Skip("needs a publisher of at least 4 elements")
    _parked(env, s, "request", "on_next")


@check(P, status="required", threads=2)
def extra_spec305_cancel_does_not_wait_for_a_running_on_next(env: Env, s: PublisherSubject) -> None:
    """cancel() from another thread returns while on_next is still running (rule 3.5)."""
    probe = _parked(env, s, "cancel", "on_next")
    _request_after_cancel_is_a_nop(env, probe)


@check(P, status="required", threads=2, needs=("hypothesis", "completion"))
def extra_spec305_generated_concurrent_request_and_cancel_keep_the_invariants(
    env: Env, s: PublisherSubject
) -> None:
    """Hypothesis generates request/cancel sequences for 2-3 threads run concurrently on one
    subscription. Invariants: calls return normally (3.15, 3.16), signals serial (1.3),
    within demand (1.1), nothing after a terminal signal (1.7), an invalid n ends in
    on_error(ValueError) unless cancelled or the stream ran to its end first (3.9),
    without cancel all demand is served (3.8),
    after cancel and quiescence nothing more arrives (1.8, 3.6)."""
    from hypothesis import strategies as st

    cap = s.cap(60)
    op = st.one_of(
        st.integers(1, 5), st.just(MAX_DEMAND), st.just("cancel"), st.sampled_from([0, -1])
    )
    threads = st.lists(st.lists(op, min_size=1, max_size=5), min_size=2, max_size=3)

    def example(n: int, plans: list[list[object]]) -> None:
        child = env.child()
        try:
            probe = _sub(child, s.create(child, n))

            def run(plan: list[object]) -> Callable[[], None]:
                def go() -> None:
                    for step in plan:
                        if step == "cancel":
                            probe.cancel()
                        else:
                            assert isinstance(step, int)
                            probe.request(step)

                return go

            for i, plan in enumerate(plans):
                child.spawn(run(plan), f"tck-gen-{i}")
            child.join_helpers()
            child.settle()
            child.verify()
            steps = [x for plan in plans for x in plan]
            cancelled = "cancel" in steps
            invalid = any(isinstance(x, int) and x <= 0 for x in steps)
            total = min(sum(x for x in steps if isinstance(x, int) and x > 0), MAX_DEMAND)
            if not cancelled and invalid:
                # rule 3.9: on_error(ValueError), unless the stream ran to its end first (a
                # completion racing the invalid request); waited for, not sampled
                child.wait_until(
                    lambda: probe.terminated,
                    f"rule 3.9: {probe.name}: no terminal signal after request(n <= 0)",
                    "3.9",
                )
                if not (probe.completions and len(probe.values) == n):
                    probe.expect_error(ValueError, "3.9")
            if not cancelled and not invalid:
                expected = min(n, total)
                child.wait_until(
                    lambda: len(probe.values) >= expected or probe.terminated,
                    lambda: f"rule 3.8: {len(probe.values)} of {expected} elements delivered",
                    "3.8",
                )
                child.settle()
                if len(probe.values) != expected:
                    raise child.fail(
                        f"rule 3.8: {len(probe.values)} delivered, expected {expected}"
                    )
                if total > n:
                    probe.expect_complete()
            if probe.terminated:
                mark = probe.mark()
                probe.request(5)
                probe.expect_none("nothing after a terminal signal", "1.7", since=mark)
            elif cancelled:
                _request_after_cancel_is_a_nop(child, probe)
            _child_verify(child)
        finally:
            child.close()

    _hypothesis_run(env, example, st.integers(0, cap), threads)


@check(P, status="required", needs=("completion",))
def extra_spec106_request_and_cancel_after_on_complete_are_nops(
    env: Env, s: PublisherSubject
) -> None:
    """pub(2): after on_complete, request(1), request(0), request(-1) and cancel() twice
    cause no signal and no exception (rule 1.6: the subscription counts as cancelled)."""
    probe = _sub(env, s.create(env, 2))
    probe.request(5)
    probe.expect_elements(2)
    probe.expect_complete()
    mark = probe.mark()
    for n in (1, 0, -1):
        probe.request(n)
    probe.cancel()
    probe.cancel()
    probe.expect_none("no signal after on_complete", "1.6", since=mark)


@check(P, status="required")
def extra_spec306_non_positive_request_after_cancel_is_a_nop(env: Env, s: PublisherSubject) -> None:
    """pub(5): request(1), take 1, cancel; then request(0) and request(-1): no on_error."""
    probe = _sub(env, s.create(env, s.cap(5)))
    probe.request(1)
    probe.expect_next()
    probe.cancel()
    env.settle()
    mark = probe.mark()
    probe.request(0)
    probe.request(-1)
    probe.expect_none("no signal after cancel, even for an invalid n", "3.6", since=mark)


@check(P, status="required")
def extra_spec107_no_signals_after_on_error(env: Env, s: PublisherSubject) -> None:
    """pub(10): take 2, then request(0) ends the stream with on_error; request(5) after it
    produces nothing (the on_error half of rule 1.7 the JVM TCK leaves untested)."""
    probe = _sub(env, s.create(env, s.cap(10)))
    probe.request(2)
    probe.expect_elements(2)
    probe.request(0)
    probe.expect_error(ValueError, "3.9")
    mark = probe.mark()
    probe.request(5)
    probe.expect_none("nothing after on_error", "1.7", since=mark)


@check(P, status="required", needs=("failing",))
def extra_spec104_mid_stream_failure_signals_on_error(env: Env, s: PublisherSubject) -> None:
    """failing(3) (3 elements, then the source fails): request(10) gives on_error, after
    at most those 3 elements (an eager error may overtake buffered ones); nothing after it."""
    probe = _sub(env, s.create_failing(env, 3))
    probe.request(10)
    probe.expect_error(BaseException, "1.4")
    # rule 1.4 asks for on_error, rule 1.5 for a terminal signal; neither orders it after
    # elements held in a buffer (a processor passes an error on at once, rule 4.2)
    mark = probe.mark()
    probe.request(5)
    probe.expect_none("nothing after on_error", "1.7", since=mark)


_END_ROUNDS = 20
"""Streams run to their end by concurrent requests in the end-of-stream race check."""


@check(P, status="required", threads=2, needs=("completion",))
def extra_spec107_concurrent_requests_as_the_stream_ends_complete_it_once(
    env: Env, s: PublisherSubject
) -> None:
    """pub(3), 20 times: take 2 elements, then four threads released together each call
    request(1) (after 0-3 yields) as the stream ends: exactly 3 elements and one
    on_complete (a completion decided by whoever requests last, unlocked, signals it
    twice: rule 1.7; two at once overlap: 1.3)."""
    workers = 4
    for run in range(_END_ROUNDS):
        probe = _sub(env, s.create(env, 3), f"run {run + 1}")
        probe.request(2)
        probe.expect_elements(2)
        start = threading.Barrier(workers, timeout=env.config.timeout)

        def worker(
            i: int, probe: ProbeSubscriber = probe, start: threading.Barrier = start
        ) -> None:
            try:
                start.wait()
            except threading.BrokenBarrierError:
                return  # a sibling never arrived: it reports why
            for _ in range((i + run) % workers):  # noqa: B023 (read at once)
                time.sleep(0)
            probe.request(1)

        for i in range(workers):
            env.spawn(functools.partial(worker, i), f"tck-end-{i}")
        env.join_helpers()
        probe.expect_next()
        probe.expect_complete()
        probe.expect_none("nothing after on_complete", "1.7", since=probe.mark())
        env.verify()  # the probe flags a second on_complete (1.7) or an overlap (1.3)


@check(P, status="optional", needs=("completion",))
def extra_spec105_completion_needs_no_further_demand(env: Env, s: PublisherSubject) -> None:
    """pub(3): request(3) takes every element; on_complete must follow without another
    request (a completion held until more demand arrives passes every JVM test, each of
    which requests once more first). Optional: rule 1.5 says "MUST signal onComplete",
    and does not say when; holding it strands a subscriber that requested exactly n."""
    probe = _sub(env, s.create(env, 3))
    probe.request(3)
    probe.expect_elements(3)
    env.settle()  # absence judged in the subject's CPU time (timed mode)
    if probe.terminated:
        return
    probe.request(1)
    probe.expect_complete()
    raise env.fail(
        "rule 1.5: all 3 elements of pub(3) were delivered under a demand of 3, and "
        "on_complete came only after one more request(1): completion waited for a demand "
        "it does not need"
    )


@check(P, status="required")
def extra_spec108_signals_stop_once_cancel_is_called_from_a_signal(
    env: Env, s: PublisherSubject
) -> None:
    """pub(10**6) with unbounded demand, cancelled from inside a signal: inside the second
    on_next; then, on a second subscription, inside on_subscribe just before
    request(2**63 - 1). Rule 1.8 says signals stop *eventually*, so signals in flight (a
    batch, a terminal signal) are allowed: only signals begun after cancel() returned
    count, and they must stop well before the end of the stream (fewer than half of it)."""
    n = s.cap(10**6)
    if n < 50:
        raise Skip("needs a publisher of at least 50 elements")

    def cancel_second(probe: ProbeSubscriber, _: object) -> None:
        if len(probe.values) == 2:
            probe.cancel()

    def cancel_then_request(probe: ProbeSubscriber, _: object) -> None:
        probe.cancel()
        probe.request(MAX_DEMAND)  # rule 3.6: a no-op now

    def unbounded(probe: ProbeSubscriber, _: object) -> None:
        probe.request(MAX_DEMAND)

    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("subscriber cancelling in on_next", {"on_subscribe": unbounded, "on_next": cancel_second}),
        ("subscriber cancelling in on_subscribe", {"on_subscribe": cancel_then_request}),
    )
    for name, hooks in cases:
        probe = ProbeSubscriber(env, name, limit_after_cancel=n // 2, limit_rule="1.8", **hooks)
        subscribe_probe(env, s.create(env, n), probe)
        probe.expect_subscribed()

        def cancelled(p: ProbeSubscriber = probe) -> bool:
            return p.cancel_returned is not None or p.terminated

        env.wait_until(
            cancelled,
            lambda: (
                f"rule 3.8: {name}: {len(probe.values)} of {n} elements "  # noqa: B023
                "arrived under unbounded demand, and the cancel() inside a signal never returned"
            ),
            "3.8",
        )
        env.settle("1.8")
        env.verify()
        mark = probe.cancel_returned
        if mark is None:
            raise env.fail(f"rule 1.5: {name}: the stream ended before its second element")
        late = probe.signals_after(mark)
        if len(late) >= n // 2:
            raise env.fail(
                f"rule 1.8: {name}: {len(late)} signals of a {n}-element stream began after "
                "cancel() returned"
            )


@check(P, status="required")
def extra_spec312_cancel_stops_emission_with_outstanding_demand(
    env: Env, s: PublisherSubject
) -> None:
    """pub(10**6) with unbounded demand; cancel inside the 5th on_next: the stream stops
    well before its end (fewer than half the elements; a batch in flight, or a terminal
    signal, is allowed: rules 1.8 and 3.12 say "eventually")."""
    n = s.cap(10**6)
    if n < 50:
        raise Skip("needs a publisher of at least 50 elements")

    def cancel_fifth(probe: ProbeSubscriber, _: object) -> None:
        if len(probe.values) == 5:
            probe.cancel()

    probe = ProbeSubscriber(
        env,
        on_subscribe=lambda p, _: p.request(MAX_DEMAND),
        on_next=cancel_fifth,
        limit_after_cancel=n // 2,
    )
    subscribe_probe(env, s.create(env, n), probe)
    probe.expect_subscribed()
    env.settle("3.12")
    if len(probe.values) >= n // 2:
        raise env.fail(
            f"rule 3.12: cancelled at element 5, yet {len(probe.values)} of {n} elements were "
            "delivered"
        )


@check(P, status="required", needs=("completion",))
def extra_spec313_publisher_drops_the_subscriber_after_a_terminal_signal(
    env: Env, s: PublisherSubject
) -> None:
    """pub(2) to completion: afterwards the subscriber is unreachable (gc.collect())."""
    pub = s.create(env, 2)

    def run() -> weakref.ref[Any]:
        probe = _sub(env, pub)
        probe.request(5)
        probe.expect_complete()
        return weakref.ref(probe)

    _collectable(env, run, "3.13", "after on_complete (rule 1.6: terminal means cancelled)")


@check(P, status="required", needs=("completion",))
def extra_spec317_delivery_continues_after_demand_saturates(env: Env, s: PublisherSubject) -> None:
    """Requests summing past 2**63 - 1 (MAX twice; MAX // 2 + 1 twice) inside on_subscribe:
    every element still arrives and the stream completes (a wrapped counter stalls)."""
    n = s.cap(60)
    for first, second in ((MAX_DEMAND, MAX_DEMAND), (MAX_DEMAND // 2 + 1, MAX_DEMAND // 2 + 1)):

        def both(p: ProbeSubscriber, _: object, a: int = first, b: int = second) -> None:
            p.request(a)
            p.request(b)

        probe = _sub(env, s.create(env, n), f"requests {first}+{second}", on_subscribe=both)
        probe.expect_elements(n, "3.17")  # a stall here is the saturation's fault
        probe.expect_complete()


class _RaisingSubscriber:
    """Raises from ``on_subscribe`` or from ``on_next`` (rule 2.13 is broken on purpose)."""

    def __init__(self, env: Env, where: str) -> None:
        self.env = env
        self.where = where
        self.subscription: Subscription | None = None
        self.signals: list[str] = []

    def on_subscribe(self, subscription: Subscription) -> None:
        self.signals.append("on_subscribe")
        self.subscription = subscription
        if self.where == "on_subscribe":
            raise RuntimeError("kit: on_subscribe fails on purpose")

    def on_next(self, item: object) -> None:
        self.signals.append("on_next")
        if self.where == "on_next":
            raise RuntimeError("kit: on_next fails on purpose")

    def on_error(self, error: BaseException) -> None:
        self.signals.append("on_error")

    def on_complete(self) -> None:
        self.signals.append("on_complete")


@check(P, status="required")
def extra_spec109_subscribe_returns_normally_when_the_subscriber_raises(
    env: Env, s: PublisherSubject
) -> None:
    """A subscriber whose on_subscribe raises, then one whose on_next raises: subscribe()
    and request() return normally and, once quiescent, signalling has stopped (2.13: the
    subscription counts as cancelled)."""
    for where in ("on_subscribe", "on_next"):
        subscriber = _RaisingSubscriber(env, where)
        pub = s.create(env, s.cap(10))
        try:
            pub.subscribe(subscriber)
        except Exception as exc:
            raise env.fail(f"rule 1.9: subscribe() raised {exc!r} because {where} raised") from exc

        def subscribed(sub: _RaisingSubscriber = subscriber) -> bool:
            return sub.subscription is not None

        env.wait_until(subscribed, "rule 1.9: no on_subscribe")
        subscription = subscriber.subscription
        assert subscription is not None
        for _ in range(2):
            try:
                subscription.request(3)
            except Exception as exc:
                raise env.fail(
                    f"rule 3.16: request() raised {exc!r} after the subscriber's {where} raised"
                ) from exc
            env.settle()
        subscription.cancel()  # the check ends by cancelling (idempotent, rule 3.7)
        if (
            subscriber.signals.count("on_next") > (0 if where == "on_subscribe" else 1)
            and where == "on_next"
        ):
            raise env.fail(
                f"rule 2.13: on_next raised, yet {subscriber.signals.count('on_next')} elements "
                "followed (the subscription must count as cancelled)"
            )


@check(P, status="required")
def extra_spec109_subscribe_never_raises_for_a_subscriber(env: Env, s: PublisherSubject) -> None:
    """Three subscribers in a row on one pub(1): subscribe() never raises (a refusal is
    on_subscribe then on_error) and each gets on_subscribe."""
    pub = s.create(env, 1)
    for i in range(3):
        _sub(env, pub, f"subscriber {i + 1}")


@check(P, status="required")
def extra_spec111_each_subscription_keeps_its_own_demand(env: Env, s: PublisherSubject) -> None:
    """pub(10), two subscribers requesting 2 and 3: each gets at most its own demand
    (shared per-publisher demand lets one subscriber's request feed the other)."""
    pub = s.create(env, s.cap(10))
    first = _sub(env, pub, "subscriber 1")
    second = _sub(env, pub, "subscriber 2")
    first.request(2)
    second.request(3)
    env.settle()  # the probes flag rule 1.1 per subscriber


@check(P, status="required")
def extra_spec213_elements_are_never_none(env: Env, s: PublisherSubject) -> None:
    """pub(20) drained: no element is None (None is Java's null; rule 2.13, caller side)."""
    n = s.cap(20)
    probe = _sub(env, s.create(env, n))
    probe.request(n + 1)
    probe.expect_elements(n)
    env.settle()
