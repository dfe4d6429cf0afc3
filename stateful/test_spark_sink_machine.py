"""State machine for SparkSink's commit protocol, without Spark.

Hypothesis drives a real :class:`SparkSink` whose storage is the in-memory
:class:`MemoryBatchWriter` (faults: fail, crash before/after convert, stage,
commit or publish) and whose two lanes run on a manual task list (Hypothesis
picks which task runs next, so every interleaving of convert and write is
reachable). A crash abandons the sink and its tasks; the durable storage
survives, and a new sink with the same id resumes a replayable source at
``resume_offset``. The invariants apply the Python twins of ``spec/SparkSink.tla``
(``reactive_streams.trace.invariants.spark_sink``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import (
    FAULTS,
    STEPS,
    MemoryBatchWriter,
    MemoryStorage,
    SimulatedCrash,
)
from reactive_streams.spark.positions import SKIP, Positioned
from reactive_streams.spark.sink import SparkSink, SparkSinkError
from reactive_streams.spark.writer import Payload
from reactive_streams.trace.invariants import spark_sink as twin

N = 12
BATCH = 2
SINK = "m"


class ReplaySource:
    """A replayable upstream: records ``(offset, payload)`` from ``start`` to N, on demand."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.next = start
        self.requested = 0
        self.delivered = 0
        self.cancelled = False
        self.completed = False
        self.subscriber: Subscriber[Any] | None = None

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)

    def request(self, n: int) -> None:
        assert n > 0, f"rule 3.9: request({n})"
        self.requested += n

    def cancel(self) -> None:
        self.cancelled = True

    @property
    def live(self) -> bool:
        """May still signal: not cancelled (rule 3.6) and not completed (rule 1.7)."""
        return not self.cancelled and not self.completed

    @property
    def demand(self) -> int:
        return self.requested - self.delivered

    def deliver(self, k: int) -> None:
        assert self.subscriber is not None
        for _ in range(k):
            if self.cancelled or self.demand <= 0 or self.next >= N:
                return
            offset = self.next
            self.next += 1
            self.delivered += 1  # rule 1.1: never more than requested
            self.subscriber.on_next(self.record(offset))

    def record(self, offset: int) -> Any:
        return (offset, f"v{offset}")


class SparkSinkMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.storage = MemoryStorage()
        self.restarts = 0
        self._start()

    def _writer(self) -> MemoryBatchWriter:
        return MemoryBatchWriter(self.storage, SINK)

    def _budget(self) -> tuple[int, int]:
        """``batch_rows`` and ``batch_bytes``."""
        return BATCH, 64 * 1024 * 1024

    def _start(self) -> None:
        self.tasks = ManualExecutor()
        self.writer = self._writer()
        self.sink = SparkSink(
            writer=self.writer,
            sink_id=SINK,
            batch_rows=self._budget()[0],
            batch_bytes=self._budget()[1],
            max_attempts=2,
            executor=self.tasks,
            max_latency=None,
            progress=False,
            sleep=lambda _s: None,
        )
        assert self.sink.resume_offset == self.storage.committed_offset(SINK)
        self.source = self._source()
        self.source.subscribe(self.sink)

    def _source(self) -> ReplaySource:
        return ReplaySource(self.sink.resume_offset)

    def _crash_and_restart(self) -> None:
        self.restarts += 1
        self._start()

    @property
    def finished_ok(self) -> bool:
        c = self.sink.completion
        return c.done() and c.exception() is None and c.result().status == "completed"

    # ------------------------------------------------------------------ rules
    @precondition(lambda self: not self.sink.completion.done())
    @rule(k=st.integers(1, 5))
    def deliver(self, k: int) -> None:
        self.source.deliver(k)

    @precondition(lambda self: not self.sink.completion.done())
    @rule()
    def deliver_bad_record(self) -> None:
        if self.source.live and self.source.demand > 0:
            self.source.delivered += 1
            self.sink.on_next(("not-an-offset", None))

    @precondition(
        lambda self: (
            self.source.next >= N and not self.source.completed and not self.source.cancelled
        )
    )
    @rule()
    def complete(self) -> None:
        self.source.completed = True
        self.sink.on_complete()

    @precondition(lambda self: len(self.tasks) > 0)
    @rule(i=st.integers(0, 3))
    def run_task(self, i: int) -> None:
        try:
            self.tasks.run(i % len(self.tasks))
        except SimulatedCrash:
            self._crash_and_restart()

    @precondition(lambda self: len(self.writer.faults) < 3)
    @rule(step=st.sampled_from(STEPS), kind=st.sampled_from(FAULTS))
    def inject(self, step: str, kind: str) -> None:
        self.writer.inject(step, kind)

    @precondition(lambda self: not self.finished_ok and self.restarts < 6)
    @rule()
    def crash(self) -> None:
        self._crash_and_restart()

    @precondition(lambda self: not self.sink.completion.done())
    @rule()
    def cancel(self) -> None:
        self.sink.cancel()
        # the upstream is cancelled at once, unless it has completed (rule 2.4)
        assert self.source.cancelled or self.source.completed

    @precondition(lambda self: self.sink.completion.done())
    @rule()
    def restart_after_stop(self) -> None:
        """A new run after any end: a failure or a cancel resumes, a completed run
        replays nothing and completes again (so a finished machine can still move)."""
        err = self.sink.completion.exception()
        if err is not None:
            assert isinstance(err, SparkSinkError)
            committed = self.storage.committed(SINK)
            # the error names the last committed batch and offset
            assert err.last_committed_batch_id == (committed[-1].batch_id if committed else -1)
            assert err.committed_offset == self.storage.committed_offset(SINK)
            # a failed sink cancels its upstream (unless the upstream had already completed)
            assert self.source.cancelled or self.source.completed
        self._crash_and_restart()

    # ------------------------------------------------------------- invariants
    @invariant()
    def sink_no_duplicate(self) -> None:
        view = [r[0] for r in self.storage.reader_view(SINK)]
        assert twin.sink_no_duplicate_inv(view), view
        visible = [r[0] for r in self.storage.visible_now()]
        assert twin.sink_no_duplicate_inv(visible), visible

    @invariant()
    def sink_resume_matches_view(self) -> None:
        view = [r[0] for r in self.storage.reader_view(SINK)]
        upto = list(range(self.storage.committed_offset(SINK)))
        assert twin.sink_resume_matches_view_inv(view, upto), view

    @invariant()
    def sink_buffer_bound(self) -> None:
        if not self.source.cancelled and not self.sink.completion.done():
            assert self.sink.outstanding == self.source.demand
            assert twin.sink_buffer_bound_inv(
                self.sink.buffered, self.source.demand, self.sink.capacity
            )

    @invariant()
    def sink_durable_before_ack(self) -> None:
        # demand is only handed out for buffer freed by a durable commit
        acked_upto = self.source.start + self.source.requested
        committed = self.storage.committed_offset(SINK)
        assert twin.sink_durable_before_ack_inv(acked_upto, committed, self.sink.capacity)

    @invariant()
    def sink_no_loss(self) -> None:
        view = [r[0] for r in self.storage.reader_view(SINK)] if self.finished_ok else []
        assert twin.sink_no_loss_inv(self.finished_ok, view, list(range(N))), view
        if self.finished_ok:
            assert self.sink.result().metrics.committed_offset == N

    def teardown(self) -> None:
        """Without further faults every run reaches the complete, exact table."""
        self.writer.faults.clear()
        for _ in range(500):
            if self.finished_ok:
                break
            if self.sink.completion.done():
                self._crash_and_restart()
                self.writer.faults.clear()
            elif len(self.tasks):
                try:
                    self.tasks.run(0)
                except SimulatedCrash:  # pragma: no cover - faults were cleared
                    raise AssertionError("crash without an injected fault") from None
            elif self.source.next < N and self.source.demand > 0:
                self.source.deliver(N)
            elif self.source.next >= N and not self.source.completed:
                self.source.completed = True
                self.sink.on_complete()
            else:
                raise AssertionError(
                    f"stuck: buffered={self.sink.buffered} demand={self.source.demand} "
                    f"next={self.source.next}"
                )
        assert self.finished_ok
        self.sink_no_loss()


def kept(offset: int) -> bool:
    """The pipeline's filter: offsets 1, 4, 7, ... are filtered out."""
    return offset % 3 != 1


class PositionedSource(ReplaySource):
    """A replayable source of ``Positioned(offset + 1, record)`` behind a filter that
    changes the record count: a rejected record is dropped (``Flow.filter``) when
    ``offset % 6 == 1`` and becomes a skip (``keep_if``) when ``offset % 6 == 4``."""

    def deliver(self, k: int) -> None:
        assert self.subscriber is not None
        for _ in range(k):
            while self.next < N and self.next % 6 == 1:
                self.next += 1  # Flow.filter drops it and asks its upstream for another
            if self.cancelled or self.demand <= 0 or self.next >= N:
                return
            offset = self.next
            self.next += 1
            self.delivered += 1
            value = (offset, f"v{offset}") if kept(offset) else SKIP
            self.subscriber.on_next(Positioned(offset + 1, value))


class PositionedSinkMachine(SparkSinkMachine):
    """The same machine with source positions and a filter in the pipeline (the
    record count changes): the sink commits positions, a restart replays from
    ``resume_position``, and the table holds every kept record exactly once."""

    def _source(self) -> ReplaySource:
        position = self.sink.resume_position
        assert position == self._committed_position()
        return PositionedSource(0 if position is None else position)

    def _committed_position(self) -> int | None:
        committed = self.storage.committed(SINK)
        return committed[-1].position if committed else None

    @precondition(lambda self: not self.sink.completion.done())
    @rule()
    def deliver_bad_record(self) -> None:
        if self.source.live and self.source.demand > 0:
            self.source.delivered += 1
            self.sink.on_next(Positioned(self.source.next, ("not-an-offset", None)))

    @invariant()
    def sink_resume_matches_view(self) -> None:
        view = [r[0] for r in self.storage.reader_view(SINK)]
        upto = self._committed_position() or 0
        assert twin.sink_resume_matches_view_inv(view, [o for o in range(upto) if kept(o)]), (
            view,
            upto,
        )

    @invariant()
    def sink_durable_before_ack(self) -> None:
        # the source never runs more than a buffer ahead of the committed position
        delivered_upto = self.source.start + self.source.delivered
        committed = self._committed_position() or 0
        assert twin.sink_durable_before_ack_inv(delivered_upto, committed, 2 * self.sink.capacity)

    @invariant()
    def sink_no_loss(self) -> None:
        view = [r[0] for r in self.storage.reader_view(SINK)] if self.finished_ok else []
        assert twin.sink_no_loss_inv(self.finished_ok, view, [o for o in range(N) if kept(o)]), view
        if self.finished_ok:
            assert self._committed_position() == N


