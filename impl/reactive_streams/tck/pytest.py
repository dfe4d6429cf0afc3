"""pytest base classes: subclass one, give it a factory, get one test per check.

    from reactive_streams import sources
    from reactive_streams.tck.pytest import PublisherVerification

    class TestRange(PublisherVerification):
        synchronous = True

        def create_publisher(self, n):
            return sources.range(0, n)

        def create_failed_publisher(self):
            return sources.error(RuntimeError("failed"))

Every check becomes ``test_<check name>``. Untested checks, and checks whose input is
missing, skip with their reason. A failed optional check skips with a reason starting
"failed-optional" (visible with ``-ra``; never a silent pass), or fails when the class
sets ``strict_optional = True``. ``Config`` fields are class attributes
(``max_elements``, ``timeout``, ``synchronous``...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from . import (
    run_processor_checks,
    run_publisher_checks,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from ._checks import Check, Suite, checks_of
from ._env import Config
from .report import CheckResult, Report

__all__ = [
    "IdentityProcessorVerification",
    "PublisherVerification",
    "SubscriberBlackboxVerification",
    "SubscriberWhiteboxVerification",
]

_CONFIG_FIELDS = {f.name for f in dataclasses.fields(Config)}


def _verdict(result: CheckResult, strict_optional: bool) -> None:
    if result.outcome == "passed":
        return
    if result.outcome in ("untested", "skipped"):
        pytest.skip(f"{result.outcome}: {result.message}")
    if result.outcome == "failed-optional" and not strict_optional:
        pytest.skip(f"failed-optional (rule {result.rule}): {result.message}")
    pytest.fail(f"{result.outcome} (rule {result.rule}): {result.message}", pytrace=False)


class _Verification:
    suites: ClassVar[tuple[Suite, ...]] = ()
    strict_optional: ClassVar[bool] = False
    """Fail (rather than skip with a "failed-optional" reason) when an optional check fails."""

    def config(self) -> Config:
        values = {name: getattr(self, name) for name in _CONFIG_FIELDS if hasattr(self, name)}
        return Config(**values)

    def run(self, only: Callable[[Check], bool]) -> Report:
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for suite in cls.suites:
            for c in checks_of(suite):
                name = f"test_{c.name}"
                if name in cls.__dict__:
                    continue
                setattr(cls, name, _make_test(c))


def _make_test(c: Check) -> Callable[[Any], None]:
    def test(self: _Verification) -> None:
        report = self.run(lambda candidate: candidate.name == c.name)
        matching = [r for r in report.results if r.name == c.name]
        for result in matching:
            _verdict(result, self.strict_optional)

    test.__name__ = f"test_{c.name}"
    test.__doc__ = c.doc
    return test


class PublisherVerification(_Verification):
    """Override ``create_publisher(n)``; optionally ``create_failed_publisher()`` and
    ``create_failing_publisher(n)`` (return None to skip the checks needing them)."""

    suites = ("publisher",)

    def create_publisher(self, n: int) -> Any:
        raise NotImplementedError

    def create_failed_publisher(self) -> Any:
        return None

    def create_failing_publisher(self, n: int) -> Any:
        return None

    def run(self, only: Callable[[Check], bool]) -> Report:
        failed = self.create_failed_publisher
        failing = self.create_failing_publisher
        probe_failed = (
            type(self).create_failed_publisher is not PublisherVerification.create_failed_publisher
        )
        probe_failing = (
            type(self).create_failing_publisher
            is not PublisherVerification.create_failing_publisher
        )
        return run_publisher_checks(
            self.create_publisher,
            create_failed_publisher=failed if probe_failed else None,
            create_failing_publisher=failing if probe_failing else None,
            config=self.config(),
            only=only,
            label=type(self).__name__,
        )


class SubscriberWhiteboxVerification(_Verification):
    """Override ``create_subscriber(probe)``."""

    suites = ("subscriber_whitebox",)

    def create_subscriber(self, probe: Any) -> Any:
        raise NotImplementedError

    def run(self, only: Callable[[Check], bool]) -> Report:
        return run_subscriber_whitebox_checks(
            self.create_subscriber, config=self.config(), only=only, label=type(self).__name__
        )


class SubscriberBlackboxVerification(_Verification):
    """Override ``create_subscriber()``; optionally ``trigger_request(subscriber)``."""

    suites = ("subscriber_blackbox",)

    def create_subscriber(self) -> Any:
        raise NotImplementedError

    def trigger_request(self, subscriber: Any) -> None:
        """Make ``subscriber`` request, for subscribers that wait for a stimulus."""

    def run(self, only: Callable[[Check], bool]) -> Report:
        return run_subscriber_blackbox_checks(
            self.create_subscriber,
            trigger_request=self.trigger_request,
            config=self.config(),
            only=only,
            label=type(self).__name__,
        )


class IdentityProcessorVerification(_Verification):
    """Override ``create_identity_processor(buffer_size)``."""

    suites = ("processor", "publisher", "subscriber_whitebox")

    def create_identity_processor(self, buffer_size: int) -> Any:
        raise NotImplementedError

    def run(self, only: Callable[[Check], bool]) -> Report:
        return run_processor_checks(
            self.create_identity_processor,
            config=self.config(),
            only=only,
            label=type(self).__name__,
        )
