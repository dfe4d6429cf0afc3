"""Macro-fusion: ``map``/``filter``/``map_not_none``/``handle`` folded into a synchronous
source's iterator factory.

Over a source that answers the fusion protocol (:mod:`reactive_streams._core.fusion`),
each becomes one iterator over the source, built from the C ``map``/``filter`` types and
driven by the core ``IteratorSubscription``: ``map_not_none(fn)`` is
``filter(is-not-None, map(fn, source))``, as fast as ``map`` + ``filter``. The fused iterator types
report an exact ``__length_hint__`` (the source's, when the source's is exact) and are
registered as exact, so completion is signalled exactly when the unfused chain would.

Rule 2.13 holds as unfused: a stage whose input may carry None (a ``map``'s output, a
source other than ``range``) checks it before calling the user function and fails with
the error the unfused hop would signal (``map(parse): returned None``), so a later
``filter`` never hides a None that the unfused chain would have refused.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .._core.downstream import null_element_error, where
from .._core.fusion import Named, SyncSource, fusion_enabled, set_fusion
from .._core.pump import exact_length_types
from ._transform import HandleSink

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "SyncSource",
    "fused_filter",
    "fused_handle",
    "fused_map",
    "fused_map_not_none",
    "fusion_enabled",
    "set_fusion",
]


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


class _FusedHandle(filter):  # type: ignore[type-arg]
    """``handle``'s iterator: its length hint is 0 once the function completed (so the
    completion follows the last value at once, as unfused), else its source's."""

    __slots__ = ("_sink", "_source")
    _source: Iterator[Any]
    _sink: HandleSink[Any]

    def __length_hint__(self) -> int:
        return 0 if self._sink._done else _hint(self._source)


exact_length_types.update({_FusedMap, _FusedFilter, _FusedHandle})
_not_none = functools.partial(operator.is_not, None)  # C: ``None is not x``


def _refusing_none(fn: Callable[[Any], Any], origin: str) -> Callable[[Any], Any]:
    """``fn`` behind the rule 2.13 check the unfused hop ``origin`` makes ("": a source)."""

    def checked(item: Any) -> Any:
        if item is None:
            raise null_element_error(origin)
        return fn(item)

    return checked


def _stage_fn(fn: Callable[[Any], Any], sync: SyncSource) -> Callable[[Any], Any]:
    return fn if sync.nulls is None else _refusing_none(fn, sync.nulls)


def fused_map(fn: Callable[[T], R], sync: SyncSource) -> SyncSource:
    """The source of ``source.map(fn)`` for a source that answers ``sync`` (hop ``"range+map"``)."""
    factory = sync.factory
    name = where("map", fn)
    call = _stage_fn(fn, sync)

    def make() -> Iterator[R]:
        source = iter(factory())
        it = _FusedMap.__new__(_FusedMap, call, source)
        it._source = source
        it._where = name
        return it

    hop = sync.hop + "+map"
    return SyncSource(Named(make, hop), hop=hop, nulls=name)


def fused_filter(predicate: Callable[[T], object], sync: SyncSource) -> SyncSource:
    """The source of ``source.filter(predicate)`` (hop ``"range+filter"``); its elements
    are never None (the input is checked), so a later stage need not check."""
    factory = sync.factory
    call = _stage_fn(predicate, sync)

    def make() -> Iterator[T]:
        source = iter(factory())
        it = _FusedFilter.__new__(_FusedFilter, call, source)
        it._source = source
        return it

    hop = sync.hop + "+filter"
    return SyncSource(Named(make, hop), hop=hop, nulls=None)


def fused_map_not_none(fn: Callable[[T], R | None], sync: SyncSource) -> SyncSource:
    """The source of ``source.map_not_none(fn)`` (hop ``"range+map_not_none"``): the C
    ``filter`` of not-None over the C ``map``; its elements are never None."""
    factory = sync.factory
    call = _stage_fn(fn, sync)

    def make() -> Iterator[R]:
        source = iter(factory())
        it = _FusedFilter.__new__(_FusedFilter, _not_none, map(call, source))
        it._source = source
        return it

    hop = sync.hop + "+map_not_none"
    return SyncSource(Named(make, hop), hop=hop, nulls=None)


def fused_handle(fn: Callable[[T, HandleSink[R]], object], sync: SyncSource) -> SyncSource:
    """The source of ``source.handle(fn)`` (hop ``"range+handle"``): each element's value
    through a sink (one per subscription), the Nones filtered out in C. ``complete()``
    ends the iterator after the value; ``error(exc)`` raises ``exc`` from it."""
    factory = sync.factory
    origin = where("handle", fn)
    check = sync.nulls

    def make() -> Iterator[R]:
        source = iter(factory())
        sink: HandleSink[R] = HandleSink(origin)

        def step(item: T) -> R | None:
            if sink._done:
                raise StopIteration  # complete() came with the previous element
            if check is not None and item is None:
                raise null_element_error(check)  # rule 2.13, as the unfused hop
            try:
                fn(item, sink)
            except StopIteration as exc:  # would end the iterator silently
                sink._value = None
                raise RuntimeError(f"{origin} raised StopIteration") from exc
            except BaseException:
                sink._value = None
                raise
            value = sink._value
            sink._value = None
            if sink._error is not None:
                raise sink._error  # error(): this element's value is not sent
            return value

        it = _FusedHandle.__new__(_FusedHandle, _not_none, map(step, source))
        it._source = source
        it._sink = sink
        return it

    hop = sync.hop + "+handle"
    return SyncSource(Named(make, hop), hop=hop, nulls=None)
