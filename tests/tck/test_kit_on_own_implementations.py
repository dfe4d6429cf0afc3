"""The kit against this project's own publishers, subscribers and the gallery's controls:
every check passes (optional ones too), in synchronous and executor modes."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams import AsyncSubscriber, LambdaSubscriber
from reactive_streams.executors import Executor
from reactive_streams.tck import (
    Report,
    all_checks,
    run_processor_checks,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck.gallery import (
    FailedPublisher,
    FailingPublisher,
    GalleryProcessor,
    GalleryPublisher,
    GallerySubscriber,
)
from reactive_streams.tck.gallery.rules_3_subscription import NotReentrant, UnnamedRuleOnBadRequest

from . import factories as f


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)  # subscribers that raise on purpose are logged
    yield
    logging.disable(logging.NOTSET)


LAZY_END = "extra_spec105_completion_needs_no_further_demand"
"""Optional: ``generate``'s generator decides the end when it is called, which is on
demand, so its completion waits for one more request (legal; the check says so)."""


def assert_clean(report: Report, *, expected: tuple[str, ...] = ()) -> None:
    bad = [
        f"{r.name}: {r.outcome}: {r.message}"
        for r in report.failures()
        if not (r.name in expected and r.outcome == "failed-optional")
    ]
    assert not bad, "\n".join(bad)
    assert report.ok
    skipped = [r for r in report.results if r.outcome == "skipped"]
    assert all(r.message.startswith("needs the '") for r in skipped), skipped


class _Collect(AsyncSubscriber[int]):
    def when_next(self, item: int) -> bool:
        self.request(1)
        return True


def _async_subscriber(executor: Executor) -> _Collect:
    return _Collect(executor)


PUBLISHERS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "range-sync": (
        f.range_publisher,
        {
            "create_failed_publisher": f.failed_publisher,
            "create_failing_publisher": f.failing_publisher,
            "synchronous": True,
        },
    ),
    "range-executor": (
        f.range_on,
        {"create_failed_publisher": f.failed_on, "create_failing_publisher": f.failing_publisher},
    ),
    "from_iterable-executor": (f.iterable_on, {"create_failed_publisher": f.failed_on}),
    "generate-sync": (f.generate_publisher, {"synchronous": True}),
    "flow-map-filter-sync": (f.flow_map_filter, {"synchronous": True}),
    "flow-observe_on-executor": (f.flow_observe_on, {}),
    "gallery-control": (
        lambda n: GalleryPublisher(n),
        {
            "create_failed_publisher": lambda: FailedPublisher(),
            "create_failing_publisher": lambda n: FailingPublisher(n),
            "synchronous": True,
        },
    ),
}


@pytest.mark.parametrize("name", sorted(PUBLISHERS))
def test_every_publisher_check_passes_on_our_publishers(name: str) -> None:
    factory, options = PUBLISHERS[name]
    lazy = (LAZY_END,) if name.startswith("generate") else ()
    assert_clean(run_publisher_checks(factory, **options), expected=lazy)


def test_every_blackbox_check_passes_on_lambda_subscriber() -> None:
    assert_clean(
        run_subscriber_blackbox_checks(lambda: LambdaSubscriber(request=1), synchronous=True)
    )


def test_every_blackbox_check_passes_on_async_subscriber_with_the_kit_executor() -> None:
    assert_clean(run_subscriber_blackbox_checks(_async_subscriber))


def test_every_subscriber_check_passes_on_the_gallery_control() -> None:
    assert_clean(run_subscriber_blackbox_checks(lambda: GallerySubscriber(), synchronous=True))
    assert_clean(
        run_subscriber_whitebox_checks(lambda probe: GallerySubscriber(probe), synchronous=True)
    )


def test_every_processor_check_passes_on_the_gallery_control() -> None:
    report = run_processor_checks(lambda size: GalleryProcessor(size), synchronous=True)
    assert_clean(report)
    suites = {r.suite for r in report.results}
    assert suites == {"processor", "processor/publisher", "processor/subscriber_whitebox"}


def test_the_kit_ports_all_94_jvm_tests_with_their_statuses() -> None:
    ported = [c for c in all_checks() if c.jvm is not None]
    assert len({c.jvm for c in ported}) == len(ported) == 94
    counts = {
        s: sum(1 for c in ported if c.status == s)
        for s in ("required", "optional", "stochastic", "untested")
    }
    # the JVM's 49 required, plus its one unprefixed test (processor 4.2) that acts as required
    assert counts == {"required": 50, "optional": 8, "stochastic": 1, "untested": 35}
    for c in ported:
        assert c.jvm is not None
        prefix = c.jvm.split("_", 1)[0]
        if prefix in ("required", "optional", "stochastic", "untested"):
            assert c.status == prefix, c.name
    for c in all_checks():
        if c.status == "untested":
            assert c.reason, c.name


def test_an_untested_check_reports_its_reason_and_an_optional_failure_is_not_hidden() -> None:
    report = run_publisher_checks(lambda n: UnnamedRuleOnBadRequest(n), synchronous=True)
    untested = report.result("untested_spec304_request_should_not_perform_heavy_computations")
    assert untested.outcome == "untested"
    assert "extra_spec304" in untested.message
    optional = report.result(
        "optional_spec309_request_negative_number_may_signal_illegal_argument_exception_with_specific_message"
    )
    assert optional.outcome == "failed-optional"
    assert report.ok  # an optional failure does not fail the run


def test_checks_needing_an_absent_factory_skip_and_say_which() -> None:
    report = run_publisher_checks(f.range_publisher, synchronous=True)
    skipped = report.result("extra_spec104_mid_stream_failure_signals_on_error")
    assert skipped.outcome == "skipped"
    assert "'failing'" in skipped.message


def test_a_deadlocking_publisher_fails_by_deadline_instead_of_hanging() -> None:
    report = run_publisher_checks(
        lambda n: NotReentrant(n),
        synchronous=True,
        check_timeout=2.0,
        only=lambda c: c.rule == "3.2",
    )
    result = report.result(
        "required_spec302_must_allow_synchronous_request_calls_from_on_next_and_on_subscribe"
    )
    assert result.outcome == "failed"
    assert "did not finish within 2.0s" in result.message


def test_timed_mode_marks_its_evidence() -> None:
    report = run_publisher_checks(
        f.range_publisher, quiet=0.01, only=lambda c: c.name.startswith("required_spec306")
    )
    (result,) = report.results
    assert result.outcome == "passed"
    assert result.evidence == "quiet period"
