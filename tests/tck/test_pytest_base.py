"""The pytest form: a ten-line subclass yields one test per check."""

from __future__ import annotations

from typing import Any

from reactive_streams import LambdaSubscriber, sources
from reactive_streams.tck._checks import checks_of
from reactive_streams.tck.gallery import GalleryProcessor, GallerySubscriber
from reactive_streams.tck.pytest import (
    IdentityProcessorVerification,
    PublisherVerification,
    SubscriberBlackboxVerification,
    SubscriberWhiteboxVerification,
)


class TestRangeVerification(PublisherVerification):
    synchronous = True

    def create_publisher(self, n: int) -> Any:
        return sources.range(0, n)

    def create_failed_publisher(self) -> Any:
        return sources.error(RuntimeError("failed on purpose"))


class TestLambdaSubscriberVerification(SubscriberBlackboxVerification):
    synchronous = True

    def create_subscriber(self) -> Any:
        return LambdaSubscriber(request=1)


class TestGallerySubscriberWhitebox(SubscriberWhiteboxVerification):
    synchronous = True

    def create_subscriber(self, probe: Any) -> Any:
        return GallerySubscriber(probe)


class TestGalleryProcessorVerification(IdentityProcessorVerification):
    synchronous = True

    def create_identity_processor(self, buffer_size: int) -> Any:
        return GalleryProcessor(buffer_size)


def test_one_test_method_per_check() -> None:
    for cls, suites in (
        (TestRangeVerification, ("publisher",)),
        (TestGalleryProcessorVerification, ("processor", "publisher", "subscriber_whitebox")),
    ):
        names = {f"test_{c.name}" for s in suites for c in checks_of(s)}  # type: ignore[arg-type]
        assert names <= set(dir(cls))
