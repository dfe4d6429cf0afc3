"""``to_async_iterator`` and ``to_iterable`` over a fusable source pull it through the
fusion protocol (issue 23): no subscription, batches on the consumer's thread, and the
same elements, end and error as the subscribed source; a ``break`` still cancels."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import reactive_streams as rs
from reactive_streams._core.fusion import SyncSource, fusion
from reactive_streams.bridges import to_async_iterator, to_iterable


class _Counted:
    """A third-party publisher answering the fusion protocol; records subscribes, the
    thread its iterator runs on, how far it was pulled and whether it was closed."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.subscribes = 0
        self.pulled = 0
        self.closed = threading.Event()
        self.threads: set[int] = set()

    def _items(self) -> Iterator[int]:
        try:
            for i in range(self.n):
                self.threads.add(threading.get_ident())
                self.pulled += 1
                yield i
        finally:
            self.closed.set()  # dropped by the cancel (rule 3.13) or run to its end

    def subscribe(self, subscriber: Any) -> None:
        self.subscribes += 1
        rs.from_iterable(self._items()).subscribe(subscriber)

    def __rs_sync__(self) -> SyncSource:
        return SyncSource(self._items, hop="counted")


def _drain(publisher: Any, prefetch: int, stop: int | None = None) -> tuple[list[Any], str]:
    """The elements an ``async for`` sees (up to ``stop``), and how it ended."""

    async def main() -> tuple[list[Any], str]:
        seen: list[Any] = []
        try:
            async for x in to_async_iterator(publisher, prefetch=prefetch):
                seen.append(x)
                if stop is not None and len(seen) == stop:
                    break
        except Exception as exc:  # the stream's error, re-raised by __anext__
            return seen, f"{type(exc).__name__}: {exc}"
        return seen, "end"

    return asyncio.run(asyncio.wait_for(main(), 20))


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_to_async_iterator_pulls_a_fusable_source_on_the_loop_thread_without_subscribing(
    fused: bool,
) -> None:
    source = _Counted(1000)
    with fusion(fused):
        seen, end = _drain(source, prefetch=16)
    assert (seen, end) == (list(range(1000)), "end")
    assert source.subscribes == (0 if fused else 1)  # fused: pulled, never subscribed
    assert len(source.threads) == 1  # a synchronous source runs where it is requested


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_break_cancels_a_pulled_source_within_prefetch(fused: bool) -> None:
    source = _Counted(10**9)
    with fusion(fused):
        seen, end = _drain(source, prefetch=8, stop=5)
    assert (seen, end) == ([0, 1, 2, 3, 4], "end")
    assert source.closed.wait(10)  # cancelled: the iterator was dropped (rules 3.12, 3.13)
    assert source.pulled <= 5 + 8  # consumed + prefetch (rule 3.17: bounded)


def _boom() -> Iterator[int]:
    yield 1
    yield 2
    raise KeyError("boom")


SOURCES: dict[str, Any] = {
    "range": lambda: rs.range(0, 300),
    "list-with-none": lambda: rs.from_iterable([1, 2, None, 4]),
    "raises": lambda: rs.from_iterable(_boom()),
    "error": lambda: rs.error(KeyError("k")),
    "empty": lambda: rs.empty(),
    "just": lambda: rs.just(7),
    "map-none": lambda: rs.Flow.range(0, 5).map(lambda x: None if x == 3 else x),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("prefetch", [1, 3, 128])
def test_fused_and_unfused_iterators_see_the_same_stream(name: str, prefetch: int) -> None:
    with fusion(True):
        fused = _drain(SOURCES[name](), prefetch)
    with fusion(False):
        unfused = _drain(SOURCES[name](), prefetch)
    assert fused == unfused


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_to_iterable_pulls_a_fusable_source_without_subscribing(fused: bool) -> None:
    source = _Counted(1000)
    with fusion(fused):
        items = to_iterable(source, prefetch=16)  # the pipeline is built here
    assert list(items) == list(range(1000))
    assert source.subscribes == (0 if fused else 1)
    broken = _Counted(10**9)
    with fusion(fused):
        for x in to_iterable(broken, prefetch=8):
            if x == 4:
                break  # closes the generator: cancels
    assert broken.closed.wait(10)
    assert broken.pulled <= 5 + 8


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fused_and_unfused_blocking_iterators_see_the_same_stream(name: str) -> None:
    def run() -> tuple[list[Any], str]:
        seen: list[Any] = []
        try:
            for x in to_iterable(SOURCES[name](), prefetch=3):
                seen.append(x)
        except Exception as exc:
            return seen, f"{type(exc).__name__}: {exc}"
        return seen, "end"

    with fusion(True):
        fused = run()
    with fusion(False):
        unfused = run()
    assert fused == unfused
