"""Iterator factories that carry the name of the hop they feed (see :mod:`.fusion`)."""

from __future__ import annotations

from .fusion import Items, Named

__all__ = ["Items", "Named"]
