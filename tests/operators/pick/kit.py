"""The conformance kit's publishers of ``first_element``, ``last_element``, ``single``:
one element per operator, ``n`` of them in sequence."""

from __future__ import annotations

from dataclasses import replace

from stateful.families import KitFactory


def _once(factory: KitFactory) -> KitFactory:
    return replace(factory, fusion=False)  # no fusable stage of its own: one run


KIT = (
    _once(KitFactory.single("first_element", lambda f: f.first_element())),
    _once(KitFactory.single("last_element", lambda f: f.last_element())),
    _once(KitFactory.single("single", lambda f: f.take(1).single())),
)
