"""A publish (the rename after the commit) that fails on the last batch ends the
stream with an error; it must not leave the result pending for ever."""

from __future__ import annotations

import pytest

from reactive_streams.executors import ManualExecutor
from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage
from reactive_streams.spark.sink import SparkSink, SparkSinkError

from .test_sink_unit import FakeSubscription


def test_a_failed_publish_of_the_last_batch_fails_the_result() -> None:
    ex = ManualExecutor()
    writer = MemoryBatchWriter(MemoryStorage(), "p")
    writer.inject("publish", "fail")
    sink = SparkSink(
        writer=writer,
        sink_id="p",
        batch_rows=10,
        max_latency=None,
        max_attempts=1,
        executor=ex,
        progress=False,
    )
    sink.on_subscribe(FakeSubscription())
    for i in range(3):
        sink.on_next((i, "x"))
    sink.on_complete()  # the upstream is done before the only batch is published
    ex.run_all()
    assert sink.completion.done(), "the result never resolved"
    with pytest.raises(SparkSinkError, match=r"publish of batch 0 failed") as failed:
        sink.result(0)
    assert failed.value.committed_offset == 3  # committed: a restart rolls it forward
