"""The work-in-progress drain loop: serial, complete, trampolined (rules 1.3, 2.7, 3.3)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import pytest

from reactive_streams._core import serial as _serial
from reactive_streams._core.serial import DrainLoop, SerialQueue, SerialSubscription
from reactive_streams.executors import ManualExecutor, ThreadPoolExecutor


class Counter(DrainLoop):
    """Work = a pending count; a round processes all of it and checks for overlap."""

    def __init__(self) -> None:
        super().__init__()
        self.pending = 0
        self.done = 0
        self.rounds = 0
        self.inside = 0
        self.max_inside = 0
        self.pending_lock = threading.Lock()
        self.reenter_from_round = 0

    def add(self) -> None:
        with self.pending_lock:
            self.pending += 1
        if self._enter():
            self._drain()

    def _drain_round(self) -> bool:
        self.inside += 1
        self.max_inside = max(self.max_inside, self.inside)
        self.rounds += 1
        with self.pending_lock:
            work, self.pending = self.pending, 0
        self.done += work
        if self.reenter_from_round > 0:
            self.reenter_from_round -= 1
            self.add()  # recursive call: must return at once (trampolining)
        self.inside -= 1
        return False


def test_spec303_work_added_from_inside_a_round_runs_in_the_next_round() -> None:
    counter = Counter()
    counter.reenter_from_round = 1000
    counter.add()
    assert counter.max_inside == 1
    assert counter.done == 1001
    assert counter._wip == 0


@pytest.mark.timeout(60)
def test_spec103_eight_threads_never_overlap_and_lose_no_work() -> None:
    counter = Counter()
    per_thread = 5000
    barrier = threading.Barrier(8)

    def hammer() -> None:
        barrier.wait(10)
        for _ in range(per_thread):
            counter.add()

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()
    assert counter.max_inside == 1
    assert counter.done == 8 * per_thread
    assert counter._wip == 0


def test_serial_queue_runs_nothing_on_the_caller_and_keeps_order() -> None:
    manual = ManualExecutor()
    seen: list[int] = []
    queue: SerialQueue[int] = SerialQueue(manual, seen.append, batch=3)
    for i in range(7):
        queue.offer(i)
    assert seen == []
    assert len(manual) == 1  # one drain task, however many offers
    manual.run_next()
    assert seen == [0, 1, 2]  # batch of 3, then a continuation task
    assert len(manual) == 1
    manual.run_all()
    assert seen == list(range(7))
    queue.offer(7)
    assert len(manual) == 1
    manual.run_all()
    assert seen == list(range(8))


def test_serial_queue_survives_a_raising_handler(caplog: pytest.LogCaptureFixture) -> None:
    manual = ManualExecutor()
    seen: list[int] = []

    def handler(i: int) -> None:
        if i == 1:
            raise RuntimeError("handler failure")
        seen.append(i)

    queue: SerialQueue[int] = SerialQueue(manual, handler)
    for i in range(3):
        queue.offer(i)
    manual.run_all()
    assert seen == [0, 2]
    assert "handler failure" in caplog.text
    assert [r.getMessage() for r in caplog.records] == ["serial queue handler raised"]


def test_a_refused_serial_queue_drops_its_messages_and_logs_or_reports(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Refusing:
        def execute(self, task: Callable[[], None]) -> None:
            raise RuntimeError("refused")

    seen: list[int] = []
    with caplog.at_level(logging.ERROR, logger="reactive_streams"):
        queue: SerialQueue[int] = SerialQueue(Refusing(), seen.append)
        queue.offer(1)
    assert len(queue) == 0
    assert seen == []
    [record] = caplog.records
    assert record.getMessage() == f"{queue!r}: the executor rejected the drain task"
    assert record.exc_info is not None
    assert str(record.exc_info[1]) == "refused"
    reported: list[Exception] = []
    queue = SerialQueue(Refusing(), seen.append, on_reject=reported.append)
    queue.offer(2)
    assert [str(e) for e in reported] == ["refused"]
    assert len(queue) == 0


def test_a_drain_task_the_executor_drops_later_is_rejected_then_drained_here() -> None:
    """``_lost``: an accepted task dropped before it ran (a WatchedExecutor) is handled
    as a refusal with the executor's error (rules 1.9, 1.4)."""

    class Dropping:
        def execute(self, task: Callable[[], None]) -> None:
            raise AssertionError("execute_watched is used")

        def execute_watched(
            self, task: Callable[[], None], lost: Callable[[Exception], None]
        ) -> None:
            lost(RuntimeError("dropped"))

    reported: list[Exception] = []
    seen: list[int] = []
    queue: SerialQueue[int] = SerialQueue(Dropping(), seen.append, on_reject=reported.append)
    queue.offer(1)
    assert [str(e) for e in reported] == ["dropped"]
    assert seen == []
    assert len(queue) == 0


