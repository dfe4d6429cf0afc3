"""What every gallery subject says about itself, in class attributes.

A correct subject (a control) names no rule and no check. A bug is a small subclass of
a control that overrides one seam and names the rule it breaks (``rule``), the kit check
that must fail on it (``check``) and how the JVM TCK fares (``jvm``); its docstring's
first line is its entry in the kill table. The JVM TCK builds one wrong publisher per
``shouldFailBy`` test the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

__all__ = ["Specimen"]


class Specimen:
    """Class attributes of a gallery subject (defaults: a correct control)."""

    id: ClassVar[str] = "control"
    """The bug class's id in the catalogue of docs/conformance.md (P: publisher,
    S: subscriber, X: processor)."""
    rule: ClassVar[str | None] = None
    """The rule the bug breaks (``"-"`` for a legal variant, None for a control)."""
    check: ClassVar[str | None] = None
    """The kit check that must fail on the bug, citing ``rule``."""
    jvm: ClassVar[str] = ""
    """The JVM TCK's verdict: the test that catches the bug, or ``"NONE"``."""
    legal: ClassVar[bool] = False
    """A behaviour the specification allows: no required check may fail on it."""
    synchronous: ClassVar[bool] = True
    """Signals only on the calling thread, so the kit may run its synchronous mode."""
    uses_executor: ClassVar[bool] = False
    """A subscriber that takes the kit's executor for what it does "from another task"."""
    config: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Kit settings the subject declares (e.g. ``coordinated_emission``)."""
