"""The machinery shared by ``publish`` and ``replay``: one connection to the source, many children.

A :class:`Connection` is a :class:`~reactive_streams._core.serial.DrainLoop`. Every event
(a child arrives, requests, cancels; the source signals; ``disconnect``) first records
itself and then enters the drain. Only the drainer calls the children's ``on_*`` methods
and the upstream ``request``/``cancel``: signals to each child are serial (rule 1.3) and
calls on the upstream subscription are serial (rule 2.7). A ``request`` made from inside
``on_next`` finds the loop busy and returns at once (rule 3.3).

One call is not the drain's: a synchronous source emits inside the drain's ``request``,
so a disconnect (or ref_count's last cancel) recorded meanwhile cannot wait for the
drain. The source's next element finds the connection disconnected and cancels it from
inside that emission (``_late``), the relays' rule: the upstream is a
``SerialSubscription``, whose ``cancel`` on the emitting thread goes through at once
(rule 3.12) and from any other thread is queued behind the call in flight (rule 2.7).

With an executor the drain runs as tasks on it, at most ``batch_size`` elements per task
in all (the drain loop's budget, shared by the children); without one it runs on
whichever thread brought the work.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from .._core.demand import add_demand
from .._core.downstream import ACTIVE, DONE, Downstream, Pub
from .._core.serial import DrainLoop, SerialSubscription
from ..executors import Executor, as_executor, default_executor

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber, Subscription

__all__ = [
    "DISCONNECT_STRATEGIES",
    "Child",
    "Connection",
    "DisconnectedError",
    "Forget",
    "OnDisconnect",
    "claim",
    "detach",
    "has_ended",
    "join",
    "kick",
    "start",
]

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")

OnDisconnect = Literal["error", "complete", "none"]
DISCONNECT_STRATEGIES: tuple[OnDisconnect, ...] = ("error", "complete", "none")


class DisconnectedError(Exception):
    """What subscribers of a disconnected connection get with ``on_disconnect="error"``."""


class Child(Downstream[T]):
    """The Subscription handed to one subscriber of a connection (one per ``subscribe``):
    the core ``Downstream``, bound to the connection's lock and drain."""

    __slots__ = ("_conn", "cursor", "node", "pin", "total")

    def __init__(self, conn: Connection[T], subscriber: Subscriber[T], hop: str) -> None:
        super().__init__(subscriber, hop)
        self._lock = conn._lock  # the connection's drain reads every child under it
        self._conn = conn
        self.total = 0  # everything ever requested, saturating (replay's coordination)
        self.pin = 0  # replay: index of the element before this child's first one
        self.node: Any = None  # replay: the last buffer node delivered (or the pinned head)
        self.cursor = 0  # publish(lead=N): index of the next element this child receives

    def __repr__(self) -> str:
        return f"<multicast subscription {self._sid or hex(id(self))}>"

    def _work(self) -> bool:
        conn = self._conn
        wip = conn._wip
        conn._wip = wip + 1
        return wip == 0

    def _wake(self, cancel: bool) -> None:
        self._conn._start_drain(pump=not cancel)  # a cancel never pumps here (rule 3.5)

    def _receive_request(self, n: Any, message: str | None) -> None:
        super()._receive_request(n, message)
        if message is None:
            self.total = add_demand(self.total, int(n))

    def _released(self) -> None:
        self.node = None  # rule 3.13

    deliver_terminal = Downstream._finish

    # ------------------------------------------------- signals (drain thread only)
    @property
    def active(self) -> bool:
        """May receive elements: subscribed, not ended, no invalid request (rule 3.9)."""
        return self._pub is ACTIVE and self._bad is None

    @property
    def ended(self) -> bool:
        """Terminated, cancelled or dropped: the connection forgets it."""
        return self._pub in DONE

    @property
    def requested(self) -> int:
        return self._requested

    def deliver_next(self, item: T) -> bool:
        """Call ``on_next`` (demand is taken by the caller); False if the child is gone."""
        downstream = self._downstream
        if downstream is None or self._stopped():
            return False
        return self._send(downstream, item)  # the core's one send (rule 2.13)

    take = Downstream._delivered

    def drop(self) -> None:
        """``on_disconnect="none"``: forget the child without a signal."""
        with self._lock:
            if self._pub not in DONE:
                self._pub = Pub.CANCELLED
            self._downstream = None  # rule 3.13
        self.node = None


class _SourceSubscriber(Generic[T]):
    """What the connection subscribes to the source with; forwards to the connection."""

    __slots__ = ("_conn",)

    def __init__(self, conn: Connection[T]) -> None:
        self._conn = conn

    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        self._conn._upstream_subscribe(subscription)

    def on_next(self, item: T) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        self._conn._upstream_next(item)

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._conn._upstream_terminal(error)

    def on_complete(self) -> None:
        self._conn._upstream_terminal(None)


