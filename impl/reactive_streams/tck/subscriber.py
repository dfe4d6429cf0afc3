"""Subscriber checks: the 27 whitebox and 26 blackbox tests of the JVM TCK, and extras.

Whitebox: ``create_subscriber(probe)`` returns a Subscriber that reports to a
:class:`~reactive_streams.tck.probes.WhiteboxProbe` and registers a puppet through which
the kit makes it request or cancel. Blackbox: ``create_subscriber()`` returns an
unmodified Subscriber. Either may take ``executor=`` (the kit then passes its own and
knows when the subscriber is idle). The publisher side is a ``ManualPublisher`` that
records every ``request``/``cancel`` with its thread and whether a terminal signal had
started, so rules 2.3/2.4 are checked on every thread, not by stack frames.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core.demand import MAX_DEMAND, add_demand, check_request
from ..api import Subscriber, Subscription
from ._checks import Suite, check, untested
from ._env import Config, Env
from ._manual import ManualPublisher, ManualSubscription
from ._runner import accepts_executor
from .probes import BlackboxProxy, WhiteboxProbe, WhiteboxPuppet

__all__ = ["SubscriberSubject", "SyncPublisher"]

WB: Suite = "subscriber_whitebox"
BB: Suite = "subscriber_blackbox"


class _TestError(RuntimeError):
    """The error the kit signals with ``on_error``."""


@dataclass
class SubscriberSubject:
    factory: Callable[..., Subscriber[Any]]
    config: Config
    trigger: Callable[[Any], None] | None = None

    def create(self, env: Env, *args: object) -> Subscriber[Any]:
        if accepts_executor(self.factory):
            return self.factory(*args, executor=env.executor)
        return self.factory(*args)


@dataclass
class Stage:
    env: Env
    publisher: ManualPublisher
    subscriber: Subscriber[Any]
    probe: WhiteboxProbe | None
    puppet: WhiteboxPuppet | None
    proxy: BlackboxProxy | None

    @property
    def subscription(self) -> ManualSubscription:
        return self.publisher.subscription

    def trigger_request(self, n: int) -> None:
        assert self.puppet is not None
        self.puppet.trigger_request(n)

    def signal_cancel(self) -> None:
        assert self.puppet is not None
        self.puppet.signal_cancel()

    def calls_in_terminal(self, *, any_thread: bool) -> list[str]:
        calls = self.subscription.calls
        bad = [c for c in calls if (c.after_terminal if any_thread else c.during_terminal)]
        return [f"{c.kind}({c.n})" if c.kind == "request" else c.kind for c in bad]


def whitebox_stage(env: Env, s: SubscriberSubject, *, widen_races: bool = False) -> Stage:
    publisher = ManualPublisher(env, widen_races=widen_races)
    probe = WhiteboxProbe(env)
    subscriber = s.create(env, probe)
    publisher.subscribe(subscriber)
    puppet = probe.expect_puppet()
    return Stage(env, publisher, subscriber, probe, puppet, None)


def blackbox_stage(env: Env, s: SubscriberSubject, *, widen_races: bool = False) -> Stage:
    publisher = ManualPublisher(env, widen_races=widen_races)
    subscriber = s.create(env)
    proxy = BlackboxProxy(env, subscriber)
    publisher.subscribe(proxy)
    if s.trigger is not None:
        s.trigger(subscriber)
    return Stage(env, publisher, subscriber, None, None, proxy)


# ====================================================================== whitebox (27)
@check(WB, jvm="required_exerciseWhiteboxHappyPath")
def required_spec201_exercise_whitebox_happy_path(env: Env, s: SubscriberSubject) -> None:
    """request, element, request, element, then the puppet says stop: it must cancel."""
    st = whitebox_stage(env, s)
    st.trigger_request(1)
    st.subscription.expect_request(1)
    st.publisher.send_next(1)
    assert st.probe is not None
    st.probe.expect_next(1)
    st.trigger_request(1)
    st.subscription.expect_request(2)
    st.publisher.send_next(2)
    st.probe.expect_next(2)
    st.signal_cancel()
    st.subscription.expect_cancel("2.6")


@check(WB, jvm="required_spec201_mustSignalDemandViaSubscriptionRequest")
def required_spec201_must_signal_demand_via_subscription_request(
    env: Env, s: SubscriberSubject
) -> None:
    """trigger_request(1) makes the subscriber call request; the element is received."""
    st = whitebox_stage(env, s)
    st.trigger_request(1)
    st.subscription.expect_request(1)
    st.publisher.send_next(1)
    assert st.probe is not None
    st.probe.expect_next(1)


untested(
    WB,
    "untested_spec202_should_asynchronously_dispatch",
    "untested_spec202_shouldAsynchronouslyDispatch",
    "A SHOULD with no observable test: prompt synchronous work and asynchronous dispatch "
    "look the same from outside.",
)


def _no_calls_during_terminal(env: Env, st: Stage, kind: str, *, any_thread: bool) -> None:
    bad = st.calls_in_terminal(any_thread=any_thread)
    if bad:
        where = "after" if any_thread else "inside"
        raise env.fail(f"rule 2.3: the subscriber called {bad} on its subscription {where} {kind}")


@check(WB, jvm="required_spec203_mustNotCallMethodsOnSubscriptionOrPublisherInOnComplete")
def required_spec203_must_not_call_methods_on_subscription_or_publisher_in_on_complete(
    env: Env, s: SubscriberSubject
) -> None:
    """No request/cancel while on_complete runs (on the signalling thread)."""
    st = whitebox_stage(env, s)
    st.publisher.send_complete()
    _no_calls_during_terminal(env, st, "on_complete", any_thread=False)


@check(WB, jvm="required_spec203_mustNotCallMethodsOnSubscriptionOrPublisherInOnError")
def required_spec203_must_not_call_methods_on_subscription_or_publisher_in_on_error(
    env: Env, s: SubscriberSubject
) -> None:
    """No request/cancel while on_error runs (on the signalling thread)."""
    st = whitebox_stage(env, s)
    st.publisher.send_error(_TestError("kit: on_error"))
    _no_calls_during_terminal(env, st, "on_error", any_thread=False)


untested(
    WB,
    "untested_spec204_must_consider_the_subscription_as_cancelled_in_after_receiving_on_complete_or_on_error",
    "untested_spec204_mustConsiderTheSubscriptionAsCancelledInAfterRecievingOnCompleteOrOnError",
    "JVM: no way to see what the subscriber 'considers'. The kit checks the observable part: "
    "extra_spec203_no_subscription_calls_from_terminal_handling_on_any_thread (whitebox) and "
    "extra_spec204_blackbox_no_subscription_calls_after_a_terminal_signal.",
)


def _second_subscription(st: Stage) -> ManualSubscription:
    second = ManualSubscription(
        st.publisher, st.subscriber if st.proxy is None else st.proxy, "second subscription"
    )
    st.publisher.call(second, "on_subscribe", second)
    return second


@check(
    WB,
    jvm="required_spec205_mustCallSubscriptionCancelIfItAlreadyHasAnSubscriptionAndReceivesAnotherOnSubscribeSignal",
)
def required_spec205_must_call_subscription_cancel_if_it_already_has_an_subscription_and_receives_another_on_subscribe_signal(
    env: Env, s: SubscriberSubject
) -> None:
    """A second on_subscribe: that subscription is cancelled."""
    st = whitebox_stage(env, s)
    second = _second_subscription(st)
    second.expect_cancel("2.5")


untested(
    WB,
    "untested_spec206_must_call_subscription_cancel_if_it_is_no_longer_valid",
    "untested_spec206_mustCallSubscriptionCancelIfItIsNoLongerValid",
    "JVM: needs control over the subscriber. The kit uses the puppet: "
    "extra_spec206_must_cancel_when_no_longer_needed.",
)
untested(
    WB,
    "untested_spec207_must_ensure_all_calls_on_its_subscription_take_place_from_the_same_thread_or_take_care_of_synchronization",
    "untested_spec207_mustEnsureAllCallsOnItsSubscriptionTakePlaceFromTheSameThreadOrTakeCareOfSynchronization",
    "JVM: the same-thread part is not useful. The kit's subscription observes overlapping "
    "calls: extra_spec207_subscription_calls_never_overlap.",
)


@check(
    WB,
    jvm="required_spec208_mustBePreparedToReceiveOnNextSignalsAfterHavingCalledSubscriptionCancel",
)
def required_spec208_must_be_prepared_to_receive_on_next_signals_after_having_called_subscription_cancel(
    env: Env, s: SubscriberSubject
) -> None:
    """request(1), cancel, then the element requested before the cancel arrives: no raise."""
    st = whitebox_stage(env, s)
    st.trigger_request(1)
    st.subscription.expect_request(1)
    st.signal_cancel()
    st.subscription.expect_cancel("2.6")
    st.publisher.send_next(1, rule="2.8")  # a raise here is unpreparedness (2.8)
    st.trigger_request(1)
    st.trigger_request(1)
    env.settle()


def _complete_or_error(env: Env, s: SubscriberSubject, *, request: bool, error: bool) -> None:
    st = whitebox_stage(env, s)
    assert st.probe is not None
    if request:
        st.trigger_request(1)
        st.subscription.expect_request(1)
    if error:
        exc = _TestError("kit: on_error")
        st.publisher.send_error(exc, rule="2.10")  # a raise: unprepared for it (2.10)
        st.probe.expect_error(exc, "2.10")
    else:
        st.publisher.send_complete(rule="2.9")
        st.probe.expect_complete("2.9")


@check(WB, jvm="required_spec209_mustBePreparedToReceiveAnOnCompleteSignalWithPrecedingRequestCall")
def required_spec209_must_be_prepared_to_receive_an_on_complete_signal_with_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """request(1), then on_complete: the subscriber registers it."""
    _complete_or_error(env, s, request=True, error=False)


@check(
    WB, jvm="required_spec209_mustBePreparedToReceiveAnOnCompleteSignalWithoutPrecedingRequestCall"
)
def required_spec209_must_be_prepared_to_receive_an_on_complete_signal_without_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """on_complete right after on_subscribe: the subscriber registers it."""
    _complete_or_error(env, s, request=False, error=False)


@check(WB, jvm="required_spec210_mustBePreparedToReceiveAnOnErrorSignalWithPrecedingRequestCall")
def required_spec210_must_be_prepared_to_receive_an_on_error_signal_with_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """request(1), then on_error: the subscriber registers the same exception."""
    _complete_or_error(env, s, request=True, error=True)


@check(WB, jvm="required_spec210_mustBePreparedToReceiveAnOnErrorSignalWithoutPrecedingRequestCall")
def required_spec210_must_be_prepared_to_receive_an_on_error_signal_without_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """on_error right after on_subscribe: the subscriber registers the same exception."""
    _complete_or_error(env, s, request=False, error=True)


untested(
    WB,
    "untested_spec211_must_make_sure_that_all_calls_on_its_methods_happen_before_the_processing_of_the_respective_events",
    "untested_spec211_mustMakeSureThatAllCallsOnItsMethodsHappenBeforeTheProcessingOfTheRespectiveEvents",
    "A memory-model rule: CPython's interpreter lock gives every hand-off through a lock or "
    "queue a happens-before edge, so no run-time check can tell a violation apart.",
)
untested(
    WB,
    "untested_spec212_must_not_call_on_subscribe_more_than_once_based_on_object_equality_spec_violation",
    "untested_spec212_mustNotCallOnSubscribeMoreThanOnceBasedOnObjectEquality_specViolation",
    "A rule for the callers of on_subscribe; the publisher probes flag a second on_subscribe "
    "(every publisher check), and 2.5 covers the subscriber's reaction.",
)
untested(
    WB,
    "untested_spec213_failing_on_signal_invocation",
    "untested_spec213_failingOnSignalInvocation",
    "JVM: needs a way to make the subscriber fail. The kit feeds ordinary elements and "
    "fails on any raise: extra_spec213_blackbox_signal_methods_return_normally.",
)


def _expect_type_error(env: Env, call: Callable[[], None], what: str) -> None:
    try:
        call()
    except TypeError:
        return
    except Exception as exc:
        raise env.fail(f"rule 2.13: {what} raised {exc!r}, expected TypeError") from exc
    raise env.fail(f"rule 2.13: {what} returned normally, expected TypeError")


@check(WB, jvm="required_spec213_onSubscribe_mustThrowNullPointerExceptionWhenParametersAreNull")
def required_spec213_on_subscribe_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """on_subscribe(None) raises TypeError (Java: NullPointerException)."""
    subscriber = s.create(env, WhiteboxProbe(env))
    _expect_type_error(env, lambda: subscriber.on_subscribe(None), "on_subscribe(None)")  # type: ignore[arg-type]


@check(WB, jvm="required_spec213_onNext_mustThrowNullPointerExceptionWhenParametersAreNull")
def required_spec213_on_next_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """on_next(None) raises TypeError."""
    st = whitebox_stage(env, s)
    _expect_type_error(env, lambda: st.subscriber.on_next(None), "on_next(None)")


@check(WB, jvm="required_spec213_onError_mustThrowNullPointerExceptionWhenParametersAreNull")
def required_spec213_on_error_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """on_error(None) raises TypeError."""
    st = whitebox_stage(env, s)
    _expect_type_error(env, lambda: st.subscriber.on_error(None), "on_error(None)")  # type: ignore[arg-type]


untested(
    WB,
    "untested_spec301_must_not_be_called_outside_subscriber_context",
    "untested_spec301_mustNotBeCalledOutsideSubscriberContext",
    "No agreed notion of 'the subscriber's context' at run time; the TLA+ model makes "
    "request/cancel steps of the subscriber only.",
)


@check(WB, jvm="required_spec308_requestMustRegisterGivenNumberElementsToBeProduced")
def required_spec308_request_must_register_given_number_elements_to_be_produced(
    env: Env, s: SubscriberSubject
) -> None:
    """trigger_request(2): two elements are accepted; then trigger_request(3)."""
    st = whitebox_stage(env, s)
    assert st.probe is not None
    st.trigger_request(2)
    st.subscription.expect_request(1)
    st.publisher.send_next(1)
    st.probe.expect_next(1)
    st.subscription.expect_request(2)
    st.publisher.send_next(2)
    st.probe.expect_next(2)
    env.settle()
    st.trigger_request(3)
    env.settle()


for _name, _jvm, _why in (
    (
        "untested_spec310_request_may_synchronously_call_on_next_on_subscriber",
        "untested_spec310_requestMaySynchronouslyCallOnNextOnSubscriber",
        "JVM: no synchronous source. The kit has one: extra_spec310_blackbox_works_with_a_synchronous_publisher.",
    ),
    (
        "untested_spec311_request_may_synchronously_call_on_complete_or_on_error",
        "untested_spec311_requestMaySynchronouslyCallOnCompleteOrOnError",
        "JVM: no synchronous source. Covered by extra_spec310_blackbox_works_with_a_synchronous_publisher "
        "(its synchronous publisher completes inside request).",
    ),
    (
        "untested_spec314_cancel_may_cause_the_publisher_to_shutdown_if_no_other_subscription_exists",
        "untested_spec314_cancelMayCauseThePublisherToShutdownIfNoOtherSubscriptionExists",
        "A MAY about the publisher's lifecycle; nothing to observe from the subscriber side.",
    ),
    (
        "untested_spec315_cancel_must_not_throw_exception_and_must_signal_on_error",
        "untested_spec315_cancelMustNotThrowExceptionAndMustSignalOnError",
        "A publisher rule (cancel returns normally); the kit's publisher probes fail any "
        "cancel() that raises, in every publisher check.",
    ),
    (
        "untested_spec316_request_must_not_throw_exception_and_must_on_error_the_subscriber",
        "untested_spec316_requestMustNotThrowExceptionAndMustOnErrorTheSubscriber",
        "A publisher rule (request returns normally); the kit's publisher probes fail any "
        "request() that raises, in every publisher check.",
    ),
):
    untested(WB, _name, _jvm, _why)


# ------------------------------------------------------------------ whitebox extras
@check(WB, status="required")
def extra_spec203_no_subscription_calls_from_terminal_handling_on_any_thread(
    env: Env, s: SubscriberSubject
) -> None:
    """After on_complete (then, second stage, on_error) and quiescence: no request or
    cancel from any thread (the JVM's stack check sees only the signalling thread)."""
    for error in (False, True):
        st = whitebox_stage(env, s)
        st.trigger_request(1)
        st.subscription.expect_request(1)
        if error:
            st.publisher.send_error(_TestError("kit: on_error"))
        else:
            st.publisher.send_complete()
        env.settle()
        _no_calls_during_terminal(env, st, "on_error" if error else "on_complete", any_thread=True)


@check(WB, status="required")
def extra_spec205_keeps_the_active_subscription(env: Env, s: SubscriberSubject) -> None:
    """A second on_subscribe is cancelled, the first stays active: it is not cancelled
    and the next request goes to it."""
    st = whitebox_stage(env, s)
    second = _second_subscription(st)
    second.expect_cancel("2.5")
    env.settle()
    if st.subscription.cancelled:
        raise env.fail("rule 2.5: the active subscription was cancelled on a second on_subscribe")
    st.trigger_request(1)
    st.subscription.expect_request(1)


@check(WB, status="required")
def extra_spec206_must_cancel_when_no_longer_needed(env: Env, s: SubscriberSubject) -> None:
    """After an element, the puppet says the subscription is no longer needed: cancel."""
    st = whitebox_stage(env, s)
    st.trigger_request(1)
    st.subscription.expect_request(1)
    st.publisher.send_next(1)
    st.signal_cancel()
    env.settle()
    st.subscription.expect_cancel("2.6")


@check(WB, status="stochastic")
def extra_spec207_subscription_calls_never_overlap(env: Env, s: SubscriberSubject) -> None:
    """20 elements, each sent as soon as requested; the kit's subscription holds every call
    open for 2 ms and flags any call that overlaps another (rule 2.7). Stochastic: an
    unsynchronised subscriber is caught only if its calls do overlap."""
    st = whitebox_stage(env, s, widen_races=True)
    for i in range(20):
        st.trigger_request(1)
        st.subscription.expect_request(i + 1)
        st.publisher.send_next(i)
    env.settle()


# ====================================================================== blackbox (26)
@check(BB, jvm="required_spec201_blackbox_mustSignalDemandViaSubscriptionRequest")
def required_spec201_blackbox_must_signal_demand_via_subscription_request(
    env: Env, s: SubscriberSubject
) -> None:
    """The subscriber requests; the kit then really sends up to 32 elements as demand
    allows (the JVM test's inverted loop sends none, issue #459), then on_complete."""
    st = blackbox_stage(env, s)
    st.subscription.expect_request(1)
    _send_as_demand_allows(env, st, 32, st.publisher.send_next)
    if not st.subscription.cancelled:
        st.publisher.send_complete()
    env.settle()


def _send_as_demand_allows(env: Env, st: Stage, count: int, send: Callable[[int], None]) -> None:
    """``send(0..count-1)`` while the subscriber has demand; once it runs out, settle and
    stop unless the subscriber asked for more (or stop at its cancel)."""
    sub = st.subscription
    for i in range(count):
        if sub.cancelled:
            return
        if sub.demand == 0:
            env.settle()
            if sub.demand == 0 or sub.cancelled:
                return
        send(i)


untested(
    BB,
    "untested_spec202_blackbox_should_asynchronously_dispatch",
    "untested_spec202_blackbox_shouldAsynchronouslyDispatch",
    "A SHOULD with no observable test (prompt synchronous work looks the same).",
)


@check(BB, jvm="required_spec203_blackbox_mustNotCallMethodsOnSubscriptionOrPublisherInOnComplete")
def required_spec203_blackbox_must_not_call_methods_on_subscription_or_publisher_in_on_complete(
    env: Env, s: SubscriberSubject
) -> None:
    """No request/cancel while on_complete runs."""
    st = blackbox_stage(env, s)
    st.publisher.send_complete()
    _no_calls_during_terminal(env, st, "on_complete", any_thread=False)


@check(BB, jvm="required_spec203_blackbox_mustNotCallMethodsOnSubscriptionOrPublisherInOnError")
def required_spec203_blackbox_must_not_call_methods_on_subscription_or_publisher_in_on_error(
    env: Env, s: SubscriberSubject
) -> None:
    """No request/cancel while on_error runs."""
    st = blackbox_stage(env, s)
    st.publisher.send_error(_TestError("kit: on_error"))
    _no_calls_during_terminal(env, st, "on_error", any_thread=False)


untested(
    BB,
    "untested_spec204_blackbox_must_consider_the_subscription_as_cancelled_in_after_receiving_on_complete_or_on_error",
    "untested_spec204_blackbox_mustConsiderTheSubscriptionAsCancelledInAfterRecievingOnCompleteOrOnError",
    "JVM: not decisive with a grace period. The kit waits for quiescence instead: "
    "extra_spec204_blackbox_no_subscription_calls_after_a_terminal_signal.",
)


@check(
    BB,
    jvm="required_spec205_blackbox_mustCallSubscriptionCancelIfItAlreadyHasAnSubscriptionAndReceivesAnotherOnSubscribeSignal",
)
def required_spec205_blackbox_must_call_subscription_cancel_if_it_already_has_an_subscription_and_receives_another_on_subscribe_signal(
    env: Env, s: SubscriberSubject
) -> None:
    """A second on_subscribe: it is cancelled and never requested from."""
    st = blackbox_stage(env, s)
    second = _second_subscription(st)
    second.expect_cancel("2.5")
    env.settle()
    if second.requests():
        raise env.fail(
            f"rule 2.5: the subscriber requested {second.requests()} from the second subscription"
        )
    st.publisher.send_complete()


untested(
    BB,
    "untested_spec206_blackbox_must_call_subscription_cancel_if_it_is_no_longer_valid",
    "untested_spec206_blackbox_mustCallSubscriptionCancelIfItIsNoLongerValid",
    "Needs control over the subscriber; see the whitebox extra_spec206_must_cancel_when_no_longer_needed.",
)
untested(
    BB,
    "untested_spec207_blackbox_must_ensure_all_calls_on_its_subscription_take_place_from_the_same_thread_or_take_care_of_synchronization",
    "untested_spec207_blackbox_mustEnsureAllCallsOnItsSubscriptionTakePlaceFromTheSameThreadOrTakeCareOfSynchronization",
    "JVM: needs an outside stimulus. The kit sends elements from two threads in turn and "
    "its subscription flags overlapping calls: extra_spec207_blackbox_subscription_calls_never_overlap.",
)


@check(BB, status="stochastic")
def extra_spec207_blackbox_subscription_calls_never_overlap(env: Env, s: SubscriberSubject) -> None:
    """20 elements as demand allows, sent in turn from the check's thread and a second
    thread (serially, rule 1.3); the kit's subscription holds every call open for 2 ms
    and flags a request/cancel that overlaps another (rule 2.7). Stochastic: a subscriber
    that requests from two threads at once is caught only if its calls do overlap."""
    st = blackbox_stage(env, s, widen_races=True)
    st.subscription.expect_request(1)

    def send(i: int) -> None:
        if i % 2:
            env.spawn(lambda: st.publisher.send_next(i), "tck-signal-2")
            env.join_helpers()
        else:
            st.publisher.send_next(i)

    _send_as_demand_allows(env, st, 20, send)
    env.settle()


untested(
    BB,
    "untested_spec208_blackbox_must_be_prepared_to_receive_on_next_signals_after_having_called_subscription_cancel",
    "untested_spec208_blackbox_mustBePreparedToReceiveOnNextSignalsAfterHavingCalledSubscriptionCancel",
    "The kit cannot make an unmodified subscriber cancel; the whitebox check does it.",
)


def _bb_terminal(env: Env, s: SubscriberSubject, *, request: bool, error: bool) -> None:
    st = blackbox_stage(env, s)
    if request:
        st.subscription.expect_request(1)
    if error:
        st.publisher.send_error(_TestError("kit: on_error"), rule="2.10")
    else:
        st.publisher.send_complete(rule="2.9")
    assert st.proxy is not None
    expected = "on_error" if error else "on_complete"
    if expected not in st.proxy.received:
        raise env.fail(
            f"rule {'2.10' if error else '2.9'}: {expected} did not reach the subscriber"
        )
    env.settle()


@check(
    BB,
    jvm="required_spec209_blackbox_mustBePreparedToReceiveAnOnCompleteSignalWithPrecedingRequestCall",
)
def required_spec209_blackbox_must_be_prepared_to_receive_an_on_complete_signal_with_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """The subscriber requests, then on_complete: handled without raising."""
    _bb_terminal(env, s, request=True, error=False)


@check(
    BB,
    jvm="required_spec209_blackbox_mustBePreparedToReceiveAnOnCompleteSignalWithoutPrecedingRequestCall",
)
def required_spec209_blackbox_must_be_prepared_to_receive_an_on_complete_signal_without_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """on_complete right after on_subscribe: handled without raising."""
    _bb_terminal(env, s, request=False, error=False)


@check(
    BB,
    jvm="required_spec210_blackbox_mustBePreparedToReceiveAnOnErrorSignalWithPrecedingRequestCall",
)
def required_spec210_blackbox_must_be_prepared_to_receive_an_on_error_signal_with_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """The subscriber requests, then on_error: handled without raising."""
    _bb_terminal(env, s, request=True, error=True)


@check(
    BB,
    jvm="required_spec210_blackbox_mustBePreparedToReceiveAnOnErrorSignalWithoutPrecedingRequestCall",
)
def required_spec210_blackbox_must_be_prepared_to_receive_an_on_error_signal_without_preceding_request_call(
    env: Env, s: SubscriberSubject
) -> None:
    """on_error right after on_subscribe: handled without raising."""
    _bb_terminal(env, s, request=False, error=True)


for _name, _jvm, _why in (
    (
        "untested_spec211_blackbox_must_make_sure_that_all_calls_on_its_methods_happen_before_the_processing_of_the_respective_events",
        "untested_spec211_blackbox_mustMakeSureThatAllCallsOnItsMethodsHappenBeforeTheProcessingOfTheRespectiveEvents",
        "A memory-model rule; not observable under CPython's interpreter lock.",
    ),
    (
        "untested_spec212_blackbox_must_not_call_on_subscribe_more_than_once_based_on_object_equality",
        "untested_spec212_blackbox_mustNotCallOnSubscribeMoreThanOnceBasedOnObjectEquality",
        "A rule for the callers of on_subscribe (2.5 is in a better position).",
    ),
    (
        "untested_spec213_blackbox_failing_on_signal_invocation",
        "untested_spec213_blackbox_failingOnSignalInvocation",
        "JVM: needs a way to make the subscriber fail; the kit instead fails any raise on "
        "ordinary input: extra_spec213_blackbox_signal_methods_return_normally.",
    ),
):
    untested(BB, _name, _jvm, _why)


@check(
    BB,
    jvm="required_spec213_blackbox_onSubscribe_mustThrowNullPointerExceptionWhenParametersAreNull",
)
def required_spec213_blackbox_on_subscribe_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """A fresh subscriber: on_subscribe(None) raises TypeError."""
    subscriber = s.create(env)
    _expect_type_error(env, lambda: subscriber.on_subscribe(None), "on_subscribe(None)")  # type: ignore[arg-type]


@check(
    BB, jvm="required_spec213_blackbox_onNext_mustThrowNullPointerExceptionWhenParametersAreNull"
)
def required_spec213_blackbox_on_next_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """A subscribed subscriber: on_next(None) raises TypeError."""
    st = blackbox_stage(env, s)
    _expect_type_error(env, lambda: st.subscriber.on_next(None), "on_next(None)")


@check(
    BB, jvm="required_spec213_blackbox_onError_mustThrowNullPointerExceptionWhenParametersAreNull"
)
def required_spec213_blackbox_on_error_must_throw_npe_when_parameters_are_null(
    env: Env, s: SubscriberSubject
) -> None:
    """A subscribed subscriber: on_error(None) raises TypeError."""
    st = blackbox_stage(env, s)
    _expect_type_error(env, lambda: st.subscriber.on_error(None), "on_error(None)")  # type: ignore[arg-type]


for _name, _jvm, _why in (
    (
        "untested_spec301_blackbox_must_not_be_called_outside_subscriber_context",
        "untested_spec301_blackbox_mustNotBeCalledOutsideSubscriberContext",
        "No agreed notion of 'the subscriber's context' at run time.",
    ),
    (
        "untested_spec308_blackbox_request_must_register_given_number_elements_to_be_produced",
        "untested_spec308_blackbox_requestMustRegisterGivenNumberElementsToBeProduced",
        "A publisher rule; see the whitebox check and the publisher extras.",
    ),
    (
        "untested_spec310_blackbox_request_may_synchronously_call_on_next_on_subscriber",
        "untested_spec310_blackbox_requestMaySynchronouslyCallOnNextOnSubscriber",
        "JVM: no synchronous source. Covered by extra_spec310_blackbox_works_with_a_synchronous_publisher.",
    ),
    (
        "untested_spec311_blackbox_request_may_synchronously_call_on_complete_or_on_error",
        "untested_spec311_blackbox_requestMaySynchronouslyCallOnCompleteOrOnError",
        "JVM: no synchronous source. Covered by extra_spec310_blackbox_works_with_a_synchronous_publisher.",
    ),
    (
        "untested_spec314_blackbox_cancel_may_cause_the_publisher_to_shutdown_if_no_other_subscription_exists",
        "untested_spec314_blackbox_cancelMayCauseThePublisherToShutdownIfNoOtherSubscriptionExists",
        "A MAY about the publisher's lifecycle.",
    ),
    (
        "untested_spec315_blackbox_cancel_must_not_throw_exception_and_must_signal_on_error",
        "untested_spec315_blackbox_cancelMustNotThrowExceptionAndMustSignalOnError",
        "A publisher rule; the publisher probes fail a cancel() that raises.",
    ),
    (
        "untested_spec316_blackbox_request_must_not_throw_exception_and_must_on_error_the_subscriber",
        "untested_spec316_blackbox_requestMustNotThrowExceptionAndMustOnErrorTheSubscriber",
        "A publisher rule; the publisher probes fail a request() that raises.",
    ),
):
    untested(BB, _name, _jvm, _why)


# ------------------------------------------------------------------ blackbox extras
@check(BB, status="required")
def extra_spec204_blackbox_no_subscription_calls_after_a_terminal_signal(
    env: Env, s: SubscriberSubject
) -> None:
    """on_subscribe, the subscriber's first request, then on_complete (second stage:
    on_error) and quiescence: no request or cancel from any thread after the terminal
    signal (rule 2.4). No element precedes the terminal signal: a call still owed to an
    earlier signal's handling is legal (it happens before the subscriber processes the
    terminal signal, rule 2.11, and the publisher ignores it, rules 1.6 and 3.6), and
    with no element in flight none can be owed, whatever the handling time."""
    for error in (False, True):
        st = blackbox_stage(env, s)
        st.subscription.expect_request(1)  # its handling of on_subscribe has acted
        if error:
            st.publisher.send_error(_TestError("kit: on_error"))
        else:
            st.publisher.send_complete()
        env.settle()
        bad = st.calls_in_terminal(any_thread=True)
        if bad:
            raise env.fail(
                f"rule 2.4: {bad} on the subscription after {'on_error' if error else 'on_complete'}"
            )


@check(BB, status="required")
def extra_spec213_blackbox_signal_methods_return_normally(env: Env, s: SubscriberSubject) -> None:
    """Ten ordinary elements (as demand allows) and on_complete: no signal method raises."""
    st = blackbox_stage(env, s)
    sub = st.subscription
    sub.expect_request(1)
    for i in range(10):
        if sub.cancelled:
            break
        if sub.demand == 0:
            env.settle()
            if sub.demand == 0:
                break
        st.publisher.send_next(i + 1)
    if not sub.cancelled:
        st.publisher.send_complete()
    env.settle()  # the publisher flops rule 2.13 for any raise


class SyncPublisher:
    """A correct synchronous publisher of ``0..n-1``: ``request`` emits on the caller's
    thread (rules 3.10, 3.11), trampolined (3.3). A raising subscriber is recorded
    (rule 2.13) and cancelled."""

    def __init__(self, env: Env, n: int) -> None:
        self.env = env
        self.n = n
        self.raised: list[tuple[str, BaseException]] = []

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        _SyncSubscription(self, subscriber).start()


class _SyncSubscription:
    def __init__(self, publisher: SyncPublisher, subscriber: Subscriber[Any]) -> None:
        self.publisher = publisher
        self.subscriber: Subscriber[Any] | None = subscriber
        self.next = 0
        self.demand = 0
        self.busy = False
        self.done = False
        self.requests: list[object] = []
        self.lock = threading.Lock()

    def _call(self, method: str, *args: object) -> bool:
        subscriber = self.subscriber
        if subscriber is None:
            return False
        try:
            getattr(subscriber, method)(*args)
        except Exception as exc:
            self.publisher.raised.append((method, exc))
            # inside request(): 3.10 lets on_next come synchronously, 3.11 a terminal
            # signal; the subscriber must be prepared for them (2.13 covers on_subscribe)
            rule = {"on_subscribe": "2.13", "on_next": "3.10"}.get(method, "3.11")
            self.publisher.env.flop(
                rule,
                f"rule {rule}: {method} raised {exc!r} inside request() (synchronous "
                "publisher); it must be prepared for it",
            )
            self.done = True
            self.subscriber = None
            return False
        return True

    def start(self) -> None:
        # a request made inside on_subscribe is served at once, nested (rule 3.10): a
        # subscriber must store its subscription before it requests
        self._call("on_subscribe", self)
        self._drain()

    def request(self, n: int) -> None:
        self.requests.append(n)
        if self.done:
            return
        if check_request(n) is not None:
            self.done = True
            self._call("on_error", ValueError(f"rule 3.9: request({n})"))
            self.subscriber = None
            return
        self.demand = add_demand(self.demand, n)
        self._drain()

    def cancel(self) -> None:
        self.done = True
        self.subscriber = None

    def _drain(self) -> None:
        if self.busy:
            return  # rule 3.3: the running loop picks the demand up
        self.busy = True
        try:
            while not self.done:
                if self.next == self.publisher.n:
                    self.done = True
                    self._call("on_complete")
                    self.subscriber = None
                    break
                if self.demand == 0:
                    break
                if self.demand != MAX_DEMAND:
                    self.demand -= 1
                self.next += 1
                if not self._call("on_next", self.next - 1):
                    break
        finally:
            self.busy = False


@check(BB, status="required")
def extra_spec310_blackbox_works_with_a_synchronous_publisher(
    env: Env, s: SubscriberSubject
) -> None:
    """Subscribed to a synchronous publisher of 10 (on_next runs inside request, on_complete
    too): the subscriber requests and no signal method raises (a subscriber that stores its
    subscription only after calling request breaks here)."""
    publisher = SyncPublisher(env, 10)
    subscriber = s.create(env)
    subscription_box: list[Subscription] = []
    proxy = BlackboxProxy(env, subscriber)
    original = proxy.on_subscribe

    def on_subscribe(subscription: Subscription) -> None:
        subscription_box.append(subscription)
        original(subscription)

    proxy.on_subscribe = on_subscribe  # type: ignore[method-assign]
    publisher.subscribe(proxy)
    if s.trigger is not None:
        s.trigger(subscriber)
    env.wait_until(
        lambda: bool(subscription_box) and bool(subscription_box[0].requests),  # type: ignore[attr-defined]
        "rule 2.1: the subscriber never requested from the synchronous publisher",
        "2.1",
    )
    env.settle()
    env.verify()