@pytest.mark.timeout(60)
def test_spec103_serial_queue_on_a_pool_is_serial_under_contention() -> None:
    inside = 0
    max_inside = 0
    handled: list[int] = []
    finished = threading.Event()
    total = 8 * 2000

    def handler(i: int) -> None:
        nonlocal inside, max_inside
        inside += 1
        max_inside = max(max_inside, inside)
        handled.append(i)
        inside -= 1
        if len(handled) == total:
            finished.set()

    with ThreadPoolExecutor(4) as pool:
        queue: SerialQueue[int] = SerialQueue(pool, handler, batch=16)

        def producer(base: int) -> None:
            for i in range(2000):
                queue.offer(base + i)

        threads = [threading.Thread(target=producer, args=(k * 10_000,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert finished.wait(30)
    assert max_inside == 1
    assert len(handled) == total
    for k in range(8):  # per producer, FIFO order is kept
        mine = [i for i in handled if k * 10_000 <= i < (k + 1) * 10_000]
        assert mine == sorted(mine)


def test_serial_subscription_calls_never_overlap_and_none_is_lost() -> None:
    from reactive_streams._core.serial import SerialSubscription

    class Upstream:
        def __init__(self) -> None:
            self.active = 0
            self.overlaps = 0
            self.total = 0
            self.cancelled = 0
            self.lock = threading.Lock()

        def request(self, n: int) -> None:
            with self.lock:
                self.active += 1
                self.overlaps += self.active > 1
            self.total += n
            with self.lock:
                self.active -= 1

        def cancel(self) -> None:
            self.cancelled += 1

    upstream = Upstream()
    serial = SerialSubscription(upstream)
    start = threading.Barrier(4)

    def hammer() -> None:
        start.wait(10)
        for _ in range(2_000):
            serial.request(1)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
        assert not thread.is_alive()
    assert upstream.overlaps == 0
    assert upstream.total == 8_000  # every queued request was made (no lost wake-up)
    serial.cancel()
    serial.cancel()
    serial.request(5)
    assert upstream.cancelled == 1  # rule 3.7
    assert upstream.total == 8_000  # rule 3.6


class _Upstream:
    """Records the calls it receives; ``during`` runs inside the first ``request``."""

    def __init__(self) -> None:
        self.calls: list[object] = []
        self.during: Callable[[], None] | None = None

    def request(self, n: int) -> None:
        self.calls.append(n)
        during, self.during = self.during, None
        if during is not None:
            during()

    def cancel(self) -> None:
        self.calls.append("cancel")


def _on_other_thread(call: Callable[[], None]) -> None:
    """Make ``call`` on another thread while this one holds the serial lock; it queues."""
    thread = threading.Thread(target=call)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()


def test_spec207_a_request_queued_while_the_lock_is_held_is_made_after_it() -> None:
    upstream = _Upstream()
    serial = SerialSubscription(upstream)
    upstream.during = lambda: _on_other_thread(lambda: serial.request(2))
    serial.request(1)
    assert upstream.calls == [1, 2]  # rule 2.7: serial, and the queued call is not lost


def test_spec207_a_cancel_queued_while_the_lock_is_held_is_made_once_and_wins() -> None:
    upstream = _Upstream()
    serial = SerialSubscription(upstream)
    upstream.during = lambda: _on_other_thread(serial.cancel)
    serial.request(1)
    assert upstream.calls == [1, "cancel"]
    serial.request(5)  # rule 3.6: a no-op after the cancel
    serial.cancel()  # rule 3.7: idempotent
    assert upstream.calls == [1, "cancel"]


def test_spec207_a_call_queued_just_before_the_release_is_not_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The window between the drainer's last look at the queue and its release: a call
    queued there is made by the drainer's next pass (no lost wake-up)."""
    upstream = _Upstream()
    serial = SerialSubscription(upstream)
    main = threading.current_thread()
    armed: list[bool] = []

    def hook(point: str, _target: object) -> None:
        mine = threading.current_thread() is main and 2 in upstream.calls
        if point == "serial.release" and mine and not armed:
            armed.append(True)
            _on_other_thread(lambda: serial.request(3))

    upstream.during = lambda: _on_other_thread(lambda: serial.request(2))
    monkeypatch.setattr(_serial, "_sched_hook", hook)
    serial.request(1)
    assert armed
    assert upstream.calls == [1, 2, 3]


def test_a_serial_queue_task_handles_at_most_256_messages_by_default() -> None:
    manual = ManualExecutor()
    seen: list[int] = []
    queue: SerialQueue[int] = SerialQueue(manual, seen.append)
    for i in range(257):
        queue.offer(i)
    manual.run_next()  # one task: the default batch, then it re-schedules (fairness)
    assert len(seen) == 256
    assert len(queue) == 1
    manual.run_all()
    assert seen == list(range(257))


def test_spec307_a_second_cancel_while_another_thread_holds_the_lock_stays_a_no_op() -> None:
    """Rule 3.7: once made, a cancel is never queued again, even when the lock is busy;
    a queued second cancel would be made upstream by the next caller."""
    upstream = _Upstream()
    serial = SerialSubscription(upstream)
    serial.cancel()
    serial._busy.acquire()  # this thread holds the lock: another thread's call would queue
    try:
        _on_other_thread(serial.cancel)
    finally:
        serial._busy.release()
    serial.cancel()
    serial.request(1)
    assert upstream.calls == ["cancel"]


def test_spec307_a_cancel_made_by_another_thread_before_this_one_locks_is_not_repeated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between a cancel's first look and its lock, another thread's cancel is made: the
    look under the lock sees it, and upstream is cancelled once (rule 3.7)."""
    upstream = _Upstream()
    serial = SerialSubscription(upstream)
    main = threading.current_thread()
    armed: list[bool] = []

    def hook(point: str, _target: object) -> None:
        if point == "serial.acquire" and threading.current_thread() is main and not armed:
            armed.append(True)
            _on_other_thread(serial.cancel)

    monkeypatch.setattr(_serial, "_sched_hook", hook)
    serial.cancel()
    assert armed
    assert upstream.calls == ["cancel"]
