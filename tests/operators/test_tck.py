"""The conformance kit's publisher checks on every operator (skipped only if the kit is
not importable).

Every operator over a synchronous source is a synchronous publisher: ``make test`` runs
the kit on each (and on its failed publisher) in synchronous mode (absence decided when
the calls into the implementation have returned; a signal from a thread that never
called in fails). ``make
kit-operators`` (``RS_SLOW=1``) runs every operator again the way a third party would,
undeclared, in timed mode (absence judged by quiet windows), and every timed operator;
``make test`` runs two of those.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from stateful.families import KitFactory, collect_kit

from reactive_streams.flow import Flow
from reactive_streams.operators import HandleSink

tck = pytest.importorskip("reactive_streams.tck", exc_type=ImportError)

#: the families' kit factories (``tests/operators/<family>/kit.py``), by name; the
#: dictionaries below hold the operators not yet moved to a family folder
KIT: dict[str, KitFactory] = {factory.name: factory for factory in collect_kit()}

# each builds a Flow of exactly n elements from range(0, n) (or a suitable source)
OPERATORS: dict[str, Callable[[int], Flow[Any]]] = {
    # errors and recovery: the switching core (a failing first attempt where it applies)
    # breadth
    # combining, switching, grouping (issue 24)
    # a new element drops what the former inner has not delivered: one inner of n here,
    # then n inners of one each, switched only once delivered
}

# one element each (the kit's publisher of n elements is n of them in sequence)
SINGLE: dict[str, Callable[[Flow[int]], Flow[Any]]] = {
}


def _even(x: int, sink: HandleSink[int]) -> None:
    if x % 2 == 0:
        sink.next(x)


def _fails_once(n: int) -> Flow[int]:
    """``n`` elements, the first subscription failing after half of them (no element
    is repeated: the second attempt starts where the first failed)."""
    attempts: list[int] = []

    def make() -> Flow[int]:
        attempts.append(1)
        if len(attempts) == 1:
            return Flow.range(0, n // 2).concat_with(_boom())
        return Flow.range(n // 2, n)

    return Flow.defer(make)


def _ends_in_error(n: int, replaced: int) -> Flow[int]:
    """``n - replaced`` elements, then an error."""
    return Flow.range(0, n - replaced).concat_with(_boom())


def _boom() -> Flow[Any]:
    """A fresh error per subscription: a shared exception instance keeps the traceback
    of its last raise, whose frames reach the last subscriber (rule 3.13's check)."""
    return Flow.defer(lambda: Flow.error(RuntimeError("x")))


SLOW = os.environ.get("RS_SLOW") == "1"
SYNCHRONOUS = not SLOW  # make test: synchronous mode; make kit-operators: timed mode
TIMED_SAMPLE = frozenset({"debounce"})  # the timed operator make test runs (18 s)


def _timed_params(names: Iterable[str]) -> list[Any]:
    """``names`` as parameters; outside ``TIMED_SAMPLE`` skipped unless RS_SLOW=1."""
    return [
        pytest.param(
            name,
            marks=pytest.mark.skipif(
                not SLOW and name not in TIMED_SAMPLE, reason="every operator: make kit-operators"
            ),
        )
        for name in sorted(names)
    ]


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_publisher_checks_pass_for_operator(name: str, fusion: bool) -> None:
    make = OPERATORS[name]
    report = tck.run_publisher_checks(
        make,
        create_failed_publisher=lambda: Flow.error(RuntimeError("failed")).map(lambda x: x),
        label=name,
        max_elements=64,
        synchronous=SYNCHRONOUS,
        synchronous_failed=SYNCHRONOUS,  # the failed publisher is synchronous too
    )
    assert not report.failures(optional=False), report.table()


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_publisher_checks_pass_for_single_value_operator(name: str, fusion: bool) -> None:
    def make(n: int) -> Flow[Any]:
        # the operator itself for one element; n elements: n of them in sequence
        if n == 1:
            return SINGLE[name](Flow.range(0, 5))
        return Flow.concat(*(SINGLE[name](Flow.range(0, 5)) for _ in range(n)))

    report = tck.run_publisher_checks(
        make,
        create_failed_publisher=lambda: SINGLE[name](Flow.error(RuntimeError("failed"))),
        label=name,
        max_elements=64,
        synchronous=SYNCHRONOUS,
        synchronous_failed=SYNCHRONOUS,  # the failed publisher is synchronous too
    )
    assert not report.failures(optional=False), report.table()


# time, on the shared pool and its timer thread (the kit's executor has no clock); the
# kit judges absence by a quiet period here, so these run once, not per fusion mode
TIMED: dict[str, Callable[[int], Flow[Any]]] = {
}


@pytest.mark.parametrize("name", _timed_params(TIMED))
def test_publisher_checks_pass_for_timed_operator(name: str) -> None:
    report = tck.run_publisher_checks(
        TIMED[name],
        create_failed_publisher=lambda: Flow.error(RuntimeError("failed")).delay(0.001),
        label=name,
        max_elements=64,
    )
    assert not report.failures(optional=False), report.table()


_LEGACY = {*OPERATORS, *SINGLE, *TIMED}
_TWICE = sorted(_LEGACY & set(KIT))
assert not _TWICE, f"kit factories both in a family's kit.py and in this module: {_TWICE}"


def _run_factory(factory: KitFactory, synchronous: bool) -> None:
    report = tck.run_publisher_checks(
        factory.make,
        create_failed_publisher=factory.failed,
        label=factory.name,
        max_elements=64,
        synchronous=synchronous,
        synchronous_failed=synchronous and factory.failed is not None,
    )
    assert not report.failures(optional=False), report.table()


@pytest.mark.parametrize("name", sorted(n for n, f in KIT.items() if f.fusion and not f.timed))
def test_publisher_checks_pass_for_family_operator(name: str, fusion: bool) -> None:
    """A family's factory, fusion on and off (synchronous mode in ``make test``)."""
    factory = KIT[name]
    _run_factory(factory, SYNCHRONOUS and factory.synchronous)


@pytest.mark.parametrize("name", sorted(n for n, f in KIT.items() if not f.fusion and not f.timed))
def test_publisher_checks_pass_for_family_operator_once(name: str) -> None:
    """A family's factory run once (it builds its own executors)."""
    factory = KIT[name]
    _run_factory(factory, SYNCHRONOUS and factory.synchronous)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=pytest.mark.skipif(
                not SLOW and not factory.sampled, reason="every operator: make kit-operators"
            ),
        )
        for name, factory in sorted(KIT.items())
        if factory.timed
    ],
)
def test_publisher_checks_pass_for_family_timed_operator(name: str) -> None:
    """A family's timed factory, on the shared pool's timer (quiet periods judge absence)."""
    _run_factory(KIT[name], False)
