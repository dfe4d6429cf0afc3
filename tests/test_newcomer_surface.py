"""Issue 25's newcomer frictions, one test (or a few) per item: what went wrong for a
user coming from reactivex or Reactor, then what happens now.

Subprocess tests run a tiny program in a fresh interpreter, because what they check
(logging as an application that configured none sees it) is global state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path

import pytest

import reactive_streams
from reactive_streams import Emitter, Flow, Subscription
from reactive_streams.testing import TestSubscriber

pytestmark = pytest.mark.timeout(60)

IMPL = Path(reactive_streams.__file__).resolve().parent.parent


def _run(program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PYTHONPATH": str(IMPL), "PATH": "/usr/bin:/bin"},
        check=False,
    )


# ------------------------------------------------- 1. no silent failure
def test_an_unhandled_error_reaches_stderr_without_logging_configured() -> None:
    done = _run("""
        from reactive_streams import Flow
        sub = Flow.range(3).map(lambda x: 1 / (x - 1)).subscribe(print)
        assert sub.done.wait(5)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "-1.0\n"
    assert "ZeroDivisionError" in done.stderr
    assert "no on_error callback" in done.stderr


def test_an_unhandled_error_from_on_next_reaches_stderr_too() -> None:
    done = _run("""
        from reactive_streams import Flow
        def boom(x):
            raise ValueError("bad element")
        Flow.range(3).subscribe(boom)
        """)
    assert "ValueError: bad element" in done.stderr


