"""``Arbiter``: one downstream subscription served by successive upstreams (retry,
on_error_resume, concat, switch_if_empty, defer), written once.

The arbiter is a :class:`~reactive_streams._core.relay.Relay` whose upstream can be
replaced after it ended. Demand is carried across the switch, never lost nor doubled:
outstanding = requested - produced (rule 3.17: unbounded stays unbounded); the new
upstream is asked for exactly the outstanding demand when its ``on_subscribe`` arrives.
A downstream ``request(n)`` is added under the lock and forwarded to the upstream read
under the same lock, so ``n`` is either in the snapshot given to the new upstream or
forwarded to it, once. Calls on each upstream go through a ``SerialSubscription`` (2.7).

- Rule 1.9: ``on_subscribe`` goes downstream before the first upstream is subscribed;
  a raising factory (``defer``) is that ``on_subscribe`` then ``on_error``.
- Rule 3.9: an invalid request is latched by the core and passed to the current upstream,
  so its error arrives serially (1.3); between upstreams (a switch, a backoff) it is
  answered at once. A latched request ends the stream with the rule 3.9 error and is
  never retried nor resumed, nor given to a new upstream.
- Rule 3.12: a cancel during a switch is seen by the new upstream's ``on_subscribe``,
  which cancels it at once (no leak).
- Rule 3.3: resubscribing is a drain loop (``DrainLoop._enter``/``_drain``): a source
  that fails synchronously inside ``subscribe`` is resubscribed by the loop, not by
  recursion.
- Rules 1.10 and 2.12: every upstream gets a fresh subscriber (``_Attempt``); a stale
  attempt's late signals are ignored (2.8).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .demand import MAX_DEMAND, add_demand
from .downstream import ACTIVE, NOOP
from .relay import Relay
from .serial import SerialSubscription
from .subscribing import subscribe_or_fail

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

__all__ = ["Arbiter", "SwitchingPublisher"]

T = TypeVar("T")

#: test-only scheduling hook (``_core/schedpoints.py``); None in production
_sched_hook: Any = None


def _ignore(item: object) -> None:
    """A former upstream's late element (rule 2.8)."""


