"""Element types flow through a chain: these annotated assignments are checked by mypy
strict (``make typecheck``); at run time they also check the values."""

from __future__ import annotations

from reactive_streams.api import Publisher
from reactive_streams.flow import Flow


def test_types_are_inferred_through_a_chain() -> None:
    ints: Flow[int] = Flow.range(0, 3)
    strs: Flow[str] = ints.map(str).filter(lambda s: s != "1")
    lengths: Flow[int] = strs.map(len)
    pairs: Flow[tuple[int, str]] = lengths.zip_with(strs)
    lists: Flow[list[int]] = ints.buffer(2)
    nested: Flow[int] = ints.flat_map(lambda x: Flow.just(x, x))
    total: Flow[int] = ints.reduce(lambda a, b: a + b)
    folded: Flow[str] = ints.fold(lambda acc, x: acc + str(x), "")
    as_publisher: Publisher[int] = ints
    result: list[str] = strs.to_list()
    assert result == ["0", "2"]
    assert pairs.to_list() == [(1, "0"), (1, "2")]
    assert lists.to_list() == [[0, 1], [2]]
    assert sorted(nested.to_list()) == [0, 0, 1, 1, 2, 2]
    assert total.to_list() == [3]
    assert folded.to_list() == ["012"]
    assert as_publisher is ints
