"""``to_async_iterator`` over a fused synchronous source pulls it on the loop's thread
and refills its buffer when it is empty (no count per element): the same elements, end
and error as the subscribed source, at most ``prefetch`` buffered."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from reactive_streams import Flow
from reactive_streams.bridges import AsyncFlowIterator, to_async_iterator
from reactive_streams.operators import fusion


class _Counted:
    """0, 1, ... n - 1, counted as pulled; raises ``error`` at its end if given."""

    def __init__(self, n: int, error: BaseException | None = None) -> None:
        self.n = n
        self.error = error
        self.pulled = 0

    def __iter__(self) -> Iterator[int]:
        for x in range(self.n):
            self.pulled += 1
            yield x
        if self.error is not None:
            raise self.error


def _collect(fused: bool, source: _Counted, stop: int | None = None) -> Any:
    async def main() -> Any:
        with fusion(fused):
            it = to_async_iterator(Flow.from_iterable(source), prefetch=8)
        seen: list[int] = []
        most = 0
        error: BaseException | None = None
        try:
            async for x in it:
                seen.append(x)
                most = max(most, source.pulled - len(seen))
                if stop is not None and len(seen) == stop:
                    break
        except LookupError as exc:
            error = exc
        return seen, error, most, type(it).__name__

    return asyncio.run(asyncio.wait_for(main(), 10))


@pytest.mark.parametrize("fused", [True, False])
def test_the_same_elements_and_at_most_prefetch_buffered(fused: bool) -> None:
    seen, error, most, kind = _collect(fused, _Counted(50))
    assert seen == list(range(50))
    assert error is None
    assert most <= 8  # rule 3.17 / bounded memory: never more than prefetch ahead
    assert (kind == "_PulledFlowIterator") is fused


@pytest.mark.parametrize("fused", [True, False])
def test_an_error_after_the_elements_is_raised_without_a_stray_context(fused: bool) -> None:
    seen, error, _, _ = _collect(fused, _Counted(20, LookupError("source")))
    assert seen == list(range(20))
    assert isinstance(error, LookupError)
    assert error.args == ("source",)
    assert error.__context__ is None  # not "during handling of IndexError"


def test_a_break_stops_pulling_at_once() -> None:
    source = _Counted(10_000)
    seen, _, _, kind = _collect(True, source, stop=13)
    assert kind == "_PulledFlowIterator"
    assert seen == list(range(13))
    assert source.pulled <= 13 + 8  # rule 3.13: nothing pulled after the cancel


def test_an_executor_source_is_not_pulled_here() -> None:
    from reactive_streams.executors import SingleThreadExecutor

    executor = SingleThreadExecutor(name="aiter-test")
    try:

        async def main() -> tuple[list[int], str]:
            it: AsyncFlowIterator[int] = to_async_iterator(
                Flow.range(0, 30, executor=executor), prefetch=4
            )
            seen = [x async for x in it]
            return seen, type(it).__name__

        seen, kind = asyncio.run(asyncio.wait_for(main(), 10))
    finally:
        executor.close()
    assert seen == list(range(30))
    assert kind == "AsyncFlowIterator"  # a barrier: subscribed, counted per element
