"""The conformance kit: checks any Reactive Streams implementation against rules 1.1-4.2.

It ports every test of the JVM TCK 1.0.4 (same names in snake_case, same statuses:
``required``, ``optional``, ``stochastic``, ``untested``) and adds ``extra_`` checks with
deterministic evidence where the JVM TCK has none or relies on timing. Entry points:

* ``run_publisher_checks(create_publisher, ...) -> Report`` and its three siblings for
  whitebox and blackbox subscribers and identity processors;
* ``python -m reactive_streams.tck publisher MODULE:FACTORY`` (the CLI);
* :mod:`reactive_streams.tck.pytest`: base classes giving one pytest test per check.

Importing ``reactive_streams`` does not import the kit; Hypothesis is imported only by
the generated checks (they skip, saying why, when it is missing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from . import processor as _processor
from . import publisher as _publisher
from . import subscriber as _subscriber
from ._checks import STATUSES, Check
from ._checks import checks_of as _checks_of
from ._env import CheckFailure, Config
from ._runner import mode_for as _mode_for
from ._runner import run_checks as _run_checks
from .probes import WhiteboxProbe, WhiteboxPuppet
from .report import CheckResult, Report

__all__ = [
    "STATUSES",
    "Check",
    "CheckFailure",
    "CheckResult",
    "Config",
    "Report",
    "WhiteboxProbe",
    "WhiteboxPuppet",
    "all_check_names",
    "all_checks",
    "run_processor_checks",
    "run_publisher_checks",
    "run_subscriber_blackbox_checks",
    "run_subscriber_whitebox_checks",
]

Only = Callable[[Check], bool] | None


def all_checks() -> list[Check]:
    """Every check of the four suites (processor-only checks listed once)."""
    return (
        _checks_of("publisher")
        + _checks_of("subscriber_whitebox")
        + _checks_of("subscriber_blackbox")
        + _checks_of("processor")
    )


def all_check_names() -> list[str]:
    """Distinct check names (a name shared by two suites is one check)."""
    return list(dict.fromkeys(c.name for c in all_checks()))


def _config(config: Config | None, overrides: dict[str, Any]) -> Config:
    return replace(config or Config(), **overrides)


def run_publisher_checks(
    create_publisher: Callable[..., Any],
    *,
    create_failed_publisher: Callable[..., Any] | None = None,
    create_failing_publisher: Callable[..., Any] | None = None,
    config: Config | None = None,
    only: Only = None,
    label: str | None = None,
    **overrides: Any,
) -> Report:
    """Run the publisher checks.

    ``create_publisher(n)`` must return a Publisher of exactly ``n`` elements; if it also
    takes ``executor``, the kit passes its own and checks absence deterministically.
    ``create_failed_publisher()`` returns one that fails at once (on_subscribe, on_error);
    ``create_failing_publisher(n)`` one that emits ``n`` elements and then fails.
    ``overrides`` set ``Config`` fields (``max_elements=100``, ``synchronous=True``...).
    """
    cfg = _config(config, overrides)
    subject = _publisher.PublisherSubject(
        create_publisher, cfg, create_failed_publisher, create_failing_publisher
    )
    return _run_checks(
        _checks_of("publisher"),
        subject,
        cfg,
        _mode_for(create_publisher, cfg),
        label or _name(create_publisher),
        only=only,
    )


def run_subscriber_whitebox_checks(
    create_subscriber: Callable[..., Any],
    *,
    config: Config | None = None,
    only: Only = None,
    label: str | None = None,
    **overrides: Any,
) -> Report:
    """Run the whitebox subscriber checks: ``create_subscriber(probe)`` returns a
    Subscriber that reports to ``probe`` (a :class:`WhiteboxProbe`)."""
    cfg = _config(config, overrides)
    subject = _subscriber.SubscriberSubject(create_subscriber, cfg)
    return _run_checks(
        _checks_of("subscriber_whitebox"),
        subject,
        cfg,
        _mode_for(create_subscriber, cfg),
        label or _name(create_subscriber),
        only=only,
    )


def run_subscriber_blackbox_checks(
    create_subscriber: Callable[..., Any],
    *,
    trigger_request: Callable[[Any], None] | None = None,
    config: Config | None = None,
    only: Only = None,
    label: str | None = None,
    **overrides: Any,
) -> Report:
    """Run the blackbox subscriber checks on an unmodified ``create_subscriber()``.

    ``trigger_request(subscriber)`` is for subscribers that request only on an outside
    stimulus (JVM ``triggerRequest``).
    """
    cfg = _config(config, overrides)
    subject = _subscriber.SubscriberSubject(create_subscriber, cfg, trigger_request)
    return _run_checks(
        _checks_of("subscriber_blackbox"),
        subject,
        cfg,
        _mode_for(create_subscriber, cfg),
        label or _name(create_subscriber),
        only=only,
    )


def run_processor_checks(
    create_processor: Callable[..., Any],
    *,
    create_failed_publisher: Callable[..., Any] | None = None,
    config: Config | None = None,
    only: Only = None,
    label: str | None = None,
    **overrides: Any,
) -> Report:
    """Run the identity-processor checks: its own, then the publisher and whitebox
    subscriber checks on the processor (``create_processor(buffer_size)``)."""
    cfg = _config(config, overrides)
    return _processor.run(
        create_processor, create_failed_publisher, cfg, only, label or _name(create_processor)
    )


def _name(factory: Callable[..., Any]) -> str:
    module = getattr(factory, "__module__", None) or "?"
    return f"{module}:{getattr(factory, '__qualname__', repr(factory))}"
