"""An in-memory :class:`~reactive_streams.spark.writer.BatchWriter` with fault injection.

:class:`MemoryStorage` plays the durable disk (it survives a simulated crash);
:class:`MemoryBatchWriter` follows the same stage / commit / publish / recover
protocol as the Spark writer. Faults are queued per step: ``"fail"`` raises an
``OSError`` (retried by the sink), ``"crash_before"`` / ``"crash_after"`` raise
:class:`SimulatedCrash` (a ``BaseException``, so nothing in the sink catches it)
before or after the step's durable effect. Needs neither Spark nor pyarrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reactive_streams.spark.commit_log import CommitRecord, Recovery, check_sink_id
from reactive_streams.spark.writer import Payload, StagedBatch

__all__ = ["FAULTS", "STEPS", "MemoryBatchWriter", "MemoryStorage", "SimulatedCrash"]

STEPS = ("convert", "stage", "commit", "publish")
FAULTS = ("fail", "crash_before", "crash_after")


class SimulatedCrash(BaseException):
    """The process 'dies' here: the sink object is abandoned, the storage survives."""


@dataclass
class MemoryStorage:
    """Durable state shared by every incarnation of a sink: files and commit records."""

    staging: dict[str, list[Any]] = field(default_factory=dict)
    files: dict[str, list[Any]] = field(default_factory=dict)
    commits: dict[str, dict[int, CommitRecord]] = field(default_factory=dict)

    def committed(self, sink_id: str) -> list[CommitRecord]:
        log = self.commits.get(sink_id, {})
        return [log[b] for b in sorted(log)]

    def committed_offset(self, sink_id: str) -> int:
        recs = self.committed(sink_id)
        return recs[-1].offset_after if recs else 0

    def reader_view(self, sink_id: str) -> list[Any]:
        """Records a reader sees once recovery has rolled committed batches forward."""
        out: list[Any] = []
        for rec in self.committed(sink_id):
            for staged, final in rec.files:
                if final in self.files:
                    out.extend(self.files[final])
                else:
                    out.extend(self.staging[f"{rec.staging}/{staged}"])
        return out

    def visible_now(self) -> list[Any]:
        """Records in published files right now (no log filtering)."""
        return [r for name in sorted(self.files) for r in self.files[name]]


class MemoryBatchWriter:
    """The sink's storage protocol on a :class:`MemoryStorage`, with injectable faults."""

    def __init__(self, storage: MemoryStorage, sink_id: str) -> None:
        self.storage = storage
        self.sink_id = check_sink_id(sink_id)
        self.faults: list[tuple[str, str]] = []
        self.calls: list[tuple[str, int]] = []

    def inject(self, step: str, kind: str) -> None:
        if step not in STEPS or kind not in FAULTS:
            raise ValueError(f"unknown fault {step}/{kind}")
        self.faults.append((step, kind))

    def _fault(self, step: str, before: bool) -> None:
        for i, (s, kind) in enumerate(self.faults):
            if s != step:
                continue
            if before and kind == "fail":
                del self.faults[i]
                raise OSError(f"injected failure at {step}")
            if before and kind == "crash_before":
                del self.faults[i]
                raise SimulatedCrash(f"crash before {step}")
            if not before and kind == "crash_after":
                del self.faults[i]
                raise SimulatedCrash(f"crash after {step}")
            return

    def recover(self) -> Recovery:
        committed = self.storage.committed(self.sink_id)
        for i, rec in enumerate(committed):
            if rec.batch_id != i or (i and rec.offset_before != committed[i - 1].offset_after):
                raise RuntimeError(f"commit log of {self.sink_id} is not contiguous at {i}")
        rolled = []
        for rec in committed:
            if any(final not in self.storage.files for _, final in rec.files):
                self.publish(rec)
                rolled.append(rec.batch_id)
        prefix = f"{self.sink_id}/"
        removed = sorted(k for k in self.storage.staging if k.startswith(prefix))
        for k in removed:
            del self.storage.staging[k]
        return Recovery(tuple(committed), tuple(removed), tuple(rolled))

    def convert(self, records: Sequence[Any], first_offset: int) -> Payload:
        self.calls.append(("convert", first_offset))
        self._fault("convert", True)
        for i, rec in enumerate(records):
            if not isinstance(rec, tuple) or len(rec) != 2 or not isinstance(rec[0], int):
                from reactive_streams.spark.records import SchemaError

                raise SchemaError(
                    f"field 'id': record {first_offset + i} is {rec!r}", "id", first_offset + i
                )
        payload = Payload(list(records), len(records), 16 * len(records))
        self._fault("convert", False)
        return payload

    def stage(self, batch_id: int, attempt: int, payload: Payload) -> StagedBatch:
        self.calls.append(("stage", batch_id))
        staging = f"{self.sink_id}/{batch_id:012d}-{attempt}"
        key = f"{staging}/part-0"
        # A failing or crashing write may leave a partial file behind, as Spark's can.
        self.storage.staging[key] = list(payload.data[: max(1, payload.rows // 2)])
        self._fault("stage", True)
        self.storage.staging[key] = list(payload.data)
        self._fault("stage", False)
        final = f"part-{self.sink_id}-{batch_id:012d}-000"
        return StagedBatch(staging, (("part-0", final),), payload.nbytes)

    def commit(self, record: CommitRecord) -> None:
        self.calls.append(("commit", record.batch_id))
        self._fault("commit", True)
        log = self.storage.commits.setdefault(self.sink_id, {})
        if record.batch_id in log and log[record.batch_id] != record:
            raise RuntimeError(f"batch {record.batch_id} already committed differently")
        log[record.batch_id] = record
        self._fault("commit", False)

    def publish(self, record: CommitRecord) -> None:
        self.calls.append(("publish", record.batch_id))
        self._fault("publish", True)
        for staged, final in record.files:
            key = f"{record.staging}/{staged}"
            if key in self.storage.staging:
                self.storage.files[final] = self.storage.staging.pop(key)
            elif final not in self.storage.files:
                raise RuntimeError(f"batch {record.batch_id}: file {final} lost")
        self._fault("publish", False)

    def finish(self) -> None:
        pass
