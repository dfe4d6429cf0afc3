"""The storage steps of the sink, behind one small interface.

:class:`BatchWriter` is what :class:`~reactive_streams.spark.sink.SparkSink`
drives: ``convert`` (records to a payload), ``stage`` (durable data in a staging
place), ``commit`` (the atomic commit record), ``publish`` (make the files
visible), and ``recover`` at start. :class:`SparkBatchWriter` does it with Spark
and a :class:`~reactive_streams.spark.commit_log.CommitLog`; the in-memory double
in :mod:`reactive_streams.spark.memory` lets tests fail or crash at any step.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from reactive_streams.spark.commit_log import CommitLog, CommitRecord, Recovery
from reactive_streams.spark.records import RecordConverter

log = logging.getLogger(__name__)

FORMATS = ("parquet", "csv", "json", "orc")


@dataclass(frozen=True)
class Payload:
    """A converted batch: whatever ``stage`` needs, its row count and size in bytes."""

    data: Any
    rows: int
    nbytes: int


@dataclass(frozen=True)
class StagedBatch:
    """Where one attempt's files landed: (staged name, final name) pairs."""

    staging: str
    files: tuple[tuple[str, str], ...]
    nbytes: int


class BatchWriter(Protocol):
    """The injectable storage of a sink. Every method may raise; the sink retries
    ``stage``, ``commit`` and ``publish`` (all idempotent) and never ``convert``."""

    def recover(self) -> Recovery: ...

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload: ...

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch: ...

    def commit(self, record: CommitRecord) -> None: ...

    def publish(self, record: CommitRecord) -> None: ...

    def finish(self) -> None:
        """Called once after the last batch (e.g. refresh a catalog table)."""
        ...


def _local_path(path: str) -> str:
    if path.startswith("file://"):
        return path[len("file://") :]
    if path.startswith("file:"):
        return path[len("file:") :]
    if "://" in path:
        raise ValueError(
            f"{path!r}: the commit log needs a local or mounted POSIX path "
            "(HDFS/object stores are not supported yet)"
        )
    return path


class SparkBatchWriter:
    """Stage each batch with ``createDataFrame(arrow_table).coalesce(1).write``.

    ``table`` (optional) registers ``path`` as an external catalog table after
    the first commit and refreshes it when the stream ends; without ``path`` the
    table lives under ``spark.sql.warehouse.dir``.
    """

    def __init__(
        self,
        spark: Any,
        path: str | None,
        sink_id: str,
        *,
        format: str = "parquet",
        schema: Any = None,
        columns: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
        table: str | None = None,
        tune_session: bool = True,
    ) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
        if path is None:
            if table is None:
                raise ValueError("give a path, a table name, or both")
            warehouse = spark.conf.get("spark.sql.warehouse.dir")
            path = os.path.join(_local_path(warehouse), table)
        self.spark = spark
        self.format = format
        self.options = dict(options or {})
        if format == "csv":
            self.options.setdefault("header", "true")
        self.table = table
        self.log = CommitLog(_local_path(path), sink_id)
        self.converter = RecordConverter(schema, columns)
        self._table_registered = False
        if tune_session:
            # Arrow input goes through the file-backed path: about half the JVM CPU.
            spark.conf.set("spark.sql.execution.arrow.localRelationThreshold", "0")
            spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")

    @property
    def path(self) -> str:
        return self.log.path

    def recover(self) -> Recovery:
        return self.log.recover()

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        table = self.converter.convert(records, first_offset)
        return Payload(table, table.num_rows, int(table.nbytes))

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch:
        staging = self.log.staging_dir(batch_id, attempt)
        df = self.spark.createDataFrame(payload.data)
        writer = df.coalesce(1).write.mode("overwrite").format(self.format)
        if self.options:
            writer = writer.options(**self.options)
        writer.save(staging)
        names = sorted(n for n in os.listdir(staging) if n.startswith("part-"))
        if not names:
            raise RuntimeError(f"batch {batch_id}: Spark wrote no data file into {staging}")
        files = tuple((n, self.log.final_name(batch_id, k, n)) for k, n in enumerate(names))
        size = sum(os.path.getsize(os.path.join(staging, n)) for n in names)
        return StagedBatch(staging, files, size)

    def commit(self, record: CommitRecord) -> None:
        self.log.commit(record)

    def publish(self, record: CommitRecord) -> None:
        self.log.publish(record)
        if self.table is not None and not self._table_registered:
            self._register_table()

    def _register_table(self) -> None:
        assert self.table is not None
        location = self.path.replace("'", "\\'")
        opts = ""
        if self.options:
            opts = " OPTIONS (" + ", ".join(f"'{k}' '{v}'" for k, v in self.options.items()) + ")"
        self.spark.sql(
            f"CREATE TABLE IF NOT EXISTS {self.table} USING {self.format}{opts} "
            f"LOCATION '{location}'"
        )
        self._table_registered = True

    def finish(self) -> None:
        if self.table is not None and self._table_registered:
            self.spark.catalog.refreshTable(self.table)
