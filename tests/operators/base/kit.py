"""The base family's kit factories (``operators/_base.py``):
none, it holds no operator of its own (the operators built on it have theirs)."""

from __future__ import annotations

from stateful.families import KitFactory

KIT: tuple[KitFactory, ...] = ()
