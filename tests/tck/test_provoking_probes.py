"""The probe subscriber yields inside its signals and extra_spec308 requests from several
threads, so races that need a thread switch while a signal runs are caught on their own
rule: two drains in on_next at once (gallery P52, rule 1.3) and a request lost while
on_next runs (P53, rule 3.8); the correct asynchronous and synchronous publishers pass."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from reactive_streams.tck import Report, run_publisher_checks
from reactive_streams.tck.gallery import GalleryPublisher
from reactive_streams.tck.gallery.publishers import ThreadedPublisher
from reactive_streams.tck.gallery.rules_1_publisher import UnserialisedDrains
from reactive_streams.tck.gallery.rules_3_subscription import StaleDemand

CHECK = "extra_spec308_concurrent_requests_add_up_exactly"
RUNS = 3


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def _run(subject: type[ThreadedPublisher], timeout: float = 10.0) -> Report:
    return run_publisher_checks(
        lambda n: subject(n), only=lambda c: c.name == CHECK, timeout=timeout
    )


@pytest.mark.parametrize(
    ("bug", "rule"), [(UnserialisedDrains, "1.3"), (StaleDemand, "3.8")], ids=["P52", "P53"]
)
def test_a_race_inside_a_signal_is_caught_on_its_rule(
    bug: type[ThreadedPublisher], rule: str
) -> None:
    for _ in range(RUNS):
        (result,) = _run(bug, timeout=2.0).results
        assert result.failed, result
        assert result.violated == rule, result


def test_the_correct_publishers_pass_the_concurrent_request_check() -> None:
    for _ in range(RUNS):
        assert _run(ThreadedPublisher).ok
        report = run_publisher_checks(
            lambda n: GalleryPublisher(n), synchronous=True, only=lambda c: c.name == CHECK
        )
        assert report.ok, report.table()
