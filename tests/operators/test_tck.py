"""The conformance kit's publisher checks on every operator (skipped only if the kit is
not importable): the engine that runs every family's kit factories
(``tests/operators/<family>/kit.py``, collected by ``stateful/families.py``).

Every operator over a synchronous source is a synchronous publisher: ``make test`` runs
the kit on each (and on its failed publisher) in synchronous mode (absence decided when
the calls into the implementation have returned; a signal from a thread that never
called in fails), with fusion on or off (``GATE_FUSION``: each setting for half of the
operators). ``make kit-operators`` (``RS_SLOW=1``) runs the other setting in synchronous
mode, every operator again the way a third party would, undeclared, in timed mode
(absence judged by quiet windows), fusion on and off, and every timed operator; ``make
test`` runs the sampled ones of those.
"""

from __future__ import annotations

import os

import pytest
from stateful.families import KitFactory, collect_kit

from reactive_streams.flow import set_fusion

tck = pytest.importorskip("reactive_streams.tck", exc_type=ImportError)

#: the families' kit factories, by name
KIT: dict[str, KitFactory] = {factory.name: factory for factory in collect_kit()}

SLOW = os.environ.get("RS_SLOW") == "1"
SYNCHRONOUS = not SLOW  # make test: synchronous mode; make kit-operators: timed mode


def _run(factory: KitFactory, synchronous: bool) -> None:
    report = tck.run_publisher_checks(
        factory.make,
        create_failed_publisher=factory.failed,
        label=factory.name,
        max_elements=64,
        synchronous=synchronous,
        synchronous_failed=synchronous and factory.failed is not None,
    )
    assert not report.failures(optional=False), report.table()


#: the factories run per fusion setting
PER_FUSION = sorted(n for n, f in KIT.items() if f.fusion and not f.timed)
#: the fusion setting ``make test`` runs each in (synchronous mode), alternating over the
#: sorted names so that both settings are covered; ``make kit-operators`` runs the other
GATE_FUSION = {name: i % 2 == 0 for i, name in enumerate(PER_FUSION)}


@pytest.mark.parametrize("name", PER_FUSION)
def test_publisher_checks_pass_for_operator(name: str, fusion: bool) -> None:
    """A synchronous factory: in ``make test`` in synchronous mode with its
    ``GATE_FUSION`` setting; in ``make kit-operators`` in timed mode, fusion on and off."""
    if not SLOW and fusion != GATE_FUSION[name]:
        pytest.skip("the other fusion setting: make kit-operators")
    factory = KIT[name]
    _run(factory, SYNCHRONOUS and factory.synchronous)


@pytest.mark.skipif(not SLOW, reason="the other fusion setting: make kit-operators")
@pytest.mark.parametrize("name", PER_FUSION)
def test_publisher_checks_pass_for_operator_in_the_other_fusion_setting(name: str) -> None:
    """``make kit-operators``: the synchronous mode with the fusion setting that ``make
    test`` leaves out, so that each factory is checked in both modes with both settings."""
    factory = KIT[name]
    previous = set_fusion(not GATE_FUSION[name])
    try:
        _run(factory, factory.synchronous)
    finally:
        set_fusion(previous)


@pytest.mark.parametrize("name", sorted(n for n, f in KIT.items() if not f.fusion and not f.timed))
def test_publisher_checks_pass_for_operator_once(name: str) -> None:
    """A factory run once (``fusion=False``): one that takes the kit's executor (absence
    checked deterministically), or an alias or method form of an operator run in both."""
    factory = KIT[name]
    _run(factory, SYNCHRONOUS and factory.synchronous)


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
def test_publisher_checks_pass_for_timed_operator(name: str) -> None:
    """A timed factory, on the shared pool's timer (the kit's executor has no clock): the
    kit judges absence by a quiet period, so it runs once, not per fusion mode."""
    _run(KIT[name], False)
