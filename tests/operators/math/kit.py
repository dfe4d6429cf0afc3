"""The conformance kit's publishers of ``min``, ``max``, ``sum``, ``average``,
``to_dict``: one element per operator, ``n`` of them in sequence."""

from __future__ import annotations

from stateful.families import KitFactory

KIT = (
    KitFactory.single("min", lambda f: f.min()),
    KitFactory.single("max", lambda f: f.max()),
    KitFactory.single("sum", lambda f: f.sum()),
    KitFactory.single("average", lambda f: f.average()),
    KitFactory.single("to_dict", lambda f: f.to_dict(lambda x: x % 2)),
)
