"""The conformance kit's publishers of ``first_element``, ``last_element``, ``single``:
one element per operator, ``n`` of them in sequence."""

from __future__ import annotations

from stateful.families import KitFactory

KIT = (
    KitFactory.single("first_element", lambda f: f.first_element()),
    KitFactory.single("last_element", lambda f: f.last_element()),
    KitFactory.single("single", lambda f: f.take(1).single()),
)
