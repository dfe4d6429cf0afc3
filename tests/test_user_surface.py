"""The library as a new user meets it: the public API only, one test per complaint.

Each test names the problem a user hit (what went wrong, then what should happen).
Executor adaptation and cancel through ``subscribe_on`` are tested with the executors
and operators (tests/test_executors.py, tests/operators/); docs that run, in
tests/test_docs.py; the public surface, in tests/test_exports.py.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest

import reactive_streams as rs
from reactive_streams import Flow
from reactive_streams.operators import set_fusion
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(30)


def _parse(text: str) -> int | None:
    return int(text) if text.isdigit() else None


# ---------------------------------------------------------------- 1. errors, not hangs
def test_on_next_callback_error_reaches_on_error_and_completes() -> None:
    errors: list[BaseException] = []
    cancelled = threading.Event()

    def boom(item: int) -> None:
        raise ValueError(f"bad {item}")

    sub = Flow.from_iterable(range(10)).do_on_cancel(cancelled.set).subscribe(boom, errors.append)
    assert sub.done.wait(5), "a failing on_next callback must end the subscription"
    assert [str(e) for e in errors] == ["bad 0"]
    assert cancelled.is_set(), "upstream must be cancelled"


def test_on_next_callback_error_is_raised_by_to_list_and_iteration() -> None:
    def boom(item: int) -> None:
        raise ValueError("from the callback")

    with pytest.raises(ValueError, match="from the callback"):
        Flow.from_iterable(range(3)).do_on_next(boom).to_list()
    with pytest.raises(ValueError, match="from the callback"):
        for _ in Flow.from_iterable(range(3)).do_on_next(boom):
            pass


# ------------------------------------------------------- 4. to_list has a total deadline
def test_to_list_timeout_is_a_total_deadline() -> None:
    with rs.NewThreadExecutor() as executor:
        slow = Flow.generate(0, _tick, executor=executor)  # an element every 50 ms, for ever
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            slow.to_list(timeout=0.5)
        # per element it would never time out; a total deadline stops near 0.5 s
        assert time.monotonic() - started < 5


def _tick(state: int, sink: rs.Sink[int]) -> int:
    time.sleep(0.05)
    sink.next(state)
    return state + 1


def test_to_list_has_no_default_timeout() -> None:
    import inspect

    assert inspect.signature(Flow.to_list).parameters["timeout"].default is None


# ------------------------------------------------------------- 5. one public API
def test_top_level_sources_are_flows() -> None:
    assert rs.range(0, 3).map(lambda x: x * 2).to_list() == [0, 2, 4]
    assert rs.from_iterable("ab").to_list() == ["a", "b"]


def test_flow_from_iterable_takes_an_executor_and_batch_size() -> None:
    with rs.SingleThreadExecutor() as executor:
        flow = Flow.from_iterable([1, 2, 3], executor=executor, batch_size=2)
        assert flow.to_list(timeout=10) == [1, 2, 3]


def test_top_level_exports_no_demand_arithmetic() -> None:
    for name in ("add_demand", "take", "check_request"):
        assert name not in rs.__all__
        assert not hasattr(rs, name)


def test_schedulers_are_reachable_from_the_top_level() -> None:
    with rs.schedulers.single() as executor:
        assert Flow.just(1).observe_on(executor).to_list(timeout=10) == [1]


# ------------------------------------------------------------- 6. range is Python's
def test_range_follows_python() -> None:
    assert Flow.range(1, 5).to_list() == [1, 2, 3, 4]
    assert rs.range(4).to_list() == [0, 1, 2, 3]
    assert Flow.range(10, 0, -3).to_list() == [10, 7, 4, 1]
    assert Flow.range_count(1, 5).to_list() == [1, 2, 3, 4, 5]


# ------------------------------------------------------------------- 7. small ones
def test_flat_map_accepts_iterables() -> None:
    assert Flow.from_iterable(range(3)).flat_map(lambda x: [x, x]).to_list() == [0, 0, 1, 1, 2, 2]
    assert Flow.from_iterable(range(3)).concat_map(lambda x: range(x)).to_list() == [0, 0, 1]


@pytest.mark.parametrize("fusion", [True, False])
def test_map_returning_none_names_the_map_and_the_function(fusion: bool) -> None:
    previous = set_fusion(fusion)
    try:
        ts: TestSubscriber[int | None] = TestSubscriber(10)
        Flow.from_iterable(["1", "x"]).map(_parse).subscribe(ts)
    finally:
        set_fusion(previous)
    ts.assert_error(TypeError, r"map\(_parse\): returned None")


def test_flow_is_iterable_with_bounded_prefetch() -> None:
    requests: list[int] = []
    flow = Flow.from_iterable(range(1000)).do_on_request(requests.append)
    got = []
    for x in flow:
        got.append(x)
        if x == 2:
            break
    assert got == [0, 1, 2]
    assert requests
    assert max(requests) < 1000


def test_flow_is_async_iterable() -> None:
    async def main() -> list[int]:
        return [x async for x in Flow.from_iterable(range(3))]

    assert asyncio.run(main()) == [0, 1, 2]


def test_break_out_of_async_for_cancels_at_once() -> None:
    cancelled = threading.Event()

    async def main() -> None:
        flow = Flow.from_iterable(range(10**9)).do_on_cancel(cancelled.set)
        async with flow.to_async_iterator() as items:
            async for x in items:
                if x == 3:
                    break
        # without waiting for garbage collection
        assert cancelled.is_set()

    asyncio.run(main())


def test_tracing_a_fused_pipeline_records_its_subscription_and_says_so() -> None:
    from pathlib import Path

    from reactive_streams.tracing import tracing

    with tracing() as tracer:
        assert Flow.range(5).map(lambda x: x + 1).to_list() == [1, 2, 3, 4, 5]
    sigs = [event["sig"] for event in tracer.events]
    assert sigs.count("send_on_next") == 5
    assert "send_on_complete" in sigs
    operators_doc = Path(__file__).resolve().parent.parent / "docs" / "operators.md"
    assert "Tracing sees subscriptions, not iterators" in operators_doc.read_text("utf-8")


def test_library_logger_has_only_its_last_resort_handler() -> None:
    # the library configures no logging: it never adds a handler to the root logger
    from reactive_streams._report import LastResortHandler

    handlers = logging.getLogger("reactive_streams").handlers
    assert any(isinstance(h, LastResortHandler) for h in handlers)


# ------------------------------------------------------------ 9. asyncio first-class
def test_await_first_last_and_to_list() -> None:
    async def main() -> tuple[int, int, list[int]]:
        flow = Flow.from_iterable(range(5))
        return await flow.aio.first(), await flow.aio.last(), await flow.aio.to_list()

    assert asyncio.run(main()) == (0, 4, [0, 1, 2, 3, 4])


def test_await_does_not_block_the_loop_and_flat_map_awaits_coroutines() -> None:
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return 2 * x

    async def main() -> list[int]:
        return await Flow.from_iterable(range(4)).concat_map(double).aio.to_list()

    assert asyncio.run(main()) == [0, 2, 4, 6]


def test_flat_map_names_itself_and_the_mapper_when_it_cannot_adapt() -> None:
    async def fetch(x: int) -> int:
        return x

    with pytest.raises(TypeError, match=r"flat_map\(.*fetch\): returned an awaitable outside"):
        Flow.range(2).flat_map(fetch).to_list(timeout=10)
    with pytest.raises(TypeError, match=r"concat_map\(.*: returned int; expected"):
        Flow.range(2).concat_map(lambda x: x).to_list(timeout=10)  # type: ignore[arg-type, return-value]


def test_first_and_last_block_and_say_when_empty() -> None:
    assert Flow.range(3, 9).first() == 3
    assert Flow.range(3, 9).last() == 8
    with pytest.raises(LookupError, match="first"):
        Flow.empty().first()


def test_break_out_of_async_for_cancels_without_async_with() -> None:
    cancelled = threading.Event()

    async def main() -> None:
        async for x in Flow.from_iterable(range(10**9)).do_on_cancel(cancelled.set):
            if x == 3:
                break
        assert cancelled.is_set()

    asyncio.run(main())


def test_hot_bounded_push_source_fed_from_a_coroutine() -> None:
    async def main() -> list[int]:
        emitter: rs.Emitter[int] = rs.Emitter(4, overflow="block")

        async def produce() -> None:
            for i in range(20):
                await emitter.emit_async(i)
            emitter.complete()

        task = asyncio.create_task(produce())
        got = [x async for x in emitter.flow]
        await task
        return got

    assert asyncio.run(main()) == list(range(20))


@pytest.mark.parametrize(
    ("overflow", "expected"),
    [("drop_oldest", [2, 3, 4]), ("drop_latest", [0, 1, 2])],
)
def test_push_source_overflow_drops(overflow: str, expected: list[int]) -> None:
    emitter: rs.Emitter[int] = rs.Emitter(3, overflow=overflow)
    for i in range(5):
        emitter.emit(i)
    emitter.complete()
    assert emitter.flow.to_list(timeout=10) == expected


def test_push_source_overflow_error() -> None:
    emitter: rs.Emitter[int] = rs.Emitter(2, overflow="error")
    emitter.emit(0)
    emitter.emit(1)
    with pytest.raises(rs.BufferOverflowError):
        emitter.emit(2)
    with pytest.raises(rs.BufferOverflowError):
        emitter.flow.to_list(timeout=10)
