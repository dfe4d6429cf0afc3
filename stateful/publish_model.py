"""publish() seen through spec/Multicast.tla's variables: a driver and the abstraction.

``Harness`` runs one ``publish()`` connection over a hand-fired source (``Link``: its
``on_next``/``on_complete`` are fired by the driver) on a ``ManualExecutor``, with
probe subscribers ``1..k`` (the model's ``Subs``). ``abstract`` maps the real state to
the model's variables but the ghost ``joined`` (no implementation counterpart):

  st         absent | active | left (cancelled) | done (terminal received, or pending
             on a terminated connection) | dropped (``on_disconnect="none"``)
  demand     the child's outstanding demand (``Child.requested``; 2^63-1 -> Inf)
  requested  the probe's total requests; delivered: its ``on_next`` count
  upReq      what the source was asked for; upSent: what it sent
  taken      ``PublishConnection.taken``; the buffer must be the sent elements after it
  srcDone    the source completed, or ``disconnect()`` asked for completion
  disc       the strategy once ``disconnect()`` was called; term: the connection ended

A driver step is one model action of the environment (Arrive, Request, Leave, UpEmit,
UpComplete, Disconnect) or one executor task. A task is split into the model's internal
actions at the points where the connection's state is consistent: before and after every
upstream ``request`` (UpRequest), and at the task's end; between two such points, the
lockstep deliveries (one group of ``on_next`` per Dispatch), the elements that left the
buffer without one (Drop) and the connection's end (Complete) give the actions, each
followed through the model's graph and checked (a Dispatch reaches exactly the model's
active subscribers). ``StepError`` names the step that leaves the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reactive_streams import MAX_DEMAND
from reactive_streams._core.downstream import ACTIVE, DONE
from reactive_streams.executors import ManualExecutor
from reactive_streams.multicast import PublishConnection, publish
from reactive_streams.multicast._connection import Child

INF = 99  # the model's Inf (spec/models.toml: multicast_edges)
VARS = (
    "st",
    "demand",
    "requested",
    "delivered",
    "upReq",
    "upSent",
    "taken",
    "srcDone",
    "disc",
    "term",
)
Abstract = tuple[Any, ...]  # the values of VARS (per-subscriber ones as tuples)
Edge = tuple[Abstract, str, Abstract]


def project(state: Mapping[str, Any]) -> Abstract:
    """A TLC state of Multicast.tla without the ghost ``joined``."""
    return tuple(state[name] for name in VARS)


def view(state: Abstract) -> dict[str, Any]:
    return dict(zip(VARS, state, strict=True))


class StepError(AssertionError):
    """The implementation left the model's graph at a named step."""


class Probe:
    """A subscriber that records what it receives and tells the harness."""

    def __init__(self, harness: Harness, sub: int) -> None:
        self.harness = harness
        self.sub = sub
        self.subscription: Child[int] | None = None
        self.values: list[int] = []
        self.terminal: str | None = None
        self.total = 0  # everything requested (saturating)
        self.left = False

    def on_subscribe(self, subscription: Any) -> None:
        self.subscription = subscription

    def on_next(self, item: int) -> None:
        self.values.append(item)
        self.harness.log.append(("next", self.sub, item))

    def on_error(self, error: BaseException) -> None:
        self.terminal = f"error {type(error).__name__}"
        self.harness.log.append(("end", self.sub, 0))

    def on_complete(self) -> None:
        self.terminal = "complete"
        self.harness.log.append(("end", self.sub, 0))


@dataclass
class Link:
    """The source's subscription, fired by hand: records requests and cancels."""

    harness: Harness
    subscriber: Any = None
    requested: int = 0
    sent: int = 0
    completed: bool = False
    cancelled: bool = False

    def request(self, n: int) -> None:
        before = self.harness.state()
        self.requested = min(self.requested + n, MAX_DEMAND)
        self.harness.log.append(("up", before, self.harness.state()))

    def cancel(self) -> None:
        self.cancelled = True

    def subscribe(self, subscriber: Any) -> None:  # the source: one subscription
        self.subscriber = subscriber
        subscriber.on_subscribe(self)


