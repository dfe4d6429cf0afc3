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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import unquote

from reactive_streams.spark.commit_log import (
    BATCH_DIR,
    CommitLog,
    CommitRecord,
    Recovery,
    kept_in_staging,
)
from reactive_streams.spark.connect_fs import ConnectFS
from reactive_streams.spark.hadoop_fs import HadoopFS, java_message, join, table_uri
from reactive_streams.spark.records import RecordConverter
from reactive_streams.spark.session import is_connect

__all__ = [
    "FORMATS",
    "BatchWriter",
    "Payload",
    "SparkBatchWriter",
    "StagedBatch",
    "filesystem",
    "read_committed",
]

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


def filesystem(spark: Any) -> HadoopFS | ConnectFS:
    """The commit log's filesystem: Hadoop's ``FileSystem`` through py4j for a classic
    session, Spark jobs for a Spark Connect session."""
    if is_connect(spark):
        return ConnectFS(spark)
    return HadoopFS(spark)


class SparkBatchWriter:
    """Write each batch with ``createDataFrame(arrow_table).coalesce(1).write`` into its
    batch-id directory; commit through Hadoop's ``FileSystem`` (see ``commit_log``), or,
    on a Spark Connect session, through Spark jobs (see ``connect_fs``): the batch goes
    to the server as Arrow, and nothing uses py4j.

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
        mode: str = "append",
        partition_by: Sequence[str] | None = None,
        tune_session: bool = True,
        takeover: bool = False,
        lease_ttl_s: float = 30.0,
    ) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
        if mode not in ("append", "overwrite"):
            raise ValueError(f"mode must be 'append' or 'overwrite', got {mode!r}")
        if path is None:
            if table is None:
                raise ValueError("give a path, a table name, or both")
            path = join(table_uri(spark.conf.get("spark.sql.warehouse.dir")), table)
        self.spark = spark
        self.format = format
        self.options = dict(options or {})
        if format == "csv":
            self.options.setdefault("header", "true")
        self.table = table
        self.fs = filesystem(spark)
        self.log = CommitLog(self.fs, path, sink_id)
        self._renames = hasattr(self.fs, "rename")  # not over Spark Connect
        # one writer per (path, sink_id): before anything is deleted (issue 26.2)
        self.log.acquire(takeover=takeover, ttl_s=lease_ttl_s)
        try:
            self._setup(spark, schema, columns, mode, partition_by, tune_session)
        except BaseException:
            self.release()  # no writer came of it: no heartbeat may keep the lease live
            raise

    def _setup(
        self,
        spark: Any,
        schema: Any,
        columns: Sequence[str] | None,
        mode: str,
        partition_by: Sequence[str] | None,
        tune_session: bool,
    ) -> None:
        if isinstance(schema, str) and is_connect(spark):
            schema = spark.createDataFrame([], schema).schema  # the server parses the DDL
        # the schema's checks come first: a refused schema deletes nothing
        self.converter = RecordConverter(schema, columns)
        self.partition_by = _partition_columns(partition_by)
        if self.partition_by and self.converter.schema is not None:
            _check_partition_columns(self.partition_by, self.converter.schema)
        if mode == "overwrite":  # a re-run from the start replaces this sink's rows
            self.log.reset()
        self._table_registered = False
        if tune_session:
            # Arrow input goes through the file-backed path: about half the JVM CPU.
            spark.conf.set("spark.sql.execution.arrow.localRelationThreshold", "0")
            spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")

    @property
    def path(self) -> str:
        return self.log.uri

    def recover(self) -> Recovery:
        return self.log.recover()

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        table = self.converter.convert(records, first_offset)
        if self.partition_by:  # an inferred schema is known only now
            _check_partition_columns(self.partition_by, table.schema)
        return Payload(table, table.num_rows, int(table.nbytes))

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch:
        # hidden until its commit renames it (issue 26.4); over Spark Connect, which
        # cannot rename, the data stays there and the records name it there
        staging = self.log.staging_dir_name(batch_id)
        name = self.log.batch_dir_name(batch_id) if self._renames else staging
        target = join(self.path, staging)
        df = self.spark.createDataFrame(payload.data)
        # overwrite: a retry, or a replay after a crash, replaces the batch (idempotent)
        writer = df.coalesce(1).write.mode("overwrite").format(self.format)
        if self.partition_by:  # <batch dir>/<col>=<value>/part-*: one file per value
            writer = writer.partitionBy(*self.partition_by)
        if self.options:
            writer = writer.options(**self.options)
        try:
            writer.save(target)
        except Exception as e:
            raise OSError(f"writing batch {batch_id} to {target}: {java_message(e)}") from e
        entries = self.fs.files(target)
        parts = [e for e in entries if e.name.rsplit("/", 1)[-1].startswith("part-")]
        if not parts:
            seen = sorted(e.name for e in entries) or "nothing"
            raise OSError(
                f"batch {batch_id}: Spark reported success but {target} holds no data file "
                f"(found: {seen})"
            )
        files = tuple((e.name, f"{name}/{e.name}") for e in parts)
        return StagedBatch(staging, files, sum(e.size for e in parts))

    def commit(self, record: CommitRecord) -> None:
        self.log.commit(record)

    def publish(self, record: CommitRecord) -> None:
        self.log.publish(record)  # staging -> rs_batch=<sink>-<b>: now plain readers see it
        if self.table is None or not record.files:
            return
        try:  # the catalog shows each batch as it commits (issue 26.4)
            if not self._table_registered:
                self._register_table()
            if kept_in_staging(record):  # Spark Connect: the partitions are in staging
                for spec, where in _staged_partitions(record, self.partition_by):
                    self.spark.sql(
                        f"ALTER TABLE {self.table} ADD IF NOT EXISTS PARTITION ({spec}) "
                        f"LOCATION '{_quote(join(self.path, where))}'"
                    )
            elif self.partition_by:  # nested value directories: let Spark find them
                self.spark.sql(f"ALTER TABLE {self.table} RECOVER PARTITIONS")
            else:  # one partition, named by the sink (a safe path component)
                value = self.log.batch_dir_name(record.batch_id)[len(BATCH_DIR) :]
                self.spark.sql(
                    f"ALTER TABLE {self.table} ADD IF NOT EXISTS PARTITION (rs_batch='{value}')"
                )
            self.spark.catalog.refreshTable(self.table)
        except Exception as e:
            raise OSError(
                f"registering batch {record.batch_id} in table {self.table} at {self.path}: "
                f"{java_message(e)}"
            ) from e

    def _register_table(self) -> None:
        assert self.table is not None
        location = self.path.replace("'", "\\'")
        opts = ""
        if self.options:
            opts = " OPTIONS (" + ", ".join(f"'{k}' '{v}'" for k, v in self.options.items()) + ")"
        from pyspark.sql.pandas.types import from_arrow_schema

        fields = from_arrow_schema(self.converter.schema).fields
        data = [f for f in fields if f.name not in self.partition_by]
        parted = [f for n in self.partition_by for f in fields if f.name == n]
        columns = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in data)
        keys = ", ".join(
            ["rs_batch STRING"] + [f"`{f.name}` {f.dataType.simpleString()}" for f in parted]
        )
        names = ", ".join(["rs_batch"] + [f"`{f.name}`" for f in parted])
        self.spark.sql(
            f"CREATE TABLE IF NOT EXISTS {self.table} ({columns}, {keys}) "
            f"USING {self.format}{opts} PARTITIONED BY ({names}) LOCATION '{location}'"
        )
        # a table an earlier run registered lacks the columns schema_evolution added
        known = {c.lower() for c in self.spark.table(self.table).columns}
        added = [f for f in data if f.name.lower() not in known]
        if added:
            new = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in added)
            self.spark.sql(f"ALTER TABLE {self.table} ADD COLUMNS ({new})")
        self._table_registered = True

    def release(self) -> None:
        """Give up the sink id's lease (the sink ended, whatever the outcome)."""
        self.log.release()

    def finish(self) -> None:
        if self.table is not None and self._table_registered:
            try:
                self.spark.sql(f"ALTER TABLE {self.table} RECOVER PARTITIONS")  # new batches
                self.spark.catalog.refreshTable(self.table)
            except Exception as e:
                raise OSError(
                    f"refreshing table {self.table} at {self.path}: {java_message(e)}"
                ) from e


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _staged_partitions(record: CommitRecord, columns: Sequence[str]) -> list[tuple[str, str]]:
    """(partition spec, directory relative to the table) of each partition directory
    of a batch kept in staging: ``rs_batch`` plus the ``partition_by`` values."""
    value = f"{record.sink_id}-{record.batch_id:012d}"
    out: dict[str, str] = {}
    for _, final in record.files:
        where = final.rsplit("/", 1)[0]
        keys = [f"rs_batch='{value}'"]
        for seg in where[len(record.staging) + 1 :].split("/") if columns else []:
            col, _, raw = seg.partition("=")
            keys.append(f"`{col}`='{_quote(unquote(raw))}'")
        out[where] = ", ".join(keys)
    return [(spec, where) for where, spec in sorted(out.items())]


