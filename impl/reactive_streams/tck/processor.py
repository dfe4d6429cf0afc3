"""Identity-processor checks: the JVM ``IdentityProcessorVerification``.

Its 68 tests are 3 of its own, the 38 publisher tests run on a processor fed by a
helper publisher, and the 27 whitebox tests run on a processor whose downstream is the
kit's probe (so demand and cancel must travel upstream). ``create_processor(buffer_size)``
returns the processor (optionally taking ``executor=``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .. import sources
from ..api import Processor, Publisher, Subscription
from ._checks import Check, Suite, check, checks_of
from ._env import Config, Env, Skip
from ._manual import ManualPublisher
from ._runner import accepts_executor, mode_for, run_checks
from .probes import ProbeSubscriber, WhiteboxProbe, WhiteboxPuppet, subscribe_probe
from .publisher import PublisherSubject
from .report import Report
from .subscriber import SubscriberSubject

__all__ = ["ProcessorSubject", "run"]

X: Suite = "processor"


class _UpstreamError(RuntimeError):
    """The failure the kit injects upstream of the processor."""


@dataclasses.dataclass
class ProcessorSubject:
    factory: Callable[..., Processor[Any, Any]]
    config: Config
    failed: Callable[..., Publisher[Any]] | None = None

    def create(self, env: Env) -> Processor[Any, Any]:
        if accepts_executor(self.factory):
            return self.factory(self.config.buffer_size, executor=env.executor)
        return self.factory(self.config.buffer_size)

    def needs_subscribers(self, count: int) -> None:
        if self.config.max_subscribers < count:
            raise Skip(
                f"needs {count} subscribers; max_subscribers is {self.config.max_subscribers}"
            )


def _staged(env: Env, s: ProcessorSubject) -> tuple[ManualPublisher, Processor[Any, Any]]:
    upstream = ManualPublisher(env)
    processor = s.create(env)
    upstream.subscribe(processor)
    return upstream, processor


def _down(env: Env, processor: Processor[Any, Any], name: str) -> ProbeSubscriber:
    probe = ProbeSubscriber(env, name)
    subscribe_probe(env, processor, probe)
    probe.expect_subscribed()
    return probe


# ============================================================================ own (3)
@check(X, jvm="mustImmediatelyPassOnOnErrorEventsReceivedFromItsUpstreamToItsDownstream")
def required_spec402_must_immediately_pass_on_on_error_events_received_from_its_upstream_to_its_downstream(
    env: Env, s: ProcessorSubject
) -> None:
    """Upstream on_error reaches a downstream subscriber that has no demand. (Unprefixed in
    the JVM TCK, where it behaves as required; 'immediately' is disputed, issue #559.)"""
    upstream, processor = _staged(env, s)
    down = _down(env, processor, "downstream")
    error = _UpstreamError("kit: upstream failure")
    upstream.send_error(error)
    got = down.expect_error(BaseException, "4.2")
    if got is not error:
        raise env.fail(f"rule 4.2: downstream got {got!r}, not the upstream's {error!r}")


@check(
    X, jvm="required_spec104_mustCallOnErrorOnAllItsSubscribersIfItEncountersANonRecoverableError"
)
def required_spec104_must_call_on_error_on_all_its_subscribers_if_it_encounters_a_non_recoverable_error(
    env: Env, s: ProcessorSubject
) -> None:
    """Two downstream subscribers, one element flows, then upstream fails: both get the
    same error, including the one without demand."""
    s.needs_subscribers(2)
    upstream, processor = _staged(env, s)
    first = _down(env, processor, "subscriber 1")
    second = _down(env, processor, "subscriber 2")
    first.request(1)
    if s.config.coordinated_emission:
        second.request(1)
    upstream.subscription.expect_request(1)
    upstream.send_next("x")
    if first.expect_next() != "x":
        raise env.fail("subscriber 1 got the wrong element")
    error = _UpstreamError("kit: upstream failure")
    upstream.send_error(error)
    for probe in (first, second):
        got = probe.expect_error(BaseException, "1.4")
        if got is not error:
            raise env.fail(f"rule 1.4: {probe.name} got {got!r}, not {error!r}")


@check(X, jvm="required_mustRequestFromUpstreamForElementsThatHaveBeenRequestedLongAgo")
def required_spec201_must_request_from_upstream_for_elements_that_have_been_requested_long_ago(
    env: Env, s: ProcessorSubject
) -> None:
    """sub1 requests 20 and gets x, y; sub2 joins without demand; z reaches sub1, is kept
    for sub2 until it requests; completion reaches both."""
    s.needs_subscribers(2)
    upstream, processor = _staged(env, s)
    first = _down(env, processor, "subscriber 1")
    first.request(20)
    up = upstream.subscription
    up.expect_request(1)
    upstream.send_next("x")
    up.expect_request(2)
    upstream.send_next("y")
    if first.expect_elements(2) != ["x", "y"]:
        raise env.fail("subscriber 1 did not get x, y")
    second = _down(env, processor, "subscriber 2")
    up.expect_request(3)
    upstream.send_next("z")
    if s.config.coordinated_emission:
        second.request(1)
    if first.expect_next() != "z":
        raise env.fail("subscriber 1 did not get z")
    if not s.config.coordinated_emission:
        second.expect_none("nothing for subscriber 2 before it requests", "1.1")
        second.request(1)
    if second.expect_next() != "z":
        raise env.fail("rule 2.1: subscriber 2 did not get z after requesting it")
    upstream.send_complete()
    first.expect_complete()
    second.expect_complete()


@check(X, status="required")
def extra_spec402_no_upstream_calls_after_upstream_on_error(env: Env, s: ProcessorSubject) -> None:
    """After upstream on_error, the processor treats its upstream subscription as over:
    more downstream demand must not reach it (a processor that recovers keeps requesting)."""
    upstream, processor = _staged(env, s)
    down = _down(env, processor, "downstream")
    down.request(2)
    upstream.subscription.expect_request(1)
    upstream.send_next("x")
    upstream.send_error(_UpstreamError("kit: upstream failure"))
    env.settle()
    if not down.terminated:
        down.request(5)
    env.settle()
    late = [c.kind for c in upstream.subscription.calls if c.after_terminal]
    if late:
        raise env.fail(f"rule 4.2: {late} on the upstream subscription after its on_error")


# ========================================================================== delegation
def _publisher_subject(s: ProcessorSubject) -> PublisherSubject:
    """Publisher checks see ``processor`` fed by a helper ``range`` of n elements."""
    takes_executor = accepts_executor(s.factory)

    def through(upstream: Callable[[Any], Publisher[Any]], env_executor: Any) -> Publisher[Any]:
        if takes_executor:
            processor = s.factory(s.config.buffer_size, executor=env_executor)
        else:
            processor = s.factory(s.config.buffer_size)
        upstream(env_executor).subscribe(processor)
        return processor

    def create(n: int, executor: Any = None) -> Publisher[Any]:
        return through(lambda ex: sources.range(0, n, executor=ex), executor)

    def failing(n: int, executor: Any = None) -> Publisher[Any]:
        def items() -> Any:
            yield from range(n)
            raise _UpstreamError(f"kit: upstream fails after {n} elements")

        return through(lambda ex: sources.from_iterable(_Reiterable(items), executor=ex), executor)

    def failed(executor: Any = None) -> Publisher[Any]:
        return through(
            lambda ex: sources.error(_UpstreamError("kit: upstream failed"), executor=ex), executor
        )

    if not takes_executor:
        return PublisherSubject(
            lambda n: create(n), s.config, s.failed or (lambda: failed()), lambda n: failing(n)
        )
    return PublisherSubject(create, s.config, s.failed or failed, failing)


class _Reiterable:
    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make

    def __iter__(self) -> Any:
        return iter(self._make())


class _ProbeDownstream:
    """The processor's downstream in delegated whitebox checks: reports to the probe."""

    def __init__(self, probe: WhiteboxProbe) -> None:
        self.probe = probe
        self.subscription: Subscription | None = None

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self.subscription is not None:
            subscription.cancel()  # rule 2.5
            return
        self.subscription = subscription
        self.probe.register_on_subscribe(WhiteboxPuppet(subscription.request, subscription.cancel))

    def on_next(self, item: object) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        self.probe.register_on_next(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self.probe.register_on_error(error)

    def on_complete(self) -> None:
        self.probe.register_on_complete()


def _whitebox_subject(s: ProcessorSubject) -> SubscriberSubject:
    """Whitebox checks see the processor as the subscriber; the probe sits downstream."""

    def create(probe: WhiteboxProbe, executor: Any = None) -> Any:
        if accepts_executor(s.factory):
            processor = s.factory(s.config.buffer_size, executor=executor)
        else:
            processor = s.factory(s.config.buffer_size)
        processor.subscribe(_ProbeDownstream(probe))
        return processor

    if accepts_executor(s.factory):
        return SubscriberSubject(create, s.config)
    return SubscriberSubject(lambda probe: create(probe), s.config)


def run(
    factory: Callable[..., Processor[Any, Any]],
    failed: Callable[..., Publisher[Any]] | None,
    config: Config,
    only: Callable[[Check], bool] | None,
    label: str,
) -> Report:
    """The processor suite: its own checks, then the publisher checks on the processor
    (fed by the kit) and the whitebox subscriber checks on it; one report, suites named
    ``processor/publisher`` and ``processor/subscriber_whitebox``."""
    subject = ProcessorSubject(factory, config, failed)
    mode = mode_for(factory, config)
    report = run_checks(checks_of("processor"), subject, config, mode, label, only=only)
    run_checks(
        checks_of("publisher"),
        _publisher_subject(subject),
        config,
        mode,
        label,
        only=only,
        report=report,
    )
    run_checks(
        checks_of("subscriber_whitebox"),
        _whitebox_subject(subject),
        config,
        mode,
        label,
        only=only,
        report=report,
    )
    report.results = [
        r if r.suite == "processor" else dataclasses.replace(r, suite=f"processor/{r.suite}")
        for r in report.results
    ]
    return report