@dataclass
class Harness:
    """One connected ``publish()`` over a hand-fired source, on a ManualExecutor."""

    subs: int
    elements: int
    buffer: int
    strategy: str = "error"
    sync: bool = False  # True: no executor, the drain runs inside each call
    batch: int = 1
    log: list[tuple[Any, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.manual = ManualExecutor()
        self.link = Link(self)
        flow = publish(
            self.link,
            self.buffer,
            self.strategy,  # type: ignore[arg-type]
            executor=None if self.sync else self.manual,
            batch_size=self.batch,
        )
        self.flow = flow
        self.probes: list[Probe | None] = [None] * self.subs
        self.initial = self.state_of(None)  # the model's Init: nothing connected yet
        conn = flow.connect()  # synchronous: the first drain round tops the source up
        assert isinstance(conn, PublishConnection)
        self.conn: PublishConnection[int] = conn

    # ------------------------------------------------------------ the abstraction
    def state(self) -> Abstract:
        """The model's variables (but ``joined``) of the real state; read-only."""
        return self.state_of(getattr(self, "conn", None))  # None: inside connect()

    def state_of(self, conn: PublishConnection[int] | None) -> Abstract:
        if conn is None:
            conn = self.flow.connection  # type: ignore[assignment]
            assert isinstance(conn, PublishConnection)
        term = conn._terminated
        st, demand, requested, delivered = [], [], [], []
        for probe in self.probes:
            if probe is None:
                st.append("absent")
                demand.append(0)
                requested.append(0)
                delivered.append(0)
                continue
            child = probe.subscription
            if probe.left:
                where = "left"
            elif probe.terminal is not None or (child is None and term):
                where = "done"
            elif child is None or child._pub is ACTIVE:
                where = "active"
            else:
                assert child._pub in DONE, child._pub
                where = "dropped"
            st.append(where)
            d = 0 if child is None else child.requested
            demand.append(INF if d == MAX_DEMAND else d)
            requested.append(INF if probe.total == MAX_DEMAND else probe.total)
            delivered.append(len(probe.values))
            first = probe.values[0] if probe.values else 0
            if probe.values != list(range(first, first + len(probe.values))):
                raise StepError(f"subscriber {probe.sub} skipped an element: {probe.values}")
        link = self.link
        buffered = list(conn._queue)
        if buffered != list(range(conn.taken + 1, link.sent + 1)):
            raise StepError(
                f"the buffer holds {buffered}, not the elements sent after the "
                f"{conn.taken} taken (of {link.sent} sent)"
            )
        return (
            tuple(st),
            tuple(demand),
            tuple(requested),
            tuple(delivered),
            INF if link.requested == MAX_DEMAND else link.requested,
            link.sent,
            conn.taken,
            link.completed or (conn.disconnected and self.strategy == "complete"),
            self.strategy if conn.disconnected else "no",
            term,
        )

    # ------------------------------------------------------------ the environment
    def probe(self, sub: int) -> Probe:
        probe = self.probes[sub - 1]
        assert probe is not None, f"subscriber {sub} has not arrived"
        return probe

    def arrive(self, sub: int) -> None:
        probe = Probe(self, sub)
        self.probes[sub - 1] = probe
        self.flow.subscribe(probe)

    def request(self, sub: int, n: int) -> None:
        probe = self.probe(sub)
        assert probe.subscription is not None
        probe.total = min(probe.total + n, MAX_DEMAND)
        probe.subscription.request(n)

    def leave(self, sub: int) -> None:
        probe = self.probe(sub)
        assert probe.subscription is not None
        probe.left = True
        probe.subscription.cancel()

    def emit(self) -> None:
        self.link.sent += 1
        self.link.subscriber.on_next(self.link.sent)

    def complete(self) -> None:
        self.link.completed = True
        self.link.subscriber.on_complete()

    def disconnect(self) -> None:
        self.conn.disconnect()


# ---------------------------------------------------------------------- driving

Succ = Mapping[tuple[Abstract, str], frozenset[Abstract]]


def successors(edges: frozenset[Edge]) -> dict[tuple[Abstract, str], frozenset[Abstract]]:
    out: dict[tuple[Abstract, str], set[Abstract]] = {}
    for a, action, b in edges:
        out.setdefault((a, action), set()).add(b)
    return {k: frozenset(v) for k, v in out.items()}


ENVIRONMENT: dict[str, Callable[[Harness, list[int]], None]] = {
    "Arrive": lambda h, a: h.arrive(a[0]),
    "Request": lambda h, a: h.request(a[0], a[1]),
    "RequestUnbounded": lambda h, a: h.request(a[0], MAX_DEMAND),
    "Leave": lambda h, a: h.leave(a[0]),
    "UpEmit": lambda h, a: h.emit(),
    "UpComplete": lambda h, a: h.complete(),
    "Disconnect": lambda h, a: h.disconnect(),
}


def commands(h: Harness, state: Abstract, max_req: int) -> list[str]:
    """The driver steps enabled in ``state`` (the model's guards, and a subscriber must
    have its Subscription to call it); ``task`` runs the oldest executor task."""
    v = view(state)
    out: list[str] = []
    for i, where in enumerate(v["st"], 1):
        if where == "absent" and v["disc"] == "no":
            out.append(f"Arrive {i}")
        probe = h.probes[i - 1]
        if where != "active" or probe is None or probe.subscription is None:
            continue
        out.append(f"Leave {i}")
        if v["requested"][i - 1] != INF:
            out.append(f"RequestUnbounded {i}")
            out.extend(
                f"Request {i} {n}"
                for n in range(1, max_req + 1)
                if v["requested"][i - 1] + n <= max_req
            )
    live = v["disc"] == "no" and not v["srcDone"]
    if live and v["upSent"] < v["upReq"] and v["upSent"] < h.elements:
        out.append("UpEmit")
    if live and v["upSent"] == h.elements:
        out.append("UpComplete")
    if v["disc"] == "no" and not v["term"]:
        out.append("Disconnect")
    if len(h.manual):
        out.append("task")
    return out


def opening(h: Harness, succ: Succ) -> list[Edge]:
    """The edges of ``connect()`` from the model's Init (synchronous: the first top-up)."""
    out = _task_edges(h, h.initial, succ)
    h.log = []
    return out


def step(h: Harness, command: str, succ: Succ) -> list[Edge]:
    """Run one driver step; its model edges (the environment's action, then what the
    drain did inside the call, if synchronous), each checked against the graph."""
    before = h.state()
    h.log = []
    action, *args = command.split()
    if action == "task":
        h.manual.run_next()
        return _task_edges(h, before, succ)
    ENVIRONMENT[action](h, [int(a) for a in args])
    if action == "Disconnect" and h.strategy != "complete":
        # the model's Disconnect is atomic: the driver lets the drain apply it (no
        # other step in between); it only ends the children, nothing else moves
        h.manual.run_all(1_000)
        extra = [e for e in h.log if e[0] != "end"]
        if extra:
            raise StepError(f"Disconnect: the drain did more than disconnect: {extra}")
    after = _environment(before, command, succ)
    return [(before, action, after), *_task_edges(h, after, succ)]


def _environment(before: Abstract, command: str, succ: Succ) -> Abstract:
    """The model's state after the environment's ``command`` (its arguments pick it)."""
    action, *args = command.split()
    found = set(succ.get((before, action), ()))
    if args:
        i, n = int(args[0]) - 1, [int(a) for a in args[1:]]
        u = view(before)
        for after in list(found):
            v = view(after)
            others = [(u[x][:i] + u[x][i + 1 :], v[x][:i] + v[x][i + 1 :]) for x in VARS[:3]]
            if any(a != b for a, b in others) or (
                n and v["requested"][i] != u["requested"][i] + n[0]
            ):
                found.discard(after)
    if len(found) != 1:
        raise StepError(f"{command}: from {before} the model reaches {sorted(found)[:3]}")
    return next(iter(found))


def _task_edges(h: Harness, start: Abstract, succ: Succ) -> list[Edge]:
    out: list[Edge] = []
    here = start
    signals: list[tuple[Any, ...]] = []
    for entry in [*h.log, ("up", h.state(), None)]:
        if entry[0] != "up":
            signals.append(entry)
            continue
        here = _internal(here, signals, entry[1], succ, out)
        signals = []
        if entry[2] is not None:
            edge = (here, "UpRequest", entry[2])
            if entry[2] not in succ.get((here, "UpRequest"), ()):
                raise StepError(f"UpRequest: {here} -> {entry[2]} is not an edge of the model")
            out.append(edge)
            here = entry[2]
    return out


def _internal(
    here: Abstract, signals: Sequence[tuple[Any, ...]], there: Abstract, succ: Succ, out: list[Edge]
) -> Abstract:
    """The Drops, Dispatches and Complete between two consistent points of one task."""
    groups: list[tuple[int, set[int]]] = []
    for kind, sub, item in signals:
        if kind == "next":
            if groups and groups[-1][0] == item:
                groups[-1][1].add(sub)
            else:
                groups.append((item, {sub}))
    drops = view(there)["taken"] - view(here)["taken"] - len(groups)
    actions = ["Drop"] * drops + ["Dispatch"] * len(groups)
    if view(there)["term"] and not view(here)["term"]:
        actions.append("Complete")
    g = iter(groups)
    for action in actions:
        nxt = succ.get((here, action), frozenset())
        if len(nxt) != 1:
            raise StepError(
                f"{action} from {here}: the model reaches {sorted(nxt, key=repr)[:3]} "
                f"(publish() reached {there})"
            )
        if action == "Dispatch":
            item, got = next(g)
            active = {i for i, s in enumerate(view(here)["st"], 1) if s == "active"}
            if got != active:
                raise StepError(f"Dispatch of {item} reached {got}, the model's active {active}")
        (after,) = nxt
        out.append((here, action, after))
        here = after
    if here != there:
        raise StepError(f"the model reaches {here} by {actions}, publish() {there}")
    return here
