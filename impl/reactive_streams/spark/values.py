"""Lossless value checks for every column type, nested ones included.

Arrow casts silently where a table must not change a value: ``2.5`` into a
``long`` inside a struct or a list lands as 2, ``1e300`` into a ``float`` as
infinity, an int into a ``timestamp`` as microseconds, and an extra key of a
nested dict is dropped. :func:`column_problem` finds each of these with a
:class:`~reactive_streams.spark.records.SchemaError` naming the record and the
field *path* (``a.b[1]``, ``tags['x']``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

__all__ = ["column_problem", "needs_check", "null_typed"]

_F32_MAX = 3.4028234663852886e38
_F16_MAX = 65504.0
_AMBIGUOUS = (
    "which is ambiguous for column type {t} (seconds, milliseconds or microseconds since "
    "the epoch?): pass a datetime, e.g. datetime.fromtimestamp(v, timezone.utc)"
)


def _pa() -> Any:
    import pyarrow as pa

    return pa


def _nested(t: Any) -> bool:
    types = _pa().types
    return bool(
        types.is_struct(t)
        or types.is_list(t)
        or types.is_large_list(t)
        or types.is_fixed_size_list(t)
        or types.is_map(t)
    )


def _temporal(t: Any) -> bool:
    types = _pa().types
    return bool(types.is_temporal(t))


def needs_check(t: Any) -> bool:
    """Whether a column of type ``t`` can take a value with loss (numbers, booleans,
    times, nested types); strings and binaries cannot."""
    types = _pa().types
    return bool(
        types.is_integer(t)
        or types.is_floating(t)
        or types.is_boolean(t)
        or _temporal(t)
        or _nested(t)
    )


def null_typed(t: Any, path: str) -> str | None:
    """The path of a ``null``-typed (unknown) part of inferred type ``t``, if any."""
    pa = _pa()
    if pa.types.is_null(t):
        return path
    if pa.types.is_struct(t):
        for i in range(t.num_fields):
            f = t.field(i)
            found = null_typed(f.type, f"{path}.{f.name}")
            if found:
                return found
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        return null_typed(t.value_type, f"{path}[]")
    return None


def _scalar_problem(value: Any, t: Any) -> str | None:
    """Why ``value`` does not fit scalar type ``t`` exactly, or None."""
    types = _pa().types
    kind = type(value)
    if types.is_integer(t):
        if kind is int or (isinstance(value, numbers.Integral) and kind is not bool):
            return None
        if isinstance(value, float) and value.is_integer():
            return None
        return "loss"
    if types.is_floating(t):
        if kind is bool or not isinstance(value, numbers.Real):
            return "loss" if kind is bool else None  # a string fails in Arrow, named there
        limit = _F32_MAX if t.bit_width == 32 else _F16_MAX if t.bit_width == 16 else None
        if limit is not None and math.isfinite(value) and abs(float(value)) > limit:
            return f"which is outside the range of column type {t}"
        return None
    if types.is_boolean(t):
        return None if kind is bool or not isinstance(value, numbers.Number) else "loss"
    if _temporal(t) and isinstance(value, numbers.Number):
        return _AMBIGUOUS.format(t=t)
    if types.is_timestamp(t):
        return _timestamp_problem(value, t)
    return None


def _timestamp_problem(value: Any, t: Any) -> str | None:
    """A datetime ``t`` would change: one with a time zone into a column without one
    (Arrow keeps its UTC wall time, not its own), nanoseconds into microseconds."""
    offset = getattr(value, "utcoffset", None)
    if t.tz is None and offset is not None and callable(offset) and offset() is not None:
        return (
            f"which has a time zone (UTC{offset()}) but column type {t} has none: pass "
            "a naive datetime (the wall time to store) or declare a timestamp with one"
        )
    nanos = getattr(value, "nanosecond", 0)  # pandas.Timestamp
    if nanos and t.unit != "ns":
        return f"whose {nanos} ns column type {t} cannot hold (it would truncate them)"
    return None


def _problem(value: Any, t: Any, path: str) -> tuple[str, Any, str] | None:
    """``(path, value, why)`` of the first part of ``value`` type ``t`` cannot hold."""
    if value is None:
        return None
    types = _pa().types
    if types.is_struct(t):
        if not isinstance(value, dict):
            return None  # Arrow refuses a non-mapping; the columnar path names it
        names = {t.field(i).name for i in range(t.num_fields)}
        extra = [k for k in value if k not in names]
        if extra:
            return (f"{path}.{extra[0]}", value[extra[0]], f"which struct {t} has no field for")
        for i in range(t.num_fields):
            f = t.field(i)
            item = value.get(f.name)
            if item is None and not f.nullable:  # Arrow takes it; Spark fails the write
                return (f"{path}.{f.name}", None, "which is not nullable")
            found = _problem(item, f.type, f"{path}.{f.name}")
            if found:
                return found
        return None
    if types.is_map(t):
        items = value.items() if isinstance(value, dict) else value
        for key, item in items:
            found = _problem(item, t.item_type, f"{path}[{key!r}]")
            if found:
                return found
        return None
    if _nested(t):  # the list types
        if isinstance(value, (list, tuple)):
            nullable = t.value_field.nullable
            for i, item in enumerate(value):
                if item is None and not nullable:
                    return (f"{path}[{i}]", None, "which is not nullable")
                found = _problem(item, t.value_type, f"{path}[{i}]")
                if found:
                    return found
        return None
    why = _scalar_problem(value, t)
    if why == "loss":
        why = f"which column type {t} cannot hold without loss"
    return None if why is None else (path, value, why)


def column_problem(
    values: Sequence[Any], name: str, t: Any, first: int
) -> tuple[str, str, int] | None:
    """The first value of column ``name`` that type ``t`` would hold only with loss or by
    guessing a unit: (message naming the record and the path, path, record), or None."""
    for i, value in enumerate(values):
        found = _problem(value, t, name)
        if found is None:
            continue
        path, bad, why = found
        message = f"field {path!r}: record {first + i} has {type(bad).__name__} {bad!r:.60}, {why}"
        return message, path, first + i
    return None
