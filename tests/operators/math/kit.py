"""The conformance kit's publishers of ``min``, ``max``, ``sum``, ``average``,
``to_dict``: one element per operator, ``n`` of them in sequence."""

from __future__ import annotations

from dataclasses import replace

from stateful.families import KitFactory


def _once(factory: KitFactory) -> KitFactory:
    return replace(factory, fusion=False)  # no fusable stage of its own: one run


KIT = (
    _once(KitFactory.single("min", lambda f: f.min())),
    _once(KitFactory.single("max", lambda f: f.max())),
    _once(KitFactory.single("sum", lambda f: f.sum())),
    _once(KitFactory.single("average", lambda f: f.average())),
    _once(KitFactory.single("to_dict", lambda f: f.to_dict(lambda x: x % 2))),
)
