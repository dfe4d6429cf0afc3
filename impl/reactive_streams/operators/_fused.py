"""Fusion: operators folded into a synchronous source instead of chained as subscribers.

*Macro-fusion* happens when a pipeline is assembled: ``empty().map(f)`` is ``empty()``,
and ``map``/``filter`` over a synchronous iterable source (``range``, ``from_iterable``,
``just``, ...) become one iterator over the source, built from the C ``map``/``filter``
types, driven by the core ``IteratorSubscription``. *Micro-fusion*: ``observe_on`` over
such a source polls that iterator in its own drain loop instead of queueing elements.

The fused iterator types report an exact ``__length_hint__`` (the source's, when the
source's is exact) and are registered as exact, so completion is signalled exactly when
the unfused chain would signal it. Fusion is on unless ``RS_FUSION=0`` is set in the
environment or ``set_fusion(False)`` is called; it applies when a pipeline is built.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from .._core.downstream import where
from .._core.factory import Named, hop_of
from .._subscription import exact_length_types

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["SyncSource", "fused_filter", "fused_map", "fusion_enabled", "set_fusion"]

_enabled = os.environ.get("RS_FUSION", "1").strip().lower() not in ("0", "false", "off", "no")


def fusion_enabled() -> bool:
    """Whether pipelines built from now on are fused."""
    return _enabled


def set_fusion(enabled: bool) -> bool:
    """Switch fusion on or off for pipelines built from now on; returns the previous value."""
    global _enabled
    previous = _enabled
    _enabled = bool(enabled)
    return previous


def _hint(source: Iterator[Any]) -> int:
    # exact only over an exact source; otherwise "maybe more", which never completes early
    if type(source) in exact_length_types:
        return operator.length_hint(source)
    return 1


class _FusedMap(map):  # type: ignore[type-arg]
    """``map`` with the source's exact length (C speed: ``__next__`` is not overridden)."""

    __slots__ = ("_source", "_where")
    _source: Iterator[Any]
    _where: str  # "map(fn)", named in the rule 2.13 error for a None element

    def __length_hint__(self) -> int:
        return _hint(self._source)


class _FusedFilter(filter):  # type: ignore[type-arg]
    """``filter`` whose length hint is 0 exactly when its source is exhausted."""

    __slots__ = ("_source",)
    _source: Iterator[Any]

    def __length_hint__(self) -> int:
        return _hint(self._source)


exact_length_types.update({_FusedMap, _FusedFilter})


def fused_map(
    fn: Callable[[T], R], factory: Callable[[], Iterable[T]]
) -> Callable[[], Iterable[R]]:
    """The iterator factory of ``source.map(fn)`` for a source with iterator ``factory``;
    it names the fused hop (``"range+map"``)."""
    name = where("map", fn)

    def make() -> Iterator[R]:
        source = iter(factory())
        it = _FusedMap.__new__(_FusedMap, fn, source)
        it._source = source
        it._where = name
        return it

    return Named(make, hop_of(factory) + "+map")


def fused_filter(
    predicate: Callable[[T], object], factory: Callable[[], Iterable[T]]
) -> Callable[[], Iterable[T]]:
    """The iterator factory of ``source.filter(predicate)`` (hop ``"range+filter"``)."""

    def make() -> Iterator[T]:
        source = iter(factory())
        it = _FusedFilter.__new__(_FusedFilter, predicate, source)
        it._source = source
        return it

    return Named(make, hop_of(factory) + "+filter")


class SyncSource:
    """What a fusable Flow knows about its synchronous source.

    ``factory`` makes one iterator per subscription; ``kind`` is ``"empty"``,
    ``"error"``, ``"scalar"`` (exactly one element, ``value``) or ``"iterable"``.

    ``barrier`` marks a source behind ``subscribe_on``, a fusion barrier: nothing fuses
    across it, so the source runs only on ``subscribe_on``'s executor.
    """

    __slots__ = ("barrier", "error", "factory", "kind", "value")

    def __init__(
        self,
        factory: Callable[[], Iterable[Any]],
        kind: str = "iterable",
        value: Any = None,
        error: BaseException | None = None,
        barrier: bool = False,
    ) -> None:
        self.barrier = barrier
        self.factory = factory
        self.kind = kind
        self.value = value
        self.error = error