class Connection(DrainLoop, Generic[T]):
    """One connection of a :class:`~reactive_streams.multicast.ConnectableFlow` to its source.

    Returned by ``connect()``: ``disconnect()`` cancels the source and treats the
    subscribers by the flow's ``on_disconnect`` strategy. Usable as a context manager.
    """

    def __init__(
        self,
        forget: Forget,
        source: Publisher[T],
        on_disconnect: OnDisconnect,
        executor: Executor | None,
        batch_size: int,
    ) -> None:
        super().__init__(as_executor(executor) if executor is not None else None, batch_size)
        self._forget = forget
        self._source = source
        self._on_disconnect = on_disconnect
        self._pending: deque[Child[T]] = deque()  # arrived, on_subscribe not yet delivered
        self._children: list[Child[T]] = []  # drain thread only
        self._upstream: Subscription | None = None
        self._upstream_requested = 0  # total requested from the source (saturating)
        self._received = 0  # elements received from the source
        self._connected = False
        self._disconnect_requested = False
        self._disconnect_handled = False
        self._done = False  # the source (or a disconnect) ended the stream
        self._error: BaseException | None = None
        self._cut_ahead = False  # the error overtakes buffered elements
        self._pump_budget = -1  # elements a cancel's drain may still request (-1: any)
        self._pump_due = False  # a cancel's drain left the source's demand to top up

    # ------------------------------------------------------------------ public
    @property
    def connected(self) -> bool:
        """``connect()`` started this connection."""
        return self._connected

    @property
    def disconnected(self) -> bool:
        """``disconnect()`` was called."""
        return self._disconnect_requested

    @property
    def upstream_requested(self) -> int:
        """Total demand signalled to the source so far (``MAX_DEMAND`` = unbounded)."""
        return self._upstream_requested

    @property
    def subscriber_count(self) -> int:
        """Children currently attached (arrived, not yet cancelled or terminated)."""
        with self._lock:
            return sum(1 for c in (*self._children, *self._pending) if not c.ended)

    def disconnect(self) -> None:
        """Cancel the source; the subscribers get an error, a completion or nothing.

        Idempotent. Subscribers arriving afterwards wait for the next ``connect()``.
        """
        if self._detach():
            self._kick()

    def _detach(self) -> bool:
        """Mark the connection disconnected and let newcomers join a fresh one; False if
        it already was. The drain (``_kick``) then cancels the source."""
        with self._lock:
            if self._disconnect_requested:
                return False
            self._disconnect_requested = True
        self._forget(self)
        return True

    dispose = disconnect

    def __enter__(self) -> Connection[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disconnect()

    # ------------------------------------------------------- called by the flow
    def _add(self, child: Child[T]) -> None:
        self._pending.append(child)

    def _start(self) -> None:
        """Subscribe to the source (once, from ``connect``)."""
        try:
            self._source.subscribe(_SourceSubscriber(self))
        except Exception as exc:
            _log.exception("%r: the source's subscribe raised", self)
            self._upstream_terminal(exc)

    @property
    def _finished(self) -> bool:
        """The source's stream is over (a new ``connect()`` starts a new connection)."""
        return self._done and not self._disconnect_requested

    # ------------------------------------------------------------- drain entry
    def _kick(self) -> None:
        if self._enter():
            self._start_drain()

    def _start_drain(self, pump: bool = True) -> None:
        """We took ``_wip`` from 0. ``pump=False`` (a cancel): this thread requests at most
        ``batch_size`` elements from the source, which may emit synchronously for ever;
        the drain then moves to the shared pool and the cancel returns (rule 3.5)."""
        executor = self._executor
        if executor is None or not self._submit(executor):
            self._pump_budget = -1 if pump else self._batch
            self._drain()

    def _rejected(self, error: Exception) -> None:
        # the drain is ours and runs here from now on; it signals ``error`` to every child
        _log.error("%r: the executor rejected the drain task", self, exc_info=error)
        self._executor = None
        self._upstream_terminal_locked(error, cut_ahead=True)

    # ------------------------------------------------------------ upstream side
    def _upstream_subscribe(self, subscription: Subscription) -> None:
        with self._lock:
            duplicate = self._upstream is not None
            if not duplicate:
                # the drain's calls and a cancel from inside an emission are serial (2.7)
                self._upstream = SerialSubscription(subscription)
        if duplicate:
            subscription.cancel()  # rule 2.5
            return
        self._kick()

    def _upstream_next(self, item: T) -> None:
        if self._done or self._disconnect_requested:
            self._late()  # rule 2.8: ignored; the cancel takes effect now (3.12)
            return
        self._received += 1
        if self._received > self._upstream_requested:
            self._upstream_terminal(
                RuntimeError("rule 1.1: the source sent more elements than were requested")
            )
            return
        self._store(item)
        self._kick()

    def _late(self) -> None:
        """An element after the disconnect or the end: cancel the source from inside its
        emission, as a relay does (``Relay._late``), through the serial upstream."""
        upstream = self._upstream
        if upstream is not None:
            upstream.cancel()  # once (3.7); queued if the drain's call is in flight (2.7)

    def _upstream_terminal(self, error: BaseException | None) -> None:
        if self._upstream_terminal_locked(error):
            self._kick()

    def _upstream_terminal_locked(
        self, error: BaseException | None, cut_ahead: bool = False
    ) -> bool:
        with self._lock:
            if self._done:
                return False
            self._error = error
            self._done = True
            self._cut_ahead = cut_ahead
        return True

    def _control_upstream(self) -> None:
        """Drain thread: cancel the source after a disconnect, otherwise top up its demand."""
        upstream = self._upstream
        if self._disconnect_requested:
            if not self._disconnect_handled:
                self._disconnect_handled = True
                self._apply_disconnect()
            elif self._on_disconnect == "none":
                self._drop_all()  # one that joined while the disconnect was made: nothing
            if upstream is not None:
                # every subscription the source hands over after this is cancelled here
                # too (rule 2.5): none is kept by a disconnected connection
                self._upstream = None
                upstream.cancel()
            return
        if upstream is None or self._done:
            return
        n = self._upstream_demand()
        if n > 0 and self._pump_budget >= 0:
            if n > self._pump_budget:
                self._pump_due = True  # a cancel's drain: the rest runs elsewhere (rule 3.5)
                return
            self._pump_budget -= n
        if n > 0:
            self._upstream_requested = add_demand(self._upstream_requested, n)
            upstream.request(n)

    def _apply_disconnect(self) -> None:
        # A source that already ended but whose buffer is not drained is disconnected too.
        strategy = self._on_disconnect
        with self._lock:
            self._done = True
            if strategy == "error":
                self._error = DisconnectedError("disconnected")
                self._cut_ahead = True  # overtakes buffered elements and a pending completion
        if strategy == "none":
            self._drop_all()

    # ------------------------------------------------------------- drain rounds
    def _admit(self) -> None:
        """Deliver ``on_subscribe`` to the children that arrived (rule 1.9: first signal)."""
        pending = self._pending
        while pending:
            child = pending.popleft()
            self._children.append(child)
            self._joined(child)
            child._deliver_subscribe()

    def _prune(self) -> None:
        """Remove cancelled children (their demand no longer counts) and invalid requests."""
        keep: list[Child[T]] = []
        for child in self._children:
            if child.ended:
                child.node = None  # rule 3.13
            elif not child._answer_bad_request():  # rule 3.9 (a drain-side call)
                keep.append(child)
        self._children = keep

    def _drop_all(self) -> None:
        self._admit()
        for child in self._children:
            child.drop()
        self._children = []
        self._clear()

    def _terminate_all(self, error: BaseException | None) -> None:
        for child in self._children:
            if not child.ended:
                child.deliver_terminal(error)  # rule 3.9's error for an invalid request
        self._children = [c for c in self._children if not c.ended]

    def _drain_round(self) -> bool:
        self._admit()
        self._control_upstream()
        self._prune()
        self._emit()
        self._prune()
        self._control_upstream()
        if self._pump_due:
            # the cancel returns; the source is pumped on the shared pool, keeping the drain
            self._pump_due = False
            self._pump_budget = -1
            return self._submit(default_executor())
        return False

    # ------------------------------------------------------------- subclasses
    def _joined(self, child: Child[T]) -> None:
        """A child is admitted (before its ``on_subscribe``)."""

    def _store(self, item: T) -> None:
        raise NotImplementedError

    def _upstream_demand(self) -> int:
        raise NotImplementedError

    def _emit(self) -> None:
        """Deliver what the children may receive, at most ``_budget`` elements, and spend
        them (``_spend``): the drain loop re-schedules the task once the budget is spent."""
        raise NotImplementedError

    def _clear(self) -> None:
        """Drop buffered elements."""


# ------------------------------------------------ the seam to ConnectableFlow's hub
# What ``_connectable`` (the hub, ref_count, auto_connect) may do to a connection; the
# connection's own state stays private to this module.


#: what a connection calls once disconnected: its hub lets newcomers join a fresh one
#: (defined after Connection: an alias without a forward reference reads the same everywhere)
Forget = Callable[[Connection[Any]], None]


def join(conn: Connection[T], child: Child[T]) -> None:
    """Record an arriving child (the hub holds its lock); ``kick`` then admits it."""
    conn._add(child)


def kick(conn: Connection[T]) -> None:
    """Enter the drain: on_subscribe to newcomers, the source cancelled after a detach."""
    conn._kick()


def has_ended(conn: Connection[T]) -> bool:
    """The source's stream is over: the next ``connect()`` starts a new connection."""
    return conn._finished


def claim(conn: Connection[T]) -> bool:
    """Mark ``conn`` connected (the hub holds its lock); True the first time, when the
    caller must ``start`` it."""
    first = not conn._connected
    conn._connected = True
    return first


def start(conn: Connection[T]) -> None:
    """Subscribe ``conn`` to its source (once, after a ``claim`` that returned True)."""
    conn._start()


def detach(conn: Connection[T]) -> bool:
    """Disconnect ``conn`` without entering its drain (the caller ``kick``s); False if it
    already was."""
    return conn._detach()
