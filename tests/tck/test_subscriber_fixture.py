"""The kit's ManualPublisher shows a request or cancel only together with its effect, so
a check that has seen a subscriber's request can send the element at once (issue 22,
item 2): whitebox subscribers that request from their own thread (the JVM
``AsyncSubscriber``'s shape) pass every whitebox and blackbox check."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest

from reactive_streams.tck import (
    Config,
    Report,
    run_subscriber_blackbox_checks,
    run_subscriber_whitebox_checks,
)
from reactive_streams.tck._env import Env
from reactive_streams.tck._manual import ManualPublisher, ManualSubscription
from reactive_streams.tck.gallery import AsyncSubscriber


class _Quiet:
    def on_subscribe(self, subscription: Any) -> None:
        pass

    def on_next(self, item: object) -> None:
        pass

    def on_error(self, error: BaseException) -> None:
        pass

    def on_complete(self) -> None:
        pass


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def _watched() -> tuple[ManualSubscription, list[tuple[int, int, bool, bool]]]:
    """A subscription whose every wake-up of the check snapshots (requests seen, demand,
    cancel seen, cancelled): what a check woken at that moment would find."""
    env = Env(Config())
    publisher = ManualPublisher(env)
    publisher.subscribe(_Quiet())
    sub = publisher.subscription
    seen: list[tuple[int, int, bool, bool]] = []
    notify = env.notify

    def snapshot() -> None:
        kinds = [c.kind for c in sub.calls]
        seen.append((kinds.count("request"), sub.demand, "cancel" in kinds, sub.cancelled))
        notify()

    env.notify = snapshot  # type: ignore[method-assign]
    return sub, seen


def test_a_recorded_request_is_woken_with_its_demand() -> None:
    sub, seen = _watched()
    sub.request(3)
    sub.request(2)
    assert seen, "the check was never woken"
    for requests, demand, _, _ in seen:
        assert demand == {0: 0, 1: 3, 2: 5}[requests], seen


def test_a_recorded_cancel_is_woken_with_cancelled_set() -> None:
    sub, seen = _watched()
    sub.cancel()
    assert seen
    for _, _, cancel_seen, cancelled in seen:
        assert cancel_seen == cancelled, seen


def _failures(report: Report) -> list[str]:
    return [f"{r.name}: {r.violated}: {r.message}" for r in report.failures()]


def run_async_subscriber_once() -> list[str]:
    """The AsyncSubscriber-shaped subscriber through the whitebox and blackbox checks."""
    config = Config(timeout=10.0)
    white = run_subscriber_whitebox_checks(lambda probe: AsyncSubscriber(probe), config=config)
    black = run_subscriber_blackbox_checks(lambda: AsyncSubscriber(), config=config)
    return _failures(white) + _failures(black)


RUNS = 10 if os.environ.get("RS_SLOW") == "1" else 2  # make kit-load runs 10


@pytest.mark.timeout(600)
def test_an_async_whitebox_subscriber_passes_every_run() -> None:
    failed = [f"run {i + 1}: {f}" for i in range(RUNS) for f in run_async_subscriber_once()]
    assert not failed, "\n".join(failed)
