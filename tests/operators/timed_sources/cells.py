"""The timed_sources family's pipeline-machine cells (``operators/_timed_sources.py``):
none. ``interval`` and ``timer`` are sources, not stages on a flow: the machine builds
pipelines on its own sources; the kit checks these (``kit.py``), and the timed operators'
cells use ``Flow.timer`` (timeout's held-open source)."""

from __future__ import annotations

from stateful.families import Cell

CELLS: tuple[Cell, ...] = ()
