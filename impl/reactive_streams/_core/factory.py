"""Iterator factories that carry the name of the hop they feed.

A synchronous source is a factory of iterators driven by the core subscription. Fusion
folds ``map``/``filter`` into that factory, and the fused pipeline is then one hop: its
trace must say what it is (``"range+map+filter"``), whatever the publisher was called
when the pipeline was built. A factory that knows its name carries it as ``hop``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["Items", "Named", "hop_of"]

T = TypeVar("T")


class Items(Generic[T]):
    """The factory of a source over a re-iterable (``range``, a tuple): ``items`` itself."""

    __slots__ = ("hop", "items")

    def __init__(self, items: Iterable[T], hop: str) -> None:
        self.items = items
        self.hop = hop

    def __call__(self) -> Iterable[T]:
        return self.items


class Named(Generic[T]):
    """``make`` with a hop name (a fused chain's factory, ``generate``...)."""

    __slots__ = ("_make", "hop")

    def __init__(self, make: Callable[[], Iterable[T]], hop: str) -> None:
        self._make = make
        self.hop = hop

    def __call__(self) -> Iterable[T]:
        return self._make()


def hop_of(factory: object, default: str = "iterable") -> str:
    """The hop name a factory carries: its own, that of the publisher whose bound method
    it is (``just(x)``), else ``default``."""
    if type(factory) is Items or type(factory) is Named:
        return factory.hop
    name = getattr(getattr(factory, "__self__", None), "_name", None)
    return name if isinstance(name, str) else default
