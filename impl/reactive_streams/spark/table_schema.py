"""The table's schema, stored beside the commit log: a run with another schema is refused.

``<table>/_rs_sink/_schema/<version:012d>.json`` holds the schema every sink id of the
table writes (each version created if absent, never rewritten; the highest is
current). A run whose schema differs is refused with a diff before it writes,
because Parquet files of two schemas in one table make it unreadable. With
``schema_evolution="add_columns"`` a schema that only adds nullable columns at the
end is compatible: it is stored as the next version (read older files with
``mergeSchema``).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Protocol

from reactive_streams.spark.hadoop_fs import Entry, join, table_uri

__all__ = ["EVOLUTION", "SchemaStore", "schema_diff"]

EVOLUTION = ("none", "add_columns")
_VERSION = re.compile(r"^(\d{12})\.json$")


class _FS(Protocol):
    def mkdirs(self, uri: str) -> None: ...

    def list(self, uri: str) -> list[Entry]: ...

    def read(self, uri: str) -> bytes: ...

    def create_exclusive(self, uri: str, data: bytes) -> bool: ...


def _fields(schema: Any) -> list[tuple[str, str, bool]]:
    return [(f.name, str(f.type), bool(f.nullable)) for f in schema]


def schema_diff(old: Any, new: Any) -> list[str]:
    """Lines naming each column that was removed (-), added (+) or changed (~)."""
    before = {n: (t, null) for n, t, null in _fields(old)}
    after = {n: (t, null) for n, t, null in _fields(new)}

    def show(ty: tuple[str, bool]) -> str:
        return ty[0] + ("" if ty[1] else " not null")

    out = [f"- {n}: {show(before[n])}" for n in before if n not in after]
    out += [f"+ {n}: {show(after[n])}" for n in after if n not in before]
    out += [
        f"~ {n}: {show(before[n])} -> {show(after[n])}"
        for n in before
        if n in after and before[n] != after[n]
    ]
    if not out and list(before) != list(after):
        out.append(f"~ column order: {list(before)} -> {list(after)}")
    return out


def _compatible(old: Any, new: Any) -> bool:
    """``new`` keeps every column of ``old`` as it was and adds nullable ones after."""
    kept, added = _fields(new)[: len(old)], _fields(new)[len(old) :]
    return kept == _fields(old) and all(null for _, _, null in added)


class SchemaStore:
    """The schema versions of the table at ``path``."""

    def __init__(self, fs: _FS, path: str) -> None:
        self.fs = fs
        self.dir = join(table_uri(path), "_rs_sink", "_schema")

    def current(self) -> tuple[int, Any] | None:
        """(version, ``pyarrow.Schema``) of the stored schema, None if none is stored."""
        import pyarrow as pa

        versions = sorted(e.name for e in self.fs.list(self.dir) if _VERSION.match(e.name))
        if not versions:
            return None
        uri = join(self.dir, versions[-1])
        try:
            data = json.loads(self.fs.read(uri).decode("utf-8"))
            schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(data["arrow"])))
        except (ValueError, KeyError, OSError, pa.ArrowException) as e:
            raise RuntimeError(f"table schema {uri} is unreadable: {e}") from e
        return int(versions[-1][:12]), schema

    def _store(self, version: int, schema: Any) -> bool:
        self.fs.mkdirs(self.dir)
        body = {
            "fields": [{"name": n, "type": t, "nullable": null} for n, t, null in _fields(schema)],
            "arrow": base64.b64encode(schema.serialize().to_pybytes()).decode("ascii"),
        }
        data = json.dumps(body).encode("utf-8")  # one line: a Connect record is one
        return self.fs.create_exclusive(join(self.dir, f"{version:012d}.json"), data)

    def check(self, schema: Any, evolution: str = "none") -> None:
        """Store ``schema`` if the table has none; else refuse a different one with a
        diff (``SchemaError``), unless ``evolution`` allows it (then store it)."""
        from reactive_streams.spark.records import SchemaError

        if evolution not in EVOLUTION:
            raise ValueError(f"schema_evolution must be one of {EVOLUTION}, got {evolution!r}")
        for _ in range(3):  # another writer may store a version between list and create
            found = self.current()
            if found is None:
                if self._store(0, schema):
                    return
                continue
            version, stored = found
            diff = schema_diff(stored, schema)
            if not diff:
                return
            if evolution == "add_columns" and _compatible(stored, schema):
                if self._store(version + 1, schema):
                    return
                continue
            allowed = (
                ""
                if evolution != "none"
                else "; schema_evolution='add_columns' allows added nullable columns"
            )
            raise SchemaError(
                f"table {self.dir.rsplit('/_rs_sink', 1)[0]} has schema version {version}; "
                f"this run's schema differs ({'; '.join(diff)}){allowed}"
            )
        raise RuntimeError(f"{self.dir}: the table schema kept changing while it was checked")
