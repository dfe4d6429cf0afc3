"""The connectable publisher inside a ``ConnectableFlow`` (``_Hub``: starts its source on
``connect()``), and the plain publishers of ``ref_count()`` and ``auto_connect(n)``.
``flow.py`` wraps them in ``ConnectableFlow``/``RefCountFlow``/``Flow``; nothing here
imports ``flow`` (no import circle). A connection is reached only through the seam of
``_connection`` (``join``, ``kick``, ``has_ended``, ``claim``, ``start``, ``detach``); it
knows its hub only as the ``forget`` callback it was built with (no circle of types).

Subscribers join the *current* connection. ``connect()`` starts it (idempotent while
it runs) and returns it; ``Connection.disconnect()`` ends it and installs a fresh one,
so subscribers arriving afterwards wait for the next ``connect()``. After the source
has ended on its own, the ended connection stays current (late subscribers receive its
terminal signal, replay's children its replay first) until ``connect()`` starts anew.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._connection import Child, Connection, Forget, claim, detach, has_ended, join, kick, start

if TYPE_CHECKING:
    from ..api import Subscriber

__all__: list[str] = []  # wrapped by flow.py's ConnectableFlow and RefCountFlow

T = TypeVar("T")


class _Hub(Generic[T]):
    """The Publisher inside a ``ConnectableFlow``: holds the current connection."""

    def __init__(self, new_connection: Callable[[Forget], Connection[T]], name: str) -> None:
        self._new_connection = new_connection
        self._name = name
        self._lock = threading.Lock()
        self._current = new_connection(self._forget)

    def __repr__(self) -> str:
        return f"<{self._name}>"

    def subscribe(self, subscriber: Subscriber[T], counter: _RefCount[T] | None = None) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        with self._lock:
            conn = self._current
            if counter is None:
                join(conn, Child(conn, subscriber, self._name))
            else:
                join(conn, _Counted(conn, subscriber, counter))
        kick(conn)  # on_subscribe is delivered by the connection's drain

    def _acquire(self) -> tuple[Connection[T], bool]:
        """The connection to start (a fresh one after the source ended), without starting it."""
        with self._lock:
            conn = self._current
            if has_ended(conn):
                conn = self._new_connection(self._forget)
                self._current = conn
            first = claim(conn)
        return conn, first

    def _forget(self, conn: Connection[Any]) -> None:
        """``conn`` was disconnected: newcomers join a fresh connection."""
        with self._lock:
            if self._current is conn:
                self._current = self._new_connection(self._forget)

    def current(self) -> Connection[T]:
        """The connection new subscribers join (not necessarily connected yet)."""
        with self._lock:
            return self._current

    def connect(self) -> Connection[T]:
        """Start the current connection (if not started) and return it."""
        conn, first = self._acquire()
        if first:
            start(conn)
        return conn


class _AutoConnect(Generic[T]):
    """Subscribers join the connectable; the ``n``-th one connects it."""

    def __init__(self, hub: _Hub[T], n: int) -> None:
        self._hub = hub
        self._lock = threading.Lock()
        self._left = n

    def __repr__(self) -> str:
        return f"<auto_connect of {self._hub!r}>"

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        self._hub.subscribe(subscriber)  # joins before a connect: misses nothing
        with self._lock:
            self._left -= 1
            connect = self._left == 0
        if connect:
            self._hub.connect()


class _RefCount(Generic[T]):
    """Connects the hub when the subscriber count goes 0 -> 1, disconnects at 1 -> 0."""

    def __init__(self, hub: _Hub[T]) -> None:
        self._hub = hub
        self._lock = threading.Lock()
        self._count = 0
        self._connection: Connection[T] | None = None

    def __repr__(self) -> str:
        return f"<ref_count of {self._hub!r}>"

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(subscriber) requires a Subscriber, got None")
        first = False
        with self._lock:
            self._count += 1
            if self._count == 1:
                conn, first = self._hub._acquire()  # no user code runs here
                self._connection = conn
            else:
                conn = None
        # subscribe before starting, so the first subscriber misses nothing
        self._hub.subscribe(subscriber, self)
        if first and conn is not None:
            start(conn)

    def _release(self, child: _Counted[T], wake: bool) -> Connection[T] | None:
        """Uncount ``child`` (once); after the last, detach the connection and return it
        (its drain cancels the source: at once with ``wake``, else the caller kicks)."""
        with self._lock:
            if not child._counted:
                return None
            child._counted = False
            self._count -= 1
            if self._count != 0:
                return None
            conn, self._connection = self._connection, None
            # detached under the lock: a subscriber arriving next gets a fresh connection
            if conn is None or not detach(conn):
                return None
        if wake:
            kick(conn)
        return conn

    def count(self) -> int:
        """Subscribers counted now."""
        with self._lock:
            return self._count


class _Counted(Child[T]):
    """A child of a ``ref_count()`` flow: its end (terminal signal, cancel, fault) uncounts it
    once; the core ``Downstream`` tells which comes first."""

    __slots__ = ("_counted", "_counter", "_leaving", "_wake_due")

    def __init__(self, conn: Connection[T], subscriber: Subscriber[T], counter: _RefCount[T]):
        super().__init__(conn, subscriber, "ref_count")
        self._counter = counter
        self._counted = True  # written under the counter's lock
        self._leaving = False  # inside our own cancel, before the detach
        self._wake_due = False  # the cancel took the drain: it runs after the detach

    def _uncount(self, wake: bool) -> Connection[T] | None:
        return self._counter._release(self, wake)

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None) -> None:
        # the cancel is received first: the disconnect the last subscriber causes never
        # signals that subscriber (no DisconnectedError from its own cancel, rules 1.8,
        # 3.12); the drain it wakes runs after the detach, so it cancels the source
        # instead of pulling more for nobody (rule 3.5)
        self._leaving = True
        try:
            super()._cancel(fault)
        finally:
            self._leaving = False
        conn = self._uncount(wake=False)
        if self._wake_due:
            self._wake_due = False
            super()._wake(True)  # the drain, as a cancel: it never pumps (rule 3.5)
        if conn is not None:
            kick(conn)

    def _wake(self, cancel: bool) -> None:
        if cancel and self._leaving:
            self._wake_due = True  # run by ``_cancel`` once the connection is detached
            return
        super()._wake(cancel)

    def _released(self) -> None:
        super()._released()
        self._uncount(wake=True)
