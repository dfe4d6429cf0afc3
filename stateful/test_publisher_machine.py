"""State machine for the plain publishers: ``range``, ``from_iterable``, ``generate``
and a failing source, synchronous or on a ``ManualExecutor``, traced or not.

Rules are the spec's actions (``subscribe``, ``request``, ``cancel``), ``arm`` (the
Subscriber requests, cancels or raises from inside its next on* call) and
``run_task`` (run one queued executor task chosen by Hypothesis). The sources are
pull-based, so what the source does (emit ``length`` elements, then complete or
fail) is drawn by ``subscribe``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule

import reactive_streams as rs
from reactive_streams.api import Publisher
from reactive_streams.executors import Executor
from reactive_streams.sources import IterablePublisher, Sink

from .machines import Arm, TracedMachine, arms, request_sizes

SOURCES = ["range", "from_iterable", "generate", "generate_fails", "failing_iterable"]


class SourceFailure(Exception):
    """The source failed on purpose (rule 1.4: the publisher signals onError)."""


def _failing(length: int) -> Iterator[int]:
    yield from range(length)
    raise SourceFailure(f"after {length} elements")


def make_publisher(kind: str, length: int, executor: Executor | None, batch: int) -> Publisher[Any]:
    if kind == "range":
        return rs.range(10, 10 + length, executor=executor, batch_size=batch)
    if kind == "from_iterable":
        return rs.from_iterable(list(range(length)), executor=executor, batch_size=batch)
    if kind == "failing_iterable":
        return IterablePublisher(lambda: _failing(length), executor=executor, batch_size=batch)
    fails = kind == "generate_fails"

    def step(state: int, sink: Sink[int]) -> int:
        if state < length:
            sink.next(state)
        elif fails:
            sink.error(SourceFailure("generate failed"))
        else:
            sink.complete()
        return state + 1

    return rs.generate(0, step, executor=executor, batch_size=batch)


_kinds = st.sampled_from(SOURCES)
_lengths = st.integers(0, 6)
_batches = st.integers(1, 4)
_initials = st.one_of(st.none(), request_sizes)
_presets = st.lists(arms, max_size=3)


class PublisherMachine(TracedMachine):
    @initialize(
        sync=st.booleans(),
        untraced=st.sampled_from([False, False, True]),
        kind=_kinds,
        length=_lengths,
        batch=_batches,
        initial=_initials,
        preset=_presets,
    )
    def setup(
        self,
        sync: bool,
        untraced: bool,
        kind: str,
        length: int,
        batch: int,
        initial: Any,
        preset: list[Arm],
    ) -> None:
        """Choose the mode (synchronous or a ManualExecutor; traced or fast paths) and
        make the first subscription."""
        self.configure(sync, untraced)
        self.subscribe(kind, length, batch, initial, preset)

    @precondition(lambda self: len(self.probes) < self.max_subscriptions)
    @rule(kind=_kinds, length=_lengths, batch=_batches, initial=_initials, preset=_presets)
    def subscribe(
        self, kind: str, length: int, batch: int, initial: Any, preset: list[Arm]
    ) -> None:
        """Subscribe a fresh probe (rules 1.9, 1.10); ``initial`` is requested in
        on_subscribe, ``preset`` arms act during the first signals."""
        publisher = make_publisher(kind, length, self.executor, batch)
        self.attach(publisher, self.new_probe(initial, preset), length)


TestPublisherMachine = PublisherMachine.TestCase
