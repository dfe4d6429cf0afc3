"""The base family's pipeline-machine cells (``operators/_base.py``):
none, it holds no operator of its own (the operators built on it have theirs)."""

from __future__ import annotations

from stateful.families import Cell

CELLS: tuple[Cell, ...] = ()
