"""The args family's pipeline-machine cells (``operators/_args.py``):
none, it holds no operator of its own (the operators built on it have theirs)."""

from __future__ import annotations

from stateful.families import Cell

CELLS: tuple[Cell, ...] = ()
