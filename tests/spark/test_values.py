"""Nested, array, float-range and timestamp values are checked like top-level ones (issue 26)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

from reactive_streams.spark.records import RecordConverter, SchemaError  # noqa: E402

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("a", pa.struct([("b", pa.int64()), ("c", pa.list_(pa.int64()))])),
        ("xs", pa.list_(pa.int64())),
        ("f", pa.float32()),
        ("t", pa.timestamp("us", tz="UTC")),
        ("m", pa.map_(pa.string(), pa.int32())),
    ]
)
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def good(i: int) -> dict[str, Any]:
    return {"id": i, "a": {"b": i, "c": [1, 2]}, "xs": [i], "f": 1.5, "t": T0, "m": {"k": 1}}


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        ({"a": {"b": 2.5, "c": []}}, "a.b", "float 2.5, which column type int64"),
        ({"a": {"b": 1, "c": [1, 2.5]}}, "a.c[1]", "float 2.5"),
        ({"xs": [1, 2.5]}, "xs[1]", "float 2.5"),
        ({"f": 1e300}, "f", "outside the range of column type float"),
        ({"t": 1767225600}, "t", "ambiguous"),
        ({"a": {"b": 1, "c": [], "extra": 3}}, "a.extra", "has no field"),
        ({"m": {"k": 0.5}}, "m['k']", "float 0.5"),
        ({"xs": [True]}, "xs[0]", "bool True"),
    ],
)
def test_lossy_or_ambiguous_nested_values_name_record_and_path(
    change: dict[str, Any], path: str, words: str
) -> None:
    records = [good(0), good(1), {**good(2), **change}]
    with pytest.raises(SchemaError) as info:
        RecordConverter(SCHEMA).convert(records, first_index=10)
    assert (info.value.field, info.value.record_index) == (path, 12)
    assert f"field {path!r}: record 12" in str(info.value)
    assert words in str(info.value)


def test_tuple_records_are_checked_the_same_way() -> None:
    conv = RecordConverter(pa.schema([("id", pa.int64()), ("xs", pa.list_(pa.int64()))]))
    with pytest.raises(SchemaError, match=r"field 'xs\[0\]': record 1 has float 0.5"):
        conv.convert([(1, [1]), (2, [0.5])])


def test_exact_values_are_accepted() -> None:
    rec = {**good(0), "a": {"b": 2.0, "c": [3.0]}, "xs": [4.0], "f": 3.0e38, "m": {"k": 2.0}}
    out = RecordConverter(SCHEMA).convert([rec, good(1)]).to_pylist()
    assert out[0]["a"] == {"b": 2, "c": [3]}
    assert out[0]["xs"] == [4]
    assert out[0]["t"] == T0
    assert out[1]["f"] == 1.5


def test_an_all_null_first_batch_does_not_fix_a_null_type() -> None:
    conv = RecordConverter()
    with pytest.raises(SchemaError, match="'note': null in every record") as info:
        conv.convert([{"id": 1, "note": None}, {"id": 2, "note": None}])
    assert info.value.field == "note"
    assert conv.schema is None  # nothing fixed: a declared schema or a later batch decides
    table = conv.convert([{"id": 3, "note": "x"}])
    assert str(table.schema.field("note").type) == "string"
    with pytest.raises(SchemaError, match=r"'s.v': null in every record"):
        RecordConverter().convert([{"id": 1, "s": {"v": None}}])
