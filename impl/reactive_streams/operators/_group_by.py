"""``group_by``: split a stream into one group per key.

The hop emits a group (``wrap(key, publisher)``: ``Flow.group_by`` passes ``GroupedFlow``)
when its first element arrives and downstream asked for a group; the group's elements
wait in its queue until the group's subscriber (one only, as Reactor's unicast groups)
asks for them. Every group's
subscription is its own traced :class:`~reactive_streams._core.downstream.Downstream`.

Demand: upstream is asked for ``prefetch`` elements, then replenished at 75 % as the
groups' subscribers consume (or a cancelled group drops its queue), so at most
``prefetch`` elements wait across all groups (rule 3.17: bounded). As in Reactor, a
group nobody consumes stalls the stream once ``prefetch`` elements wait.

Bound: at most ``max_groups`` groups are open at once; a new key past the bound ends
the stream (and every group) with ``ValueError`` naming ``max_groups``. A group closes
when its subscriber cancels (its key may open a new group later) or the stream ends.
A cancel of the main subscription stops new groups (their elements are dropped);
upstream is cancelled once no group is open either (rule 3.12).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core.attach import Slot
from .._core.demand import MAX_DEMAND
from .._core.downstream import ACTIVE, where
from .._core.subscribing import subscribe_or_fail
from ._base import deliver_subscribe_then_error
from ._drained import DrainedOperator
from ._observe_on import replenish_size

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

T = TypeVar("T")
K = TypeVar("K")

__all__ = ["GroupByPublisher"]


class _Group(Slot[Any], Generic[T]):
    """One group: its queue, its end, and the slot of its one subscription (``_GroupSub``;
    claimed once, atomically, by its subscriber: ``_core.attach.Slot``)."""

    __slots__ = ("done", "error", "key", "parent", "queue")

    def __init__(self, parent: _GroupBy[Any], key: Any) -> None:
        super().__init__()
        self.parent = parent
        self.key = key
        self.queue: deque[T] = deque()
        self.done = False
        self.error: BaseException | None = None

    def __repr__(self) -> str:
        return f"<group_by group {self.key!r}>"

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        if not self.claim(subscriber):  # check and store in one step (a racing second)
            deliver_subscribe_then_error(
                subscriber, ValueError(f"group_by: group {self.key!r} allows one subscriber")
            )
            return
        sub = _GroupSub(subscriber, self)  # built once claimed: no refused hop in the trace
        self.swap(sub)
        sub._signal()  # on_subscribe from its drain (rule 1.9)

    def push(self, item: T) -> None:
        self.queue.append(item)
        sub = self._held
        if type(sub) is _GroupSub:
            sub.pushed()

    def end(self, error: BaseException | None) -> None:
        self.error = error
        self.done = True
        self.wake()

    def wake(self) -> None:
        sub = self._held
        if isinstance(sub, _GroupSub):
            sub._signal()


class _GroupSub(DrainedOperator[T]):
    """The subscription of a group's subscriber: emits from the group's queue."""

    __slots__ = ("_group",)

    def __init__(self, downstream: Subscriber[T], group: _Group[T]) -> None:
        super().__init__(downstream, "group_by.group")
        self._group = group

    def pushed(self) -> None:
        """An element joined the group's queue (upstream's thread): the drain runs, and
        when that element is the only one waiting, demand is there and nothing else is
        due (no rule 3.9 error, untraced), its round is inline: ``_emit`` of one element
        without the round's calls. Work recorded meanwhile (a cancel or a request from
        ``on_next``) runs in the drain after it (rules 1.3, 3.12)."""
        if not self._enter():
            return  # the running drain takes it: its ``_leave`` sees this unit
        group = self._group
        queue = group.queue
        downstream = self._downstream
        if (
            len(queue) != 1
            or not self._requested
            or self._pub is not ACTIVE
            or self._bad is not None
            or self._tracer is not None
            or downstream is None
        ):
            self._wake(False)
            return
        item = queue.popleft()
        try:
            downstream.on_next(item)
        except Exception as exc:
            self._next_raised(exc)  # rule 2.13: cancelled
        else:
            if self._requested != MAX_DEMAND:  # rule 3.17: unbounded stays, nothing to take
                self._delivered(1)  # rule 1.1: demand for it was checked above
        finally:
            group.parent._consumed(1)
        missed = self._leave(1)
        if missed:
            self._drain(missed)

    def _emit(self, on_next: Callable[[T], object], requested: int) -> int:
        queue = self._group.queue
        emitted = 0
        try:
            while emitted != requested and self._pub is ACTIVE:
                try:
                    item = queue.popleft()
                except IndexError:
                    break
                emitted += 1
                on_next(item)
        finally:
            if emitted:
                self._group.parent._consumed(emitted)
        return emitted

    def _ready_to_complete(self) -> bool:
        group = self._group
        if group.error is not None:
            self._error = group.error
            return True
        return group.done and not group.queue

    def _released(self) -> None:
        super()._released()
        self._group.parent._closed(self._group)


class _GroupBy(DrainedOperator[Any], Generic[T]):
    __slots__ = (
        "_consumed_count",
        "_fresh",
        "_gone",
        "_groups",
        "_key",
        "_limit",
        "_max_groups",
        "_prefetch",
        "_shared",
        "_wrap",
    )

    def __init__(
        self,
        downstream: Subscriber[Any],
        key: Callable[[T], Any],
        max_groups: int,
        prefetch: int,
        wrap: Callable[[Any, Publisher[T]], Any],
    ) -> None:
        super().__init__(downstream, "group_by")
        self._wrap = wrap  # (key, group's publisher) -> what downstream receives
        self._key = key
        self._max_groups = max_groups
        self._prefetch = prefetch
        self._limit = replenish_size(prefetch)
        self._consumed_count = 0
        self._groups: dict[Any, _Group[T]] = {}  # the open groups
        self._fresh: deque[_Group[T]] = deque()  # groups to emit
        self._gone = False  # the main subscription ended or was cancelled
        self._shared = threading.Lock()  # the groups and the consumed count

    # --------------------------------------------------------------- upstream
    def on_subscribe(self, subscription: Subscription) -> None:
        self._accept(subscription)

    def _opened(self) -> None:
        self._upstream.request(self._prefetch)

    def on_next(self, item: T) -> None:
        if self._done:
            return  # rule 2.8
        try:
            key = self._key(item)
        except Exception as exc:
            self._fail_all(exc)
            return
        group = self._groups.get(key)  # an open group: one dict read (atomic), no lock
        if group is not None:
            group.push(item)
            return
        created = False
        with self._shared:  # a new key: the check and the insert are one step
            group = self._groups.get(key)
            if group is None and not self._gone:
                if len(self._groups) >= self._max_groups:
                    overflow = ValueError(
                        f"group_by: key {key!r} would open group {len(self._groups) + 1}, "
                        f"past max_groups={self._max_groups} (at most max_groups groups are "
                        "open at once; a group closes when its subscriber cancels it)"
                    )
                else:
                    overflow = None
                    group = _Group(self, key)
                    self._groups[key] = group
                    self._fresh.append(group)
                    created = True
            else:
                overflow = None
        if overflow is not None:
            self._fail_all(overflow)
        elif group is None:
            self._consumed(1)  # the main subscription is gone: no new group (dropped)
        else:
            group.push(item)
            if created:
                self._signal()  # a group to emit; an element of an open group is its own

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._end_all(error)

    def on_complete(self) -> None:
        self._end_all(None)

    def _end_all(self, error: BaseException | None) -> None:
        if self._done:
            return
        self._done = True
        self._error = error
        with self._shared:
            groups = list(self._groups.values())
        for group in groups:
            group.end(error)
        self._signal()

    def _fail_all(self, error: BaseException) -> None:
        self._upstream.cancel()  # rule 3.12: nothing more is wanted
        self._end_all(error)

    # ------------------------------------------------------------ the groups
    def _consumed(self, count: int) -> None:
        """Elements left the queues: replenish upstream at 75 % of ``prefetch``."""
        with self._shared:
            total = self._consumed_count + count
            grant = (total // self._limit) * self._limit
            self._consumed_count = total - grant
        if grant and not self._done:
            self._upstream.request(grant)

    def _closed(self, group: _Group[T]) -> None:
        """A group's subscription ended: free its slot, drop its queue."""
        with self._shared:
            if self._groups.get(group.key) is group:
                del self._groups[group.key]
            left = len(group.queue)
            group.queue.clear()
            stop = self._gone and not self._groups
        if left:
            self._consumed(left)
        if stop:
            self._upstream.cancel()  # rule 3.12: no one wants elements any more

    # ------------------------------------------------------------ downstream
    def _emit(self, on_next: Callable[[Any], object], requested: int) -> int:
        fresh = self._fresh
        emitted = 0
        while fresh and emitted != requested and self._pub is ACTIVE:
            group = fresh.popleft()
            emitted += 1
            on_next(self._wrap(group.key, group))
        return emitted

    def _ready_to_complete(self) -> bool:
        return self._done and (self._error is not None or not self._fresh)

    def _released(self) -> None:
        self._downstream = None  # rule 3.13
        with self._shared:
            self._gone = True
            unsent = list(self._fresh)
            self._fresh.clear()
        for group in unsent:  # emitted to no one: closed (rule 3.13)
            self._closed(group)
        with self._shared:
            stop = not self._groups
        if stop:
            self._upstream.cancel()  # rule 3.12: no group is open either


class GroupByPublisher(Generic[T]):
    __slots__ = ("_key", "_max_groups", "_prefetch", "_source", "_wrap")

    def __init__(
        self,
        source: Publisher[T],
        key: Callable[[T], Any],
        max_groups: int,
        prefetch: int,
        wrap: Callable[[Any, Publisher[T]], Any],
    ) -> None:
        self._source = source
        self._key = key
        self._max_groups = max_groups
        self._prefetch = prefetch
        self._wrap = wrap

    def __repr__(self) -> str:
        return f"<{where('group_by', self._key)}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        hop = _GroupBy(subscriber, self._key, self._max_groups, self._prefetch, self._wrap)
        # rule 1.9: a raising source is on_subscribe then on_error to the hop
        subscribe_or_fail(self._source, hop, partial(deliver_subscribe_then_error, hop))
