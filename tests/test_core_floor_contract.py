"""The core's contract where its callers can see it, second part (issue 27: mutmut
survivors of ``_core/fusion.py``, ``_core/tracer.py`` and ``_core/relay.py``): the fusion
protocol's answers as operators consume them (a scalar or ``items`` answer taken without
its iterator, its hop naming a fused chain), a publisher without the protocol, the
trace's JSON Lines and its short error text, and a relay that ignores an element sent
before ``on_subscribe``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactive_streams._core.fusion import items_source, scalar_source
from reactive_streams.api import Subscriber, Subscription
from reactive_streams.flow import Flow
from reactive_streams.operators import SyncSource, fusion, sync_of
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import Tracer, error_text, tracing

pytestmark = pytest.mark.timeout(60)


class _Answering:
    """A third-party synchronous source whose ``__rs_sync__`` answer is ``make(factory)``;
    ``factories`` counts the iterators asked for (a direct take asks none)."""

    def __init__(self, items: tuple[int, ...], answer: str) -> None:
        self.items = items
        self.answer = answer
        self.factories = 0

    def _factory(self) -> Iterator[int]:
        self.factories += 1
        return iter(self.items)

    def __rs_sync__(self) -> SyncSource:
        if self.answer == "items_source":
            return items_source(self._factory, self.items, "mine")
        if self.answer == "scalar_source":
            return scalar_source(self.items[0], "mine")
        return SyncSource(self._factory, self.answer, self.items[0], nulls=None, hop="mine")

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        Flow.from_iterable(self.items).subscribe(subscriber)


def _flat_mapped(inner: _Answering, prefetch: int) -> TestSubscriber[int]:
    ts = TestSubscriber[int](100)
    with fusion(True):
        Flow.range(0, 1).flat_map(lambda _: inner, 4, prefetch).subscribe(ts)
    return ts


# ------------------------------------------------------ scalar_source, SyncSource
@pytest.mark.parametrize("answer", ["scalar_source", "scalar"])
def test_a_scalar_answer_is_its_value_taken_without_an_iterator(answer: str) -> None:
    inner = _Answering((7,), answer)
    _flat_mapped(inner, 3).assert_values(7).assert_complete().assert_no_violations()
    assert inner.factories == 0


@pytest.mark.parametrize("answer", ["scalar_source", "items_source"])
def test_an_answers_hop_names_the_fused_chain_and_its_factory_feeds_it(answer: str) -> None:
    inner = _Answering((7,), answer)
    with fusion(True):
        mapped = Flow(inner).map(lambda x: x * 10)
    assert repr(mapped.source) == "<mine+map publisher>"
    ts = TestSubscriber[int](100)
    mapped.subscribe(ts)
    ts.assert_values(70).assert_complete().assert_no_violations()
    assert inner.factories == (1 if answer == "items_source" else 0)  # a scalar's is its own


# ------------------------------------------------------------------ items_source
def test_an_items_answer_within_prefetch_is_its_value_taken_without_an_iterator() -> None:
    inner = _Answering((1, 2, 3), "items_source")
    _flat_mapped(inner, 3).assert_values(1, 2, 3).assert_complete().assert_no_violations()
    assert inner.factories == 0


def test_an_items_answer_longer_than_prefetch_is_pulled_from_its_factory() -> None:
    inner = _Answering((1, 2, 3), "items_source")
    _flat_mapped(inner, 2).assert_values(1, 2, 3).assert_complete().assert_no_violations()
    assert inner.factories == 1


# ------------------------------------------------------------------------ sync_of
def test_a_publisher_without_the_protocol_answers_none() -> None:
    plain = Flow.range(0, 2).source
    assert sync_of(object()) is None
    assert sync_of(_Plain()) is None
    assert sync_of(plain) is not None


class _Plain:
    """A publisher that does not speak the fusion protocol: subscribed, never pulled."""

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        Flow.just(5, 6).subscribe(subscriber)


def test_flat_map_subscribes_an_inner_without_the_protocol() -> None:
    ts = TestSubscriber[int](100)
    with fusion(True):
        Flow.just(1, 2).flat_map(lambda _: _Plain(), 1, 4).subscribe(ts)
    ts.assert_values(5, 6, 5, 6).assert_complete().assert_no_violations()


# --------------------------------------------------------------- tracer: events
def _traced_error(message: str) -> str:
    with tracing() as tracer:
        Flow.error(ValueError(message)).subscribe(TestSubscriber[int](1))
    texts = [e["error"] for e in tracer.events if e["sig"] == "send_on_error"]
    assert len(texts) == 1
    text: str = texts[0]
    return text


def test_an_error_text_of_120_characters_is_kept_whole() -> None:
    message = "x" * (120 - len("ValueError: "))
    assert _traced_error(message) == "ValueError: " + message
    assert error_text(ValueError(message)) == "ValueError: " + message


def test_a_longer_error_text_is_cut_to_117_characters_and_an_ellipsis() -> None:
    message = "0123456789" * 11  # 12 + 110 = 122 characters
    cut = ("ValueError: " + message)[:117] + "..."
    assert len(cut) == 120
    assert _traced_error(message) == cut
    assert error_text(ValueError(message[:-1])) == cut  # 121 characters: cut as well


def test_the_trace_is_written_as_compact_json_lines(tmp_path: Path) -> None:
    with tracing() as tracer:
        Flow.error(ValueError("é ☃")).subscribe(TestSubscriber[int](1))
    path = tmp_path / "trace.jsonl"
    tracer.to_jsonl(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == tracer.events
    # one compact object per line: no blank between separators (trace files are large)
    assert lines == [json.dumps(e, separators=(",", ":")) for e in tracer.events]
    assert all(", " not in line and '": ' not in line for line in lines)


def test_an_empty_tracer_writes_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    Tracer().to_jsonl(path)
    assert path.read_text(encoding="utf-8") == ""


# ---------------------------------------------------------------- Relay._out
class _EarlyElement:
    """A faulty publisher (rule 1.9): one element before ``on_subscribe``; then a
    well-behaved subscription, its elements sent by ``emit`` after a request."""

    def __init__(self) -> None:
        self.subscriber: Subscriber[int] | None = None
        self.requested: list[int] = []
        self.cancelled = False

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        self.subscriber = subscriber
        subscriber.on_next(99)  # before on_subscribe: ignored by the hop (rule 2.8)
        subscriber.on_subscribe(_Requests(self))

    def emit(self, *items: int) -> None:
        assert self.subscriber is not None
        assert self.requested
        for item in items:
            self.subscriber.on_next(item)
        self.subscriber.on_complete()


class _Requests(Subscription):
    def __init__(self, source: _EarlyElement) -> None:
        self.source = source

    def request(self, n: int) -> None:
        self.source.requested.append(n)

    def cancel(self) -> None:
        self.source.cancelled = True


@pytest.mark.parametrize("traced", [False, True], ids=["untraced", "traced"])
def test_a_relay_ignores_an_element_before_on_subscribe(
    traced: bool, caplog: pytest.LogCaptureFixture
) -> None:
    source = _EarlyElement()
    ts = TestSubscriber[int](100)
    with caplog.at_level(logging.ERROR), fusion(True):
        if traced:
            with tracing():
                Flow(source).map(lambda x: x + 1).subscribe(ts)
        else:
            Flow(source).map(lambda x: x + 1).subscribe(ts)
    source.emit(1, 2)
    ts.assert_values(2, 3).assert_complete().assert_no_violations()
    assert (source.requested, source.cancelled) == ([100], False)
    assert not [r for r in caplog.records if "rule 2.13" in r.getMessage()]