def test_an_application_handler_gets_the_record_and_stderr_stays_quiet() -> None:
    done = _run("""
        import logging
        records = []
        class Keep(logging.Handler):
            def emit(self, record):
                records.append(record)
        logging.getLogger().addHandler(Keep())
        from reactive_streams import Flow
        Flow.error(KeyError("k")).subscribe(print)
        assert len(records) == 1 and records[0].levelno == logging.ERROR, records
        """)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_lambda_subscriber_exposes_error_and_completed() -> None:
    failed = Flow.range(3).map(lambda x: 1 // (x - 1)).subscribe(lambda x: None, lambda e: None)
    assert failed.done.wait(5)
    assert isinstance(failed.error, ZeroDivisionError)
    assert not failed.completed
    ok = Flow.range(3).subscribe(lambda x: None)
    assert ok.done.wait(5)
    assert ok.completed
    assert ok.error is None


def test_lambda_subscriber_is_a_context_manager_that_cancels_on_exit() -> None:
    cancelled = threading.Event()
    with Flow.timer(3600.0).do_on_cancel(cancelled.set).subscribe(print) as sub:
        assert not sub.done.is_set()
    assert cancelled.wait(5), "leaving the with block cancels the subscription"
    assert sub.done.is_set()
    assert not sub.completed


# ------------------------------------------------- 2. no hang in a coroutine
async def _ticks(n: int) -> AsyncIterator[int]:
    for i in range(n):
        await asyncio.sleep(0)
        yield i


@pytest.mark.parametrize(
    ("terminal", "advice"),
    [
        (lambda f: f.to_list(timeout=5), "await flow.aio.to_list()"),
        (lambda f: f.first(timeout=5), "await flow.aio.first()"),
        (lambda f: f.last(timeout=5), "await flow.aio.last()"),
        (lambda f: next(f.blocking_iter(timeout=5)), "async for x in flow"),
    ],
    ids=["to_list", "first", "last", "blocking_iter"],
)
def test_a_blocking_terminal_in_a_coroutine_raises_instead_of_hanging(
    terminal: Callable[[Flow[int]], object], advice: str
) -> None:
    # before: the terminal blocked the loop that from_async_iterable needs (a deadlock;
    # the timeout=5 only bounds the old behaviour here)
    async def main() -> object:
        return terminal(Flow.from_async_iterable(_ticks(3)))

    with pytest.raises(RuntimeError, match=re.escape(advice)):
        asyncio.run(main())


def test_for_and_list_in_a_coroutine_raise_naming_async_for() -> None:
    outcome: list[BaseException] = []

    async def main() -> None:
        flow = Flow.from_async_iterable(_ticks(3))
        try:
            list(flow)
        except RuntimeError as exc:
            outcome.append(exc)
        assert [x async for x in flow] == [0, 1, 2]  # the advice works

    runner = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    runner.start()
    runner.join(10)  # bounded: the old code hung here forever
    assert not runner.is_alive(), "list(flow) inside a coroutine hung"
    assert "async for x in flow" in str(outcome[0])


def test_blocking_terminals_still_work_off_the_loop_thread() -> None:
    async def main() -> list[int]:
        flow = Flow.from_async_iterable(_ticks(3))
        return await asyncio.to_thread(flow.to_list, 5)  # another thread may block

    assert asyncio.run(main()) == [0, 1, 2]


@pytest.mark.parametrize("timeout", [-1, float("nan"), "5", True])
def test_a_bad_timeout_is_refused_naming_it(timeout: object) -> None:
    flow = Flow.range(3)
    for call in (flow.to_list, flow.first, flow.last, flow.blocking_iter):
        with pytest.raises((ValueError, TypeError), match="timeout"):
            call(timeout=timeout)  # type: ignore[arg-type]


# ------------------------------------------------- 3. re-subscription
def _numbers() -> Iterator[int]:
    yield from (1, 2, 3)


def test_a_generator_source_answers_a_second_subscriber_with_an_error_naming_defer() -> None:
    flow = Flow.from_iterable(_numbers())
    assert flow.to_list(timeout=5) == [1, 2, 3]
    with pytest.raises(RuntimeError, match=r"one-shot.*Flow\.defer"):
        flow.to_list(timeout=5)  # before: [] (what the first subscriber left)
    with pytest.raises(RuntimeError, match="one-shot"):
        flow.map(lambda x: x * 2).to_list(timeout=5)  # the fused chain too


def test_an_async_generator_source_answers_a_second_subscriber_with_an_error() -> None:
    async def main() -> None:
        flow = Flow.from_async_iterable(_ticks(2))
        assert await flow.aio.to_list() == [0, 1]
        with pytest.raises(RuntimeError, match=r"one-shot.*Flow\.defer"):
            await flow.aio.to_list()  # before: [] (the exhausted generator)
        fresh = Flow.defer(lambda: Flow.from_async_iterable(_ticks(2)))
        assert await fresh.aio.to_list() == await fresh.aio.to_list() == [0, 1]

    asyncio.run(main())


def test_a_file_source_answers_a_second_subscriber_with_an_error(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("a\nb\n", encoding="utf-8")
    with path.open(encoding="utf-8") as rows:
        flow = Flow.from_iterable(rows).map(str.strip)
        assert flow.to_list(timeout=5) == ["a", "b"]
        with pytest.raises(RuntimeError, match=r"Flow\.defer"):
            flow.to_list(timeout=5)


def test_defer_gives_each_subscriber_a_fresh_one_shot_source() -> None:
    def distinct() -> Flow[int]:
        seen: set[int] = set()  # per-subscription state, as the user meant it

        def first_time(x: int) -> bool:
            fresh = x not in seen
            seen.add(x)
            return fresh

        return Flow.from_iterable(_numbers()).filter(first_time)

    flow = Flow.defer(distinct)
    assert flow.to_list(timeout=5) == [1, 2, 3]
    assert flow.to_list(timeout=5) == [1, 2, 3]


@pytest.mark.parametrize("items", [[1, 2, 3], (1, 2, 3), range(1, 4)], ids=type)
def test_reusable_sources_stay_reusable(items: Iterable[int]) -> None:
    flow = Flow.from_iterable(items)
    assert flow.to_list(timeout=5) == [1, 2, 3]
    assert flow.to_list(timeout=5) == [1, 2, 3]


def test_pipe_and_transform_apply_a_reusable_chain() -> None:
    def evens(flow: Flow[int]) -> Flow[int]:
        return flow.filter(lambda x: x % 2 == 0)

    def doubled(flow: Flow[int]) -> Flow[int]:
        return flow.map(lambda x: x * 2)

    assert Flow.range(6).pipe(evens, doubled).to_list(timeout=5) == [0, 4, 8]
    assert Flow.range(6).transform(evens).to_list(timeout=5) == [0, 2, 4]
    assert Flow.range(2).pipe().to_list(timeout=5) == [0, 1]
    with pytest.raises(TypeError, match="pipe: operator 2 must be callable"):
        Flow.range(2).pipe(evens, 3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="pipe: the result of operator 1 must be a Publisher"):
        Flow.range(2).pipe(lambda f: [1])  # type: ignore[arg-type, return-value]


# ------------------------------------------------- 5. fail fast on bad arguments
def test_flow_of_a_list_fails_at_construction_naming_from_iterable() -> None:
    with pytest.raises(TypeError, match=r"source must be a Publisher.*Flow\.from_iterable"):
        Flow([1, 2, 3])  # type: ignore[arg-type]  # before: AttributeError at subscribe


def test_observe_on_none_is_refused_naming_the_argument() -> None:
    with pytest.raises(TypeError, match="observe_on: executor"):
        Flow.range(3).observe_on(None)  # type: ignore[arg-type]  # before: ran on the caller


def test_emitter_block_emit_has_a_checked_timeout() -> None:
    emitter: Emitter[int] = Emitter(1, overflow="block")
    assert emitter.emit(1)
    with pytest.raises(TimeoutError, match=r"no room within timeout=0\.05s"):
        emitter.emit(2, timeout=0.05)  # nobody subscribed: before, this blocked forever
    with pytest.raises(ValueError, match=r"Emitter\.emit: timeout"):
        emitter.emit(2, timeout=-1)
    got: list[int] = []
    emitter.flow.subscribe(got.append)
    assert emitter.emit(2, timeout=5)
    assert got == [1, 2]


def test_from_async_iterable_outside_a_loop_names_the_fix() -> None:
    with pytest.raises(RuntimeError, match=r"no event loop runs on this thread.*loop="):
        Flow.from_async_iterable(_ticks(1))
    with pytest.raises(TypeError, match="from_async_iterable: iterable must be an async"):
        Flow.from_async_iterable([1, 2])  # type: ignore[arg-type]


def test_from_future_share_and_auto_connect_check_their_arguments() -> None:
    with pytest.raises(TypeError, match="from_future: future must be a concurrent"):
        Flow.from_future(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="publish: buffer_size"):
        Flow.range(3).share(0)
    with pytest.raises(ValueError, match="auto_connect: n must be an int >= 0"):
        Flow.range(3).publish().auto_connect(-1)


# ------------------------------------------------- 8. small gaps
def test_from_future_emits_the_result_or_the_error() -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert Flow.from_future(pool.submit(lambda: 7)).to_list(timeout=5) == [7]
        failed = pool.submit(lambda: 1 // 0)
        with pytest.raises(ZeroDivisionError):
            Flow.from_future(failed).first(timeout=5)
    pending: concurrent.futures.Future[int] = concurrent.futures.Future()
    probe = TestSubscriber[int](initial_request=0)
    Flow.from_future(pending).subscribe(probe)
    pending.set_result(3)
    probe.assert_value_count(0)  # rule 1.1: nothing without demand
    probe.request(1)
    probe.await_terminal(5).assert_values(3).assert_complete().assert_no_violations()


def test_from_future_never_signals_while_on_subscribe_runs() -> None:
    """Rule 1.3: the future completing on another thread during ``on_subscribe`` (after
    its ``request``) must not call ``on_next`` before ``on_subscribe`` has returned."""
    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    inside = threading.Event()
    early: list[int] = []
    got: list[int] = []

    class Eager:
        def on_subscribe(self, subscription: Subscription) -> None:
            inside.set()
            subscription.request(1)
            completer = threading.Thread(target=future.set_result, args=(5,))
            completer.start()
            completer.join(5)  # the done callback has run, on the completer's thread
            early.extend(got)
            inside.clear()

        def on_next(self, item: int) -> None:
            got.append(item)

        def on_error(self, error: BaseException) -> None:
            raise AssertionError(error)

        def on_complete(self) -> None:
            pass

    Flow.from_future(future).subscribe(Eager())
    assert early == [], "on_next overlapped on_subscribe (rule 1.3)"
    assert got == [5], "the element is sent once on_subscribe has returned"


def test_flat_map_accepts_a_mapper_returning_a_concurrent_future() -> None:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        squares: Flow[int] = Flow.range(4).flat_map(lambda x: pool.submit(lambda: x * x))
        assert sorted(squares.to_list(timeout=5)) == [0, 1, 4, 9]  # before: TypeError


def test_share_is_publish_ref_count() -> None:
    cancelled = threading.Event()
    shared = Flow.interval(0.01).do_on_cancel(cancelled.set).share()
    first = shared.take(3).to_list(timeout=10)
    assert first == [0, 1, 2]
    assert cancelled.wait(5), "the last subscriber leaving disconnects the source"


def test_auto_connect_connects_at_the_nth_subscriber() -> None:
    subscribed = threading.Event()
    auto = Flow.range(3).do_on_request(lambda n: subscribed.set()).publish().auto_connect(2)
    a = TestSubscriber[int](initial_request=10)
    b = TestSubscriber[int](initial_request=10)
    auto.subscribe(a)
    assert not subscribed.is_set(), "one subscriber of two: not connected yet"
    auto.subscribe(b)
    a.await_terminal(5).assert_values(0, 1, 2).assert_complete()
    b.await_terminal(5).assert_values(0, 1, 2).assert_complete()


# ------------------------------------------------- 4. types match the runtime
def test_a_user_program_type_checks_under_mypy_strict() -> None:
    """tests/newcomer_program.py passes ``observe_on`` a thread pool and an asyncio loop,
    zips 2 to 4 typed sources, and marks the mistakes mypy must catch (before: ``Executor``
    rejected the pool, ``zip`` gave ``tuple[Any, ...]``, so a wrong zip went unnoticed)."""
    pytest.importorskip("mypy")
    program = Path(__file__).resolve().parent / "newcomer_program.py"
    root = program.parent.parent
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", f"--config-file={os.devnull}", str(program)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,  # its .mypy_cache: warm runs take about a second
        env={**os.environ, "MYPYPATH": str(IMPL)},
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_program_s_executors_run_at_run_time_too() -> None:
    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            flow = Flow.range(3).observe_on(pool).subscribe_on(pool).observe_on(loop)
            return await flow.aio.to_list()

    assert asyncio.run(main()) == [0, 1, 2]
    assert Flow.zip(Flow.range(2), Flow.just("a", "b")).to_list(timeout=5) == [(0, "a"), (1, "b")]


# ------------------------------------------------- 5. a readable repr for every stage
def _double(x: int) -> int:
    return 2 * x


def test_every_stage_has_a_readable_repr() -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        flow = Flow.range(0, 10).map(_double).observe_on(pool)
        # before: Flow(<reactive_streams.operators._observe_on.ObserveOnPublisher object at 0x…>)
        assert repr(flow) == "Flow(range(0, 10).map(_double).observe_on(ThreadPoolExecutor))"
    assert repr(Flow.just("a").zip_with(Flow.range(2), prefetch=4)) == (
        "Flow(just('a').zip_with(range(2), prefetch=4))"
    )
    assert repr(Flow.range(3).share()) == "RefCountFlow(range(3).share())"
    assert repr(Flow.range(3).publish().auto_connect(2)) == (
        "Flow(range(3).publish().auto_connect(2))"
    )
    assert repr(Flow.range(3).pipe(lambda f: f.take(2))) == "Flow(range(3).pipe(<lambda>))"
