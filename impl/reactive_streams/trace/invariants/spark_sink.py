"""Python twins of ``spec/SparkSink.tla``'s invariants (the sink's commit protocol).

Each takes what ``stateful/test_spark_sink_machine.py`` reads off the in-memory storage
and the sink (the reader's view, the committed position, buffer and demand) and returns
True when it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "NO_TWIN",
    "TWINS",
    "sink_buffer_bound_inv",
    "sink_durable_before_ack_inv",
    "sink_no_duplicate_inv",
    "sink_no_loss_inv",
    "sink_resume_matches_view_inv",
]


def sink_no_duplicate_inv(visible: Sequence[object]) -> bool:
    """No record is ever visible twice."""
    return len(visible) == len(set(visible))


def sink_no_loss_inv(done: bool, view: Sequence[object], kept: Sequence[object]) -> bool:
    """When the stream is done, every kept record is visible, and nothing else."""
    return not done or list(view) == list(kept)


def sink_buffer_bound_inv(buffered: int, demand: int, capacity: int) -> bool:
    """Demand is the free buffer: buffered + outstanding <= capacity."""
    return buffered + demand <= capacity


def sink_durable_before_ack_inv(acked: int, committed: int, capacity: int) -> bool:
    """What the upstream was told is safe (acknowledged, so demand handed out again) runs
    at most one buffer ahead of the durable commit."""
    return acked - committed <= capacity


def sink_resume_matches_view_inv(view: Sequence[object], upto: Sequence[object]) -> bool:
    """The committed position says exactly which kept records are visible (``upto``):
    a replay from it neither repeats nor skips one."""
    return list(view) == list(upto)


TWINS: dict[str, Callable[..., bool]] = {
    "SinkNoDuplicateInv": sink_no_duplicate_inv,
    "SinkNoLossInv": sink_no_loss_inv,
    "SinkBufferBoundInv": sink_buffer_bound_inv,
    "SinkDurableBeforeAckInv": sink_durable_before_ack_inv,
    "SinkResumeMatchesViewInv": sink_resume_matches_view_inv,
}

NO_TWIN: dict[str, str] = {
    "SinkFinishesProp": "liveness under the writer's fairness; the Spark sink machine "
    "completes every drawn run at teardown and checks the table then",
    "SinkCommitImpliesDataInv": "the machine reads the reader's view, not each commit "
    "record's file names; a record naming missing data shows there as a view short of "
    "the committed position (sink_resume_matches_view_inv)",
    "SinkByteBudgetInv": "the model's request counts (held + demand x estimate) are the "
    "sink's private state; ByteBudgetSinkMachine.sink_byte_bound checks what they bound, "
    "the held bytes, against the same budget",
    "SinkBatchBytesInv": "ByteBudgetSinkMachine.sink_batch_within_budget checks it on "
    "every committed record's bytes",
    "SinkReadPrefixInv": "the in-memory writer of the machines has no staging directory "
    "beside published ones; tests/spark/test_commit_log_units.py and test_readers.py "
    "read a committed, not yet renamed batch and check read_committed neither fails nor mixes",
}
