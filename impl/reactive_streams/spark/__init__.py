"""Spark integration: :class:`SparkSink`, :class:`SparkSource`, :func:`local_session`.

pyspark and pyarrow are imported lazily: importing this package (or
``reactive_streams``) never starts or imports Spark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reactive_streams.spark.commit_log import CommitLog, CommitRecord, Recovery
    from reactive_streams.spark.memory import MemoryBatchWriter, MemoryStorage, SimulatedCrash
    from reactive_streams.spark.positions import (
        SKIP,
        Positioned,
        ReplayableSource,
        expand,
        keep_if,
        map_value,
    )
    from reactive_streams.spark.progress import SinkMetrics
    from reactive_streams.spark.records import RecordConverter, SchemaError
    from reactive_streams.spark.replay import (
        FileSource,
        MemoryLog,
        PartitionedLog,
        PartitionedLogSource,
    )
    from reactive_streams.spark.session import java_available, local_session
    from reactive_streams.spark.sink import SinkResult, SparkSink, SparkSinkError
    from reactive_streams.spark.source import SparkSource, SparkSourceError
    from reactive_streams.spark.writer import BatchWriter, SparkBatchWriter, read_committed

_EXPORTS = {
    "CommitLog": "commit_log",
    "CommitRecord": "commit_log",
    "Recovery": "commit_log",
    "MemoryBatchWriter": "memory",
    "MemoryStorage": "memory",
    "SimulatedCrash": "memory",
    "SKIP": "positions",
    "Positioned": "positions",
    "ReplayableSource": "positions",
    "expand": "positions",
    "keep_if": "positions",
    "map_value": "positions",
    "FileSource": "replay",
    "MemoryLog": "replay",
    "PartitionedLog": "replay",
    "PartitionedLogSource": "replay",
    "SinkMetrics": "progress",
    "RecordConverter": "records",
    "SchemaError": "records",
    "java_available": "session",
    "local_session": "session",
    "SinkResult": "sink",
    "SparkSink": "sink",
    "SparkSinkError": "sink",
    "SparkSource": "source",
    "SparkSourceError": "source",
    "BatchWriter": "writer",
    "SparkBatchWriter": "writer",
    "read_committed": "writer",
}

__all__ = [
    "SKIP",
    "BatchWriter",
    "CommitLog",
    "CommitRecord",
    "FileSource",
    "MemoryBatchWriter",
    "MemoryLog",
    "MemoryStorage",
    "PartitionedLog",
    "PartitionedLogSource",
    "Positioned",
    "RecordConverter",
    "Recovery",
    "ReplayableSource",
    "SchemaError",
    "SimulatedCrash",
    "SinkMetrics",
    "SinkResult",
    "SparkBatchWriter",
    "SparkSink",
    "SparkSinkError",
    "SparkSource",
    "SparkSourceError",
    "expand",
    "java_available",
    "keep_if",
    "local_session",
    "map_value",
    "read_committed",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reactive_streams.spark' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"reactive_streams.spark.{module}"), name)
