"""Fusion: one protocol, asked by operators, never inferred from types.

A publisher that can be pulled synchronously answers ``__rs_sync__()`` with a
:class:`SyncSource` (else None, or no such method): ``factory()`` makes the iterator of one
subscription, and subscribing would signal exactly its elements on the thread that calls
``subscribe``/``request``, then completion at its end (eagerly when its length hint is
exact) or the error ``next`` raised. ``sync_of(publisher)`` asks. A ``Flow`` answers for
its source; a source that delivers on an executor, and ``subscribe_on``, answer None (a
barrier: the source runs only where it emits).

*Macro-fusion* folds ``map``/``filter`` into the factory when a pipeline is built.
*Micro-fusion*: an operator subscribing to a synchronous source (``observe_on``,
``flat_map``'s upstream and inners) gets a :class:`PulledUpstream` instead: a plain
Subscription that pulls the iterator into the operator when the operator calls
``request(n)``, exactly as the subscribed source would emit. The operator keeps one code
path, so fused and unfused signals agree by construction. Pulls are batched (:class:`Pull`,
up to ``PULL_BATCH`` elements in one C-level loop); a subscriber that defines
``on_next_batch(items)`` receives each batch in one call (its elements in order, as if
``on_next`` were called for each), others receive ``on_next`` per element.

An answer is checked in one place, ``sync_of``: the answers of the core's helpers
(``scalar_source``, ``items_source``) pass as they are; any other must be well formed (a
``SyncSource``, a callable ``factory``, a known ``kind``, a ``str`` hop: else
``TypeError`` naming the field), and the value a consumer takes without the factory is
taken only when the core can vouch for it: a ``"scalar"`` value that is not None, an
``"items"`` value that is a builtin tuple, list or range (an exact ``len``) without a
None. Any other such value (a length that may lie or raise, a None) is not used: the
source is pulled through its factory as an ``"iterable"``, each element counted (rule
1.1) and checked for None (rule 2.13).

The switch is a context variable read when a pipeline is built (``set_fusion``,
``fusion``); its default is on unless ``RS_FUSION=0`` is set in the environment.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from operator import length_hint
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .demand import add_demand, check_request, take
from .downstream import null_from
from .exact import exact_end
from .pump import exact_length_types
from .serial import DrainLoop

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = [
    "KINDS",
    "PULL_BATCH",
    "Items",
    "ItemsAnswer",
    "Named",
    "Pull",
    "PulledUpstream",
    "ScalarAnswer",
    "SyncSource",
    "fusion",
    "fusion_enabled",
    "items_source",
    "scalar_source",
    "set_fusion",
    "subscribe_fused",
    "sync_of",
]

T = TypeVar("T")

PULL_BATCH = 256  # elements pulled per batch: bounds memory under unbounded demand (3.17)

_OFF = ("0", "false", "off", "no")
_switch: ContextVar[bool] = ContextVar(
    "rs_fusion", default=os.environ.get("RS_FUSION", "1").strip().lower() not in _OFF
)


def fusion_enabled() -> bool:
    """Whether pipelines built from now on, in this context, are fused."""
    return _switch.get()


def set_fusion(enabled: bool) -> bool:
    """Switch fusion on or off for pipelines built from now on in this context (thread or
    task); returns the previous value."""
    previous = _switch.get()
    _switch.set(bool(enabled))
    return previous


@contextmanager
def fusion(enabled: bool) -> Iterator[None]:
    """``with fusion(False):`` pipelines built inside the block are not fused."""
    token = _switch.set(bool(enabled))
    try:
        yield
    finally:
        _switch.reset(token)


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


class SyncSource:
    """A publisher's answer to ``__rs_sync__()``: it can be pulled synchronously.

    ``factory`` makes one iterator per subscription; ``hop`` names it in traces; ``kind``
    is ``"empty"``, ``"error"``, ``"scalar"`` (exactly one element, ``value``),
    ``"items"`` (exactly the elements of the sequence ``value``, none of them None) or
    ``"iterable"``. ``nulls`` names the hop whose None a pulled element may be (``""``: the
    source itself; ``"map(parse)"``), or is None when no element can be None (``range``)."""

    __slots__ = ("error", "factory", "hop", "kind", "nulls", "value")

    def __init__(
        self,
        factory: Callable[[], Iterable[Any]],
        kind: str = "iterable",
        value: Any = None,
        error: BaseException | None = None,
        *,
        hop: str = "iterable",
        nulls: str | None = "",
    ) -> None:
        self.factory = factory
        self.kind = kind
        self.value = value
        self.error = error
        self.hop = hop
        self.nulls = nulls


_new_source = object.__new__


class ScalarAnswer(SyncSource):
    """The answer of a one-element source (``just(x)``, a range of one): ``value`` and
    ``hop`` are its only fields; ``kind``, ``error`` and ``nulls`` are fixed, and the
    factory is made only when asked (``flat_map`` takes ``value`` and never asks)."""

    __slots__ = ()

    kind = "scalar"
    error = None
    nulls = None  # rule 2.13: the value was checked when the source was built

    @property  # read-only here: fixed by ``value``
    def factory(self) -> Callable[[], Iterable[Any]]:  # type: ignore[override]
        return (self.value,).__iter__


def scalar_source(value: object, hop: str) -> SyncSource:
    """The answer of a one-element source (``just``'s, a range of one), in two stores: a
    ``ScalarAnswer``, whose factory yields ``value`` (one answer per ``flat_map`` inner;
    no factory argument, so the hot path makes no bound method)."""
    sync: ScalarAnswer = _new_source(ScalarAnswer)
    sync.value = value
    sync.hop = hop
    return sync


class ItemsAnswer(SyncSource):
    """The answer of a source whose elements are exactly ``value`` (a range, a checked
    tuple: an exact ``len``, none of them None), built only by ``items_source``."""

    __slots__ = ()


def items_source(factory: Callable[[], Iterable[T]], items: Sequence[T], hop: str) -> SyncSource:
    """``SyncSource(factory, "items", items, hop=hop, nulls=None)`` without the keyword
    call: a source whose elements are exactly ``items`` (a range, a checked tuple), none
    of them None, so a consumer may take them without an iterator (``flat_map``)."""
    sync: SyncSource = _new_source(ItemsAnswer)
    sync.factory = factory
    sync.kind = "items"
    sync.value = items
    sync.error = None
    sync.hop = hop
    sync.nulls = None  # rule 2.13: no element is None
    return sync


KINDS = ("empty", "error", "scalar", "items", "iterable")


def listed_items(sync: SyncSource) -> list[Any] | tuple[Any, ...] | None:
    """The list or tuple under an ``iterable`` answer of the core's own ``Items`` factory
    (``from_iterable`` over a list or tuple), which a hop may take whole; None for any
    other answer, which is pulled. The one place a hop learns what a factory holds."""
    factory = sync.factory
    if sync.kind != "iterable" or type(factory) is not Items:
        return None
    items = factory.items
    return items if type(items) is list or type(items) is tuple else None


def sync_of(publisher: object) -> SyncSource | None:
    """The publisher's ``__rs_sync__()`` answer, checked: how to pull it synchronously,
    or None. Raises what ``__rs_sync__`` raised, or ``TypeError`` naming a malformed
    field; the caller subscribes instead (``subscribe_fused``) or signals it (1.9)."""
    ask = getattr(publisher, "__rs_sync__", None)
    if ask is None:
        return None
    answer = ask()
    if answer is None or type(answer) is ScalarAnswer or type(answer) is ItemsAnswer:
        return answer  # none, or built by the core's helpers
    return _checked(answer, publisher)


def _checked(answer: object, publisher: object) -> SyncSource:
    """An answer the core's helpers did not build (the public constructor, a subclass):
    its fields checked, and a promise the core cannot verify replaced by a pull."""
    if not isinstance(answer, SyncSource):
        raise TypeError(f"__rs_sync__() of {publisher!r} returned {answer!r}, not a SyncSource")
    factory, kind, hop = answer.factory, answer.kind, answer.hop
    asked = f"__rs_sync__() of {publisher!r}"
    if not callable(factory):
        raise TypeError(f"{asked}: factory must be callable, got {factory!r}")
    if kind not in KINDS:
        raise TypeError(f"{asked}: kind must be one of {KINDS}, got {kind!r}")
    if not isinstance(hop, str):
        raise TypeError(f"{asked}: hop must be a str, got {hop!r}")
    if (kind == "scalar" and answer.value is None) or (
        kind == "items" and not _exact(answer.value)
    ):
        # rules 1.1, 2.13: a length that may lie or raise, a None: pulled through the
        # factory instead, each element counted and checked for None as it comes
        nulls = answer.nulls
        return SyncSource(factory, hop=hop, nulls=nulls if isinstance(nulls, str) else "")
    return answer


def _exact(value: object) -> bool:
    """An "items" value the core can take whole: a builtin sequence (its ``len`` exact,
    never raising) without a None (rule 2.13, by identity)."""
    kind = type(value)
    if kind is range:
        return True
    return (kind is tuple or kind is list) and _first_none(value) < 0  # type: ignore[arg-type]


def subscribe_fused(publisher: Any, subscriber: Subscriber[Any], fuse: bool) -> bool:
    """Subscribe ``subscriber`` to ``publisher``'s pulled source when ``fuse`` and the
    publisher answers the protocol; False when nothing was subscribed (subscribe it)."""
    if not fuse:
        return False
    try:
        sync = sync_of(publisher)
    except Exception:  # a faulty answer: subscribe, and let the publisher decide (1.9)
        return False
    if sync is None:
        return False
    PulledUpstream(subscriber, sync.factory, sync.nulls is not None).start()
    return True


def _first_none(items: Sequence[Any]) -> int:
    """The index of the first None in ``items``, or -1 (identity, never ``__eq__``'s word)."""
    try:
        if None not in items:  # C-level scan; an ``__eq__`` that lies is re-checked below
            return -1
    except Exception:  # an ``__eq__`` that raises: scan by identity
        pass
    for index, item in enumerate(items):
        if item is None:
            return index
    return -1


class Pull(Generic[T]):
    """One subscription's iterator, pulled in batches: ``take(n)`` returns the next
    elements (at most ``n`` and ``PULL_BATCH``), whether the source has ended, and its
    error: the exception ``next`` raised, rule 2.13's error for a None (after the
    elements before it), or None at a plain end. An exact iterator's end is known as soon
    as its last element is pulled (rules 1.4, 1.5)."""

    __slots__ = ("_exact", "_it", "_nulls")

    def __init__(self, it: Iterator[T], nulls: bool = True) -> None:
        self._it = it
        self._exact = type(it) in exact_length_types
        self._nulls = nulls  # False: the source vouches no element is None (``range``)

    def take(self, n: int) -> tuple[list[T], bool, BaseException | None]:
        it = self._it
        if n == 1:  # one element (a concat_map's replenish, per inner): no islice, no scan
            try:
                item = next(it)
            except StopIteration:
                return [], True, None
            except Exception as raised:
                return [], True, raised
            if item is None and self._nulls:
                return [], True, null_from(it)  # rule 2.13, as the source would signal
            if self._exact and length_hint(it) == 0:
                return ([item], *exact_end(it))  # its end, at once (rules 1.4, 1.5)
            return [item], False, None
        if n > PULL_BATCH:
            n = PULL_BATCH
        items: list[T] = []
        try:
            items.extend(islice(it, n))  # keeps the elements before an exception
        except Exception as exc:
            error: BaseException | None = exc
            ended = True
        else:
            error = None
            ended = len(items) < n
        if self._nulls:
            index = _first_none(items)
            if index >= 0:
                del items[index:]
                return items, True, null_from(it)  # rule 2.13, as the source would signal
        if not ended and self._exact:
            ended, error = exact_end(it)
        return items, ended, error

    def ended(self) -> tuple[bool, BaseException | None]:
        """Without pulling an element: whether an exact iterator is at its end (its error)."""
        return exact_end(self._it) if self._exact else (False, None)


class PulledUpstream(DrainLoop, Generic[T]):
    """The Subscription of a fused synchronous source: ``request(n)`` pulls up to ``n``
    elements into the subscriber on the calling thread, in batches (``on_next_batch`` when
    the subscriber has it, else ``on_next`` per element), then signals the end as the
    subscribed ``IteratorSubscription`` would: at once when the length is exact (rules
    1.4, 1.5), the iterator's error, rule 2.13 for a None, rule 3.9 for a bad ``n``.

    Serial as every hop is (the core ``DrainLoop``, rules 1.3, 3.3): ``start`` delivers
    ``on_subscribe`` and opens the iterator in the first round; a ``request`` made
    meanwhile, or from inside ``on_next``, is pulled by the running drain."""

    __slots__ = (
        "_bad",
        "_batch_hook",
        "_early_end",
        "_factory",
        "_nulls",
        "_pending",
        "_pull",
        "_subscriber",
    )

    def __init__(
        self, subscriber: Subscriber[T], factory: Callable[[], Iterable[T]], nulls: bool = True
    ) -> None:
        super().__init__()
        self._subscriber: Subscriber[T] | None = subscriber
        self._batch_hook: Callable[[list[T]], object] | None = getattr(
            subscriber, "on_next_batch", None
        )
        self._factory: Callable[[], Iterable[T]] | None = factory
        self._nulls = nulls
        self._pull: Pull[T] | None = None
        self._pending = 0
        self._bad: str | None = None  # rule 3.9: the first invalid request's message
        self._early_end: tuple[BaseException | None] | None = None  # the end, when reached

    def start(self) -> None:
        """Called instead of ``publisher.subscribe(subscriber)``."""
        self._wip = 1  # on_subscribe is the first unit of work (rule 1.3)
        self._drain()

    def request(self, n: int) -> None:
        message = check_request(n)
        with self._lock:
            if message is not None:
                if self._bad is None:
                    self._bad = message
            else:
                self._pending = add_demand(self._pending, n)  # rule 3.17: saturates
        if self._enter():
            self._drain()

    def pull_within_batch(self, n: int) -> list[T]:
        """Called from inside ``on_next_batch`` only (this drain held, on its thread):
        ``request(n)`` with its elements returned at once instead of delivered in the
        next batch (a ``concat_map`` asking for its next element as its inner
        completes: no round per element). The end they reach is signalled as the batch
        returns (rules 1.4, 1.5); nothing after a cancel or an invalid request (3.9)."""
        pull = self._pull
        if pull is None or self._early_end is not None or self._bad is not None:
            return []
        items, ended, error = pull.take(n)
        if ended:
            self._early_end = (error,)
        return items

    def cancel(self) -> None:
        # rules 3.7, 3.13: idempotent; drop the subscriber and the source
        self._subscriber = None
        self._batch_hook = None
        self._factory = None
        self._pull = None

    def _drain_round(self) -> bool:
        subscriber = self._subscriber
        if subscriber is None:
            return False
        pull = self._pull
        if pull is None:
            factory, self._factory = self._factory, None
            if factory is None:
                return False
            subscriber.on_subscribe(self)  # rule 1.9: first
            if self._subscriber is None:
                return False  # cancelled from on_subscribe
            try:
                pull = Pull(iter(factory()), self._nulls)
            except Exception as exc:  # the source failed before its first element
                self._end(exc)
                return False
            self._pull = pull
        if self._bad is not None:
            self._end(ValueError(self._bad))  # rule 3.9
            return False
        limit = self._pending
        if limit == 0:
            ended, error = pull.ended()
            if ended:
                self._end(error)  # rules 1.4, 1.5: the end is known, no demand needed
            return False
        hook = self._batch_hook
        sent = 0
        while sent != limit:
            items, ended, error = pull.take(limit - sent)
            if ended:
                self._early_end = (error,)  # the end: no ``pull_within_batch`` past it
            if items:
                sent += len(items)
                if hook is not None:
                    hook(items)
                    early = self._early_end
                    if early is not None and self._subscriber is not None:
                        self._end(early[0])  # this batch's end, or one reached inside it
                        return False
                else:
                    for item in items:
                        subscriber.on_next(item)
                        if self._subscriber is None:
                            return False
                if self._subscriber is None:
                    return False
            if ended:
                self._end(error)
                return False
        if sent:
            with self._lock:
                self._pending = take(self._pending, sent)  # rule 3.17: unbounded stays
        return False

    def _end(self, error: BaseException | None) -> None:
        subscriber = self._subscriber
        self.cancel()
        if subscriber is None:
            return
        if error is None:
            subscriber.on_complete()
        else:
            subscriber.on_error(error)