def _partition_columns(partition_by: Sequence[str] | None) -> tuple[str, ...]:
    if partition_by is None:
        return ()
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    cols = tuple(partition_by)
    if not all(isinstance(c, str) and c for c in cols) or len(set(cols)) != len(cols):
        raise ValueError(f"partition_by must name distinct columns, got {partition_by!r}")
    if "rs_batch" in cols:
        raise ValueError("partition_by: 'rs_batch' is the sink's own partition column")
    return cols


def _check_partition_columns(cols: Sequence[str], schema: Any) -> None:
    names = list(schema.names)
    missing = [c for c in cols if c not in names]
    if missing:
        raise ValueError(f"partition_by names {missing}, which the schema {names} lacks")
    if len(cols) >= len(names):
        raise ValueError(f"partition_by {list(cols)} leaves no data column of {names}")


def read_committed(
    spark: Any,
    path: str,
    *,
    sink_id: str = "default",
    format: str = "parquet",
    options: Mapping[str, str] | None = None,
) -> Any:
    """A DataFrame over the committed, published files of ``sink_id`` under ``path``
    (never a batch that is being written, was abandoned by a crash, or is committed
    and not yet renamed into place), with the table's merged schema once
    ``schema_evolution="add_columns"`` added columns (older rows read null there)."""
    fs = filesystem(spark)
    log = CommitLog(fs, path, sink_id)
    files = log.committed_files()
    reader = spark.read.format(format)
    opts = dict(options or {})
    if format == "csv":
        opts.setdefault("header", "true")
    if format in ("parquet", "orc") and _evolved(fs, log.uri):
        opts.setdefault("mergeSchema", "true")  # else the schema comes from one file
    if opts:
        reader = reader.options(**opts)
    if not files:
        raise FileNotFoundError(f"{log.uri}: sink {sink_id!r} has committed no data file")
    staged = [f for f in files if f[len(log.uri) + 1 :].startswith("_rs_sink/")]
    placed = [f for f in files if not f[len(log.uri) + 1 :].startswith("_rs_sink/")]
    # one load per layout (batch directories; staging kept over Spark Connect): Spark
    # refuses to discover partitions over both at once (CONFLICTING_DIRECTORY_STRUCTURES)
    frames = [_load(reader, log.uri, group) for group in (placed, staged) if group]
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other, allowMissingColumns=True)
    return df


def _load(reader: Any, base: str, files: list[str]) -> Any:
    """One layout's files; partition columns (``partition_by``) discovered from the
    paths below the batch directory."""
    if any(f[len(base) + 1 :].count("/") > 1 for f in files):
        return reader.option("basePath", base).load(files).drop("rs_batch")
    return reader.load(files)


def _evolved(fs: Any, path: str) -> bool:
    """Whether the table's stored schema has more than its first version."""
    from reactive_streams.spark.table_schema import SchemaStore

    try:
        found = SchemaStore(fs, path).current()
    except (OSError, RuntimeError, ValueError):
        return False
    return found is not None and found[0] > 0
