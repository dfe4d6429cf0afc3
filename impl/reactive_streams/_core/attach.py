"""Attaching: the one way an upstream or an inner subscription is set, and the one way a
replaceable handle (a timer) is held, each atomic against a racing cancel.

``Attach`` is a subscription slot set once, as Reactor's ``Operators.setOnce`` over a
``DeferredSubscription``. Its owner hands it out (or is it) before the subscription
arrives, so calls may come first:

- a ``cancel`` before ``set`` cancels what arrives (rules 3.12, 3.13); a second ``set``
  cancels the second subscription (rule 2.5);
- a ``request(n)`` before ``set`` is added up (saturating at ``MAX_DEMAND``, rule 3.17)
  and the sum is forwarded at ``set``;
- a ``request(n)`` with ``n <= 0`` (or no int) before ``set`` is answered at once, by
  the owner's ``on_invalid`` (rule 3.9), never at the set nor when a timer fires;
- after ``set`` every call goes to a ``SerialSubscription`` (rule 2.7).

The check of the slot and the store are one step under a small lock that is never held
while a subscription or user code is called. ``Slot`` is the switching form for a handle
that is replaced over time (the wait of ``retry``'s backoff): ``swap`` stores the next
one, ``dispose`` cancels what is held and every handle stored after it; ``claim`` stores
one only if none ever was (a unicast group's one subscriber).

Both expose scheduling points (``_core/schedpoints.py``) at the set (``attach.set``) and at
the cancel (``attach.cancel``), before their lock, so the interleaving explorer can run
another thread between an operator's decision to attach and the attach.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar

from .demand import add_demand, check_request
from .serial import SerialSubscription

if TYPE_CHECKING:
    from ..api import Subscription

__all__ = ["GONE", "Attach", "Slot"]

#: test-only scheduling hook (``_core/schedpoints.py``); None in production
_sched_hook: Any = None


class _Gone:
    """What a slot holds after ``cancel``/``dispose``/``release``: calls do nothing."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "GONE"

    def request(self, n: int) -> None:
        pass  # rule 3.6

    def cancel(self) -> None:
        pass  # rule 3.7


GONE: Final = _Gone()


class _Cancellable(Protocol):
    def cancel(self) -> object: ...


C = TypeVar("C", bound=_Cancellable)


class Attach:
    """A Subscription slot, set once (see the module). ``early``: demand to forward at the
    set (an inner's prefetch); ``on_invalid(message)``: the owner's rule 3.9 answer to an
    invalid request made before the set (None: the caller gets the ValueError, for owners
    that only make their own, valid, requests)."""

    __slots__ = ("_early", "_lock", "_on_invalid", "_upstream")

    def __init__(self, early: int = 0, on_invalid: Callable[[str], object] | None = None) -> None:
        self._lock = threading.Lock()
        self._upstream: Subscription | None = None  # None: not yet set; GONE: over
        self._early = early
        self._on_invalid = on_invalid

    @property
    def attached(self) -> bool:
        """A subscription was set and is neither cancelled nor released."""
        upstream = self._upstream
        return upstream is not None and upstream is not GONE

    def set(self, subscription: Subscription) -> bool:
        """Attach ``subscription`` (upstream's ``on_subscribe``); False when it was refused
        and cancelled: a cancel came first (3.12) or one is attached already (2.5)."""
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        if _sched_hook is not None:
            _sched_hook("attach.set", self)
        with self._lock:  # the check and the store are one step (no cancel in between)
            upstream = self._upstream
            if upstream is None:
                self._upstream = serial = SerialSubscription(subscription)  # rule 2.7
                n, self._early = self._early, 0
        if upstream is not None:
            subscription.cancel()  # rule 2.5: a second one; 3.12: cancelled before it came
            return False
        if n:
            serial.request(n)  # the demand asked before the set, once
        return True

    def request(self, n: int) -> None:
        upstream = self._upstream
        if upstream is None:
            if type(n) is not int or n <= 0:
                self._invalid(check_request(n) or f"rule 3.9: request({n!r})")
                return
            with self._lock:
                upstream = self._upstream
                if upstream is None:
                    self._early = add_demand(self._early, n)  # rule 3.17
                    return
        upstream.request(n)  # rule 3.9 after the set: upstream answers it

    def cancel(self) -> None:
        if _sched_hook is not None:
            _sched_hook("attach.cancel", self)
        with self._lock:
            upstream, self._upstream = self._upstream, GONE
        if upstream is not None:
            upstream.cancel()  # rule 3.12 (a no-op on GONE: rule 3.7)

    def release(self) -> None:
        """The subscription ended (a terminal signal arrived, rule 2.4): drop it without a
        cancel (rule 3.13); a later ``set`` is refused."""
        with self._lock:
            self._upstream = GONE

    def _invalid(self, message: str) -> None:
        on_invalid = self._on_invalid
        if on_invalid is None:
            raise ValueError(message)
        on_invalid(message)  # rule 3.9: at once, never at the set


class Slot(Generic[C]):
    """A replaceable handle (a timer), as Reactor's ``Disposables.swap``: ``swap`` holds
    the next one; after ``dispose`` any handle stored is cancelled at once (3.12, 3.13)."""

    __slots__ = ("_held", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: C | _Gone | None = None

    @property
    def disposed(self) -> bool:
        return self._held is GONE

    def claim(self, handle: C) -> bool:
        """Hold ``handle`` if the slot never held one (set once: a unicast group's one
        subscriber, rule 2.5 style); False, and ``handle`` left to the caller, otherwise."""
        if _sched_hook is not None:
            _sched_hook("attach.set", self)
        with self._lock:  # the check and the store are one step
            free = self._held is None
            if free:
                self._held = handle
        return free

    def swap(self, handle: C | None) -> bool:
        """Hold ``handle`` instead (the former one is not cancelled: it fired, or is the
        caller's); False, and ``handle`` cancelled, when the slot was disposed first."""
        if _sched_hook is not None:
            _sched_hook("attach.set", self)
        with self._lock:
            gone = self._held is GONE
            if not gone:
                self._held = handle
        if gone and handle is not None:
            handle.cancel()  # rule 3.12: cancelled before it was stored
        return not gone

    def dispose(self) -> None:
        """Cancel the handle held, and every one stored later (rules 3.12, 3.13)."""
        if _sched_hook is not None:
            _sched_hook("attach.cancel", self)
        with self._lock:
            held, self._held = self._held, GONE
        if held is not None:
            held.cancel()
