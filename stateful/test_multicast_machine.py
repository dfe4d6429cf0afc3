"""State machine for publish(): subscribers arrive, request, cancel; the source emits,
completes, fails; connect/disconnect; Hypothesis picks which pending drain task runs,
and whether the connection is lockstep or ``lead=1..3`` (spec/MulticastLead.tla).

The invariants apply the Python twins of spec/Multicast.tla
(``reactive_streams.trace.invariants.multicast``): ``upstream_leq_min_demand_plus_buffer_inv``,
``spec101_delivered_leq_requested_inv``, ``buffer_bounded_inv`` after every step, and
``leave_releases_pressure_prop`` whenever the executor is quiescent (a subscriber with
demand is never held back by one that left). With a lead: ``lead_held_bounded_inv``,
the fastest at most ``lead`` ahead of the slowest, ``lead_in_order_inv`` (each subscriber
gets consecutive elements: an overwritten slot breaks it) after every step, and
``lead_delivers_prop`` at rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from reactive_streams import MAX_DEMAND
from reactive_streams.api import Subscriber
from reactive_streams.executors import ManualExecutor
from reactive_streams.multicast import (
    ConnectableFlow,
    DisconnectedError,
    LeadConnection,
    OnDisconnect,
    PublishConnection,
    publish,
)
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.invariants import multicast as twin

B = 3  # buffer_size
Conn = PublishConnection[int] | LeadConnection[int]
MAX_SUBSCRIBERS = 3
MAX_ELEMENTS = 30


@dataclass
class Upstream:
    """One subscription of the connection to the source, driven by the machine."""

    subscriber: Subscriber[int]
    requested: int = 0
    sent: int = 0
    cancelled: bool = False
    ended: bool = False
    first: int = 1  # the value of its first element (the source counts on across runs)

    def request(self, n: int) -> None:
        assert n > 0, f"rule 3.9 broken by the connection: request({n})"
        assert not self.cancelled, "rule 3.6: request after cancel"
        self.requested = min(self.requested + n, MAX_DEMAND)

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class Source:
    links: list[Upstream] = field(default_factory=list)

    def subscribe(self, subscriber: Subscriber[int]) -> None:
        link = Upstream(subscriber)
        self.links.append(link)
        subscriber.on_subscribe(link)


@dataclass
class Child:
    ts: TestSubscriber[int]
    conn: Conn


class MulticastMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.manual = ManualExecutor()
        self.source = Source()
        self.flow: ConnectableFlow[int] | None = None
        self.children: list[Child] = []
        self.upstream: dict[int, Upstream] = {}  # id(connection) -> its source link
        self.next_item = 0
        self.conns: list[Conn] = []
        self.lead: int | None = None

    @initialize(
        strategy=st.sampled_from(["error", "complete", "none"]),
        lead=st.sampled_from([None, 1, 2, 3]),
        early=st.sampled_from([0, 2, 3]),
        fast=st.sampled_from([0, 4]),
    )
    def setup(self, strategy: OnDisconnect, lead: int | None, early: int, fast: int) -> None:
        self.strategy = strategy
        self.lead = lead
        if lead is None:
            self.flow = publish(self.source, B, strategy, executor=self.manual, batch_size=2)
        else:
            self.flow = publish(
                self.source, on_disconnect=strategy, executor=self.manual, batch_size=2, lead=lead
            )
        if early:  # subscribers from the start, connected: the steps go to their paces
            for _ in range(early):
                self.arrive()
            self.connect()
            self.manual.run_all(10_000)
            if fast:  # the first runs ahead of the others: the lead is what holds it
                self.children[0].ts.request(fast)

    # ------------------------------------------------------------ helpers
    def _flow(self) -> ConnectableFlow[int]:
        assert self.flow is not None
        return self.flow

    def _current(self) -> Conn:
        conn = self._flow().connection
        assert isinstance(conn, PublishConnection | LeadConnection)
        return conn

    @staticmethod
    def _active(child: Child) -> bool:
        ts = child.ts
        return ts.subscription is not None and not ts.terminated and not getattr(ts, "left", False)

    @staticmethod
    def _outstanding(ts: TestSubscriber[int]) -> int:
        return MAX_DEMAND if ts.requested == MAX_DEMAND else ts.requested - len(ts.values)

    def _link(self, conn: Conn) -> Upstream | None:
        return self.upstream.get(id(conn))

    # ------------------------------------------------------------ subscribers
    @precondition(lambda self: len(self.children) < MAX_SUBSCRIBERS)
    @rule()
    def arrive(self) -> None:
        conn = self._current()
        ts: TestSubscriber[int] = TestSubscriber()
        self._flow().subscribe(ts)
        self.children.append(Child(ts, conn))

    @rule(i=st.integers(0, MAX_SUBSCRIBERS - 1), n=st.sampled_from([1, 2, 3, MAX_DEMAND]))
    def request(self, i: int, n: int) -> None:
        if i < len(self.children) and self._active(self.children[i]):
            self.children[i].ts.request(n)

    @rule(i=st.integers(0, MAX_SUBSCRIBERS - 1))
    def leave(self, i: int) -> None:
        if i < len(self.children) and self.children[i].ts.subscription is not None:
            ts = self.children[i].ts
            ts.left = True  # type: ignore[attr-defined]
            ts.cancel()

    # ------------------------------------------------------------ source
    def _live_link(self) -> Upstream | None:
        link = self._link(self._current())
        if link is None or link.cancelled or link.ended:
            return None
        return link

    def _owed(self) -> bool:
        """The source may emit: its live link was asked for more than it sent."""
        link = self._live_link()
        return link is not None and link.sent < link.requested and self.next_item < MAX_ELEMENTS

    @precondition(lambda self: self._owed())  # drawn only when it sends: elements flow
    @rule()
    def emit(self) -> None:
        link = self._live_link()
        if link is not None and self._owed():
            link.sent += 1
            self.next_item += 1
            link.subscriber.on_next(self.next_item)

    @rule(fail=st.booleans())
    def source_ends(self, fail: bool) -> None:
        link = self._live_link()
        if link is not None:
            link.ended = True
            if fail:
                link.subscriber.on_error(RuntimeError("source failed"))
            else:
                link.subscriber.on_complete()

    # ------------------------------------------------------------ connection
    @rule()
    def connect(self) -> None:
        before = len(self.source.links)
        conn = self._flow().connect()
        assert isinstance(conn, PublishConnection | LeadConnection)
        if len(self.source.links) > before:  # a new run subscribed to the source
            self.upstream[id(conn)] = self.source.links[-1]
            self.source.links[-1].first = self.next_item + 1
            self.conns.append(conn)

    @rule()
    def disconnect(self) -> None:
        conn = self._current()
        if conn.connected:
            conn.disconnect()

    # ------------------------------------------------------------ executor
    @precondition(lambda self: len(self.manual) > 0)
    @rule(data=st.data())
    def run_task(self, data: st.DataObject) -> None:
        self.manual.run(data.draw(st.integers(0, len(self.manual) - 1), label="task"))

    @rule()
    def flow_to_rest(self) -> None:
        """The source sends all it owes and the executor runs, until neither moves."""
        while True:
            tasks = len(self.manual)
            self.manual.run_all(10_000)
            if not self._owed():
                break
            self.emit()
            self.check_each()  # the invariants after every element, not only at the end
            if tasks == 0 and not self._owed() and len(self.manual) == 0:
                break
        self.leave_releases_pressure()

    @rule(i=st.integers(0, MAX_SUBSCRIBERS - 1), n=st.sampled_from([1, 2]))
    def step(self, i: int, n: int) -> None:
        """One subscriber asks a little more, and all flows to rest (a slow one's pace)."""
        self.request(i, n)
        self.flow_to_rest()

    def check_each(self) -> None:
        self.delivered_leq_requested()
        self.lead_bounds()

    @rule()
    def quiesce(self) -> None:
        self.manual.run_all(10_000)
        self.leave_releases_pressure()

    # ------------------------------------------------------------ invariants
    def _connections(self) -> set[Conn]:
        conns: set[Conn] = {c.conn for c in self.children}
        conns.add(self._current())
        return conns | set(self.conns)

    @invariant()
    def delivered_leq_requested(self) -> None:
        for child in self.children:
            ts = child.ts
            assert twin.spec101_delivered_leq_requested_inv(len(ts.values), ts.requested), ts
            assert not ts.violations, ts.violations

    @invariant()
    def upstream_leq_min_demand_plus_buffer(self) -> None:
        if self.lead is not None:
            return  # the lead's bound: lead_bounds
        for conn in self._connections():
            link = self._link(conn)
            if link is None:
                continue
            assert conn.upstream_requested == link.requested
            outstanding = [self._outstanding(c.ts) for c in self.children if c.conn is conn]
            active = [
                self._outstanding(c.ts) for c in self.children if c.conn is conn and self._active(c)
            ]
            min_demand = min(active) if active else 0
            assert twin.upstream_leq_min_demand_plus_buffer_inv(
                link.requested, conn.taken, min_demand, B
            ), (link, conn.taken, outstanding)

    @invariant()
    def buffer_bounded(self) -> None:
        for conn in self._connections():
            assert twin.buffer_bounded_inv(conn.buffered, self.lead or B), conn.buffered

    @invariant()
    def lead_bounds(self) -> None:
        """The ring holds at most ``lead``; the source is asked for no slot the slowest
        holds; the fastest is at most ``lead`` ahead; each subscriber's elements are
        consecutive (an overwritten slot read, or one skipped, breaks it)."""
        lead = self.lead
        if lead is None:
            return
        for conn in self._connections():
            assert isinstance(conn, LeadConnection)
            assert twin.lead_held_bounded_inv(conn.buffered, lead), conn.buffered
            link = self._link(conn)
            if link is not None and not link.cancelled:
                assert link.requested - conn.taken <= lead, (link, conn.taken)
            cursors = conn.cursors()
            assert not cursors or max(cursors) - min(cursors) <= lead, cursors
        for child in self.children:
            values = child.ts.values
            assert not values or twin.lead_in_order_inv(values, values[0]), values
            assert isinstance(child.conn, LeadConnection)
            link, cursor = self._link(child.conn), child.conn.cursor_of(child.ts)
            if values and link is not None and cursor is not None:  # its slot, not a reused one
                assert values[-1] == link.first + cursor - 1, (values, cursor, link.first)

    def lead_delivers(self) -> None:
        """At rest: a subscriber with demand, within ``lead - max(1, lead // 2)`` of the slowest,
        has everything received and the source owes more (it is never starved)."""
        lead = self.lead
        assert lead is not None
        for conn in self._connections():
            assert isinstance(conn, LeadConnection)
            link = self._link(conn)
            if conn.disconnected or link is None or link.cancelled or link.ended:
                continue
            stored = conn.taken + conn.buffered
            cursors = conn.cursors()
            for child in self.children:
                cursor = conn.cursor_of(child.ts)
                if child.conn is not conn or not self._active(child) or cursor is None:
                    continue
                demand = self._outstanding(child.ts)
                assert twin.lead_delivers_prop(
                    demand, cursor, min(cursors), stored, link.requested, lead
                ), (demand, cursor, cursors, stored, link)

    def leave_releases_pressure(self) -> None:
        """Quiescent: nobody with demand waits behind a subscriber that left or never came."""
        assert len(self.manual) == 0
        if self.lead is not None:
            self.lead_delivers()
            return
        for conn in self._connections():
            if conn.disconnected:
                continue
            active = [
                self._outstanding(c.ts) for c in self.children if c.conn is conn and self._active(c)
            ]
            assert twin.leave_releases_pressure_prop(conn.buffered, active), (
                f"{conn.buffered} buffered, active demands {active}: nothing flows "
                "(no subscriber, or every one has demand)"
            )

    @invariant()
    def disconnect_strategy_inv(self) -> None:
        if len(self.manual):
            return
        for child in self.children:
            conn = child.conn
            if not conn.disconnected or child.ts.subscription is None:
                continue
            if getattr(child.ts, "left", False):
                continue
            errors = child.ts.errors
            if self.strategy == "error":
                assert child.ts.terminated, child.ts  # nobody is left hanging
            else:
                assert not any(isinstance(e, DisconnectedError) for e in errors)


MulticastMachine.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestMulticastMachine = MulticastMachine.TestCase