class _Attempt(Generic[T]):
    """The subscriber of one upstream: forwards its signals to the arbiter, tagged.

    ``on_next`` is an attribute, not a method. Until the upstream is attached, and under
    bounded demand, it is ``_checked_next`` (rule 2.8's check, the count the next switch
    takes from the demand: rule 3.17); attached under unbounded demand it is the
    arbiter's own ``Relay.on_next`` (one call per element, nothing to count, and the
    arbiter's ``_out`` is None between upstreams: 2.8); ``Arbiter._ended`` points it at
    ``_ignore``."""

    __slots__ = ("_parent", "_subscribed", "on_next")

    def __init__(self, parent: Arbiter[T]) -> None:
        self._parent = parent
        self._subscribed = False
        self.on_next: Callable[[T], None] = self._checked_next

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if self._subscribed:
            subscription.cancel()  # rule 2.5
            return
        self._subscribed = True
        self._parent._attach(self, subscription)

    def _checked_next(self, item: T) -> None:
        parent = self._parent
        if self is not parent._attempt:
            return  # rule 2.8: a former upstream's late element
        if parent._requested != MAX_DEMAND:
            parent._produced += 1  # taken from the demand at the next switch (rule 3.17)
        parent.on_next(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._parent._ended(self, error)

    def on_complete(self) -> None:
        self._parent._ended(self, None)


class Arbiter(Relay[T, T]):
    """The switching hop. Subclasses define ``_first`` (the first upstream) and may
    override ``_upstream_error`` / ``_upstream_complete`` to ``_switch`` to another
    upstream instead of ending (the default passes the terminal signal on)."""

    __slots__ = ("_attempt", "_pending", "_produced")

    def __init__(self, downstream: Subscriber[T]) -> None:
        super().__init__(downstream)
        self._attempt: _Attempt[T] | None = None  # the current upstream's subscriber
        self._pending: Publisher[T] | None = None  # the next upstream to subscribe to
        self._produced = 0  # elements from the current upstream (its signal thread only)

    # --------------------------------------------------------------- the hooks
    def _first(self) -> Publisher[T]:
        raise NotImplementedError

    def _upstream_error(self, error: BaseException) -> None:
        self._finish(error)

    def _upstream_complete(self) -> None:
        self._finish(None)

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        """Rule 1.9: ``on_subscribe`` downstream, then the first upstream."""
        if not self._deliver_subscribe():
            return
        try:
            first = self._first()
            if first is None:
                raise TypeError(f"rule 2.13: {self.hop}: the first Publisher is None")
        except Exception as exc:
            self._finish(exc)  # rule 1.9: after on_subscribe
            return
        self._switch(first)

    def _switch(self, publisher: Publisher[T]) -> None:
        """Subscribe to ``publisher`` next, from the drain loop (rule 3.3: no recursion)."""
        self._pending = publisher
        if self._enter():
            self._drain()

    def _drain_round(self) -> bool:
        publisher, self._pending = self._pending, None
        if publisher is None or self._pub is not ACTIVE:
            return False
        if self._bad is not None:
            self._finish(None)  # rule 3.9: its error; no new upstream is subscribed
            return False
        attempt: _Attempt[T] = _Attempt(self)
        self._attempt = attempt
        subscribe_or_fail(publisher, attempt, partial(self._refused, attempt))
        return False

    def _refused(self, attempt: _Attempt[T], error: Exception) -> None:
        """Rule 1.9 broken: the upstream's ``subscribe`` raised. The stream ends with its
        error, and what it gave the attempt first is cancelled (3.13)."""
        attempt.on_next = _ignore  # rule 2.8: its late elements
        if attempt is self._attempt:
            self._attempt = None
            self._stop(error)
        else:
            self._finish(error)  # the attempt already ended with its own signal

    # ------------------------------------------------------ upstream's signals
    def on_subscribe(self, subscription: Subscription) -> None:
        subscription.cancel()  # the arbiter subscribes its own attempts (rule 2.5)

    def _attach(self, attempt: _Attempt[T], subscription: Subscription) -> None:
        """The switch form of ``_core.attach``: the check and the store are one step under
        the core's lock, so a cancel (which takes it) comes before or after, never between."""
        if _sched_hook is not None:
            _sched_hook("attach.set", self)
        n = 0
        with self._lock:
            live = attempt is self._attempt and self._pub is ACTIVE and self._bad is None
            if live:
                requested = self._requested
                if requested != MAX_DEMAND:  # rule 3.17: unbounded stays unbounded
                    requested = max(0, requested - self._produced)
                    self._requested = requested
                self._produced = 0
                self._upstream = upstream = SerialSubscription(subscription)  # rule 2.7
                self._out = self._downstream
                n = requested
                if requested == MAX_DEMAND:  # rule 3.17: stays unbounded, nothing to count
                    attempt.on_next = self.on_next
        if not live:
            subscription.cancel()  # rule 3.12: cancelled (or ended) during the switch
            if attempt is self._attempt and self._bad is not None:
                self._finish(None)  # rule 3.9: its error, never a new upstream
            return
        if n > 0:
            upstream.request(n)  # exactly the outstanding demand

    def _ended(self, attempt: _Attempt[T], error: BaseException | None) -> None:
        attempt.on_next = _ignore  # rule 2.8: its late elements
        if attempt is not self._attempt:
            return  # rule 2.8
        with self._lock:
            self._attempt = None
            self._upstream = NOOP  # requests now wait in the demand for the next upstream
            self._out = None  # rule 2.8: no element passes until the next upstream's attach
        if self._bad is not None or self._pub is not ACTIVE:
            self._finish(error)  # rule 3.9's error wins, never retried
        elif error is None:
            self._upstream_complete()
        else:
            self._upstream_error(error)

    # ------------------------------------------------------------ downstream
    def _forward(self, n: Any) -> None:
        if type(n) is int and n > 0:
            with self._lock:
                self._requested = add_demand(self._requested, n)  # rule 3.17
                upstream = self._upstream
            upstream.request(n)
            return
        with self._lock:
            upstream = self._upstream
        if upstream is NOOP:  # between upstreams (a switch, retry's backoff): nobody to ask
            self._answer_bad_request()  # rule 3.9: its error now, never when a timer fires
        else:
            upstream.request(n)  # rule 3.9: the current upstream answers, serially (1.3)


class SwitchingPublisher(Generic[T]):
    """A Publisher that starts ``make(subscriber)`` (an :class:`Arbiter`) per subscriber."""

    __slots__ = ("_make", "_name")

    def __init__(self, make: Callable[[Subscriber[T]], Arbiter[T]], name: str) -> None:
        self._make = make
        self._name = name

    def __repr__(self) -> str:
        return f"<{self._name}>"

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        self._make(subscriber).start()