LO, HI = 20, 90  # payload lengths of the byte budget machine's records
BYTES = 160  # its batch_bytes: two to six records a batch


def row_bytes(offset: int, length: int) -> int:
    """The sink's estimate of ``(offset, "x" * length)``: the tuple, the int, the string."""
    return 4 + 8 + length + 4


class SizedWriter(MemoryBatchWriter):
    """Reports each batch's bytes as the sum of its rows' estimates (scale 1)."""

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        payload = super().convert(records, first_offset)
        nbytes = sum(row_bytes(r[0], len(r[1])) for r in records)
        return Payload(payload.data, payload.rows, nbytes)


class SizedSource(ReplaySource):
    """Records whose payload length is drawn per offset (the same on every replay)."""

    def __init__(self, start: int, lengths: list[int]) -> None:
        super().__init__(start)
        self.lengths = lengths

    def record(self, offset: int) -> Any:
        return (offset, "x" * self.lengths[offset])


class ByteBudgetSinkMachine(SparkSinkMachine):
    """Rows of drawn sizes (LO..HI) against a byte budget that binds before the record
    budget, and a slow writer (the greedy ``deliver_all`` runs the source ahead of every
    write): the bytes held never pass ``2 * batch_bytes`` by more than the demand
    granted before a larger record came (each at most HI - LO over the estimate), and
    no batch passes ``batch_bytes``."""

    def __init__(self) -> None:
        self.lengths = [LO] * N  # drawn by draw_sizes before any delivery
        super().__init__()

    def _writer(self) -> MemoryBatchWriter:
        return SizedWriter(self.storage, SINK)

    def _budget(self) -> tuple[int, int]:
        return N, BYTES  # a capacity of 2N records: the bytes bind first

    def _source(self) -> ReplaySource:
        return SizedSource(self.sink.resume_offset, self.lengths)

    @initialize(lengths=st.lists(st.integers(LO, HI), min_size=N, max_size=N))
    def draw_sizes(self, lengths: list[int]) -> None:
        self.lengths[:] = lengths  # the source holds this list: it reads it at delivery

    @precondition(lambda self: not self.sink.completion.done())
    @rule()
    def deliver_bad_record(self) -> None:
        if self.source.live and self.source.demand > 0:  # no smaller than a row (LO)
            self.source.delivered += 1
            self.sink.on_next(("not-an-offset", "x" * LO))

    @precondition(lambda self: not self.sink.completion.done())
    @rule()
    def deliver_all(self) -> None:
        self.source.deliver(N)  # a fast source: everything it may send, before any write

    @invariant()
    def sink_byte_bound(self) -> None:
        if not self.source.live or self.sink.completion.done():
            return  # a failed sink drops what it held (and cancels a live source)
        committed = max(self.storage.committed_offset(SINK), self.source.start)
        held = sum(row_bytes(o, self.lengths[o]) for o in range(committed, self.source.next))
        smallest = row_bytes(0, LO)
        # demand is granted while held + outstanding * estimate <= 2 * BYTES, and the
        # estimate is at least the smallest row: at most 2 * BYTES // smallest records
        # are granted at once, each at most HI - LO larger than the estimate
        bound = max(row_bytes(0, HI), 2 * BYTES + (2 * BYTES // smallest) * (HI - LO))
        assert held <= bound, (held, bound)
        assert self.sink.held_bytes >= held  # its count has them all (and a bad record)

    @invariant()
    def sink_batch_within_budget(self) -> None:
        for rec in self.storage.committed(SINK):
            assert rec.bytes <= BYTES or rec.rows == 1, (rec.bytes, rec.rows)


for machine, examples in (
    (SparkSinkMachine, 300),
    (PositionedSinkMachine, 300),
    (ByteBudgetSinkMachine, 150),
):
    machine.TestCase.settings = settings(
        max_examples=examples,
        stateful_step_count=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
test_spark_sink_machine = pytest.mark.timeout(300)(SparkSinkMachine.TestCase)
test_positioned_sink_machine = pytest.mark.timeout(300)(PositionedSinkMachine.TestCase)
test_byte_budget_sink_machine = pytest.mark.timeout(300)(ByteBudgetSinkMachine.TestCase)
