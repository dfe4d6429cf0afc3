"""Tests generated from the model: every edge of small Multicast.tla graphs that
``publish()`` can take by design, driven through it (issue 27, item 2).

The models are ``CONFIGS`` (spec/models.toml: subscribers 1 and 2, each
``on_disconnect`` strategy), each driven through a ``ManualExecutor`` and without an
executor. Their edges are TLC's, modulo the ghost ``joined`` (``stateful/publish_model.py``
has the driver and the abstraction). ``multicast_edges.json`` beside this file holds walks
of driver steps that together take every edge reachable without the steps of the mode's ``DESIGN``
rules, each with a digest of its path; the test runs them (a step that leaves the
model's graph names the run, the step and the edge), then checks that they take exactly
those edges, and how many each rule excludes. ``RS_GENERATE_EDGES=1`` regenerates the
file: a breadth-first search of every driver step from every state the implementation
reaches, then walks covering its edges (``edge_paths.walk_cover``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from stateful.publish_model import (
    Abstract,
    Edge,
    Harness,
    Link,
    StepError,
    Succ,
    commands,
    opening,
    project,
    step,
    successors,
    view,
)

import spec_scripts
from spec_scripts import JAR, SPEC_DIR

ep = spec_scripts.load("edge_paths", "spec_edge_paths")
RUNS = Path(__file__).resolve().parent / "multicast_edges.json"


@dataclass(frozen=True)
class Config:
    """A model of spec/models.toml and its constants (Subs = 1..subs, N, B, MaxReq)."""

    name: str
    strategy: str  # on_disconnect
    subs: int
    elements: int
    buffer: int
    max_req: int

    @property
    def limit(self) -> int:
        return max(1, self.buffer - (self.buffer >> 2))  # PublishConnection._limit


CONFIGS = (
    Config("multicast_edges", "error", 2, 3, 2, 2),
    Config("multicast_edges_complete", "complete", 2, 2, 1, 1),
    Config("multicast_edges_none", "none", 2, 2, 1, 1),
)
needs_tlc = pytest.mark.skipif(
    shutil.which("java") is None or not JAR.is_file(), reason="TLC needs Java and the jar"
)


@dataclass(frozen=True)
class Model:
    cfg: Config
    sync: bool
    edges: frozenset[Edge]
    succ: Succ
    init: Abstract
    design: frozenset[Edge]  # reachable without the steps of the mode's DESIGN rules
    alone: dict[str, frozenset[Edge]]  # the same, for each rule alone

    @property
    def mode(self) -> str:
        return "sync" if self.sync else "async"

    @property
    def label(self) -> str:
        return f"{self.cfg.name} {self.mode}"


def _initial(state: dict[str, Any]) -> bool:
    return set(state["st"]) == {"absent"} and state["upReq"] == 0 and state["disc"] == "no"


@functools.cache
def _graph_edges(name: str) -> tuple[frozenset[Edge], Abstract]:
    """TLC's graph of a model without ``joined`` (cached in build/ by the specs' contents)."""

    def build() -> tuple[frozenset[Edge], Abstract]:
        graph = ep.coverage_module().dump_dot(name, SPEC_DIR / "models.toml", JAR, 300)
        return ep.quotient(graph, project, _initial)  # type: ignore[no-any-return]

    edges, init = ep.cached(name, build)
    return edges, init


@functools.cache
def _model(cfg: Config, sync: bool) -> Model:
    edges, init = _graph_edges(cfg.name)
    succ = successors(edges)
    rules = {name: _never(name, succ, cfg) for name in rules_of(sync)}
    broken = {e: {name for name, rule in rules.items() if rule(e)} for e in edges}
    design = ep.reachable_edges(edges, init, lambda e: bool(broken[e]))
    alone = {
        name: ep.reachable_edges(edges, init, lambda e, n=name: n in broken[e]) for name in rules
    }
    return Model(cfg, sync, edges, succ, init, design, alone)


@pytest.fixture(
    scope="session",
    params=[(c, s) for c in CONFIGS for s in (False, True)],
    ids=[f"{c.strategy}-{m}" for c in CONFIGS for m in ("async", "sync")],
)
def model(request: pytest.FixtureRequest) -> Model:
    cfg, sync = request.param
    return _model(cfg, sync)


# --------------------------------------------------------------------------------------
# the design rules: why publish() never takes the other edges


Rule = Callable[[dict[str, Any], str, dict[str, Any], bool, Config], bool]
ENVIRONMENT = frozenset(
    {"Arrive", "Request", "RequestUnbounded", "Leave", "UpEmit", "UpComplete", "Disconnect"}
)


def _free(v: dict[str, Any], cfg: Config) -> int:
    return cfg.buffer - (int(v["upReq"]) - int(v["taken"]))


def _live(v: dict[str, Any]) -> bool:
    return v["disc"] == "no" and not v["srcDone"]


def _drained(v: dict[str, Any], cfg: Config) -> bool:
    """After the first request, at least B - B//4 of the buffer is free again."""
    return _free(v, cfg) >= cfg.limit and v["upReq"] > 0


def _completes(v: dict[str, Any]) -> bool:
    """Complete is enabled (Multicast.tla's guard)."""
    ended = v["srcDone"] and v["upSent"] == v["taken"]
    return bool(ended and not v["term"] and v["disc"] in ("no", "complete"))


DESIGN: dict[str, tuple[str, str, Rule]] = {
    "quarter": (
        "both",
        "the connection asks the source for the whole free buffer at once, and only once "
        "at least B - B//4 of it is free (PublishConnection._upstream_demand): a smaller "
        "UpRequest(k) is never made",
        lambda u, a, v, busy, c: (
            a == "UpRequest" and (_free(u, c) < c.limit or v["upReq"] != u["taken"] + c.buffer)
        ),
    ),
    "round tops up": (
        "both",
        "a drain round that frees the buffer tops the source up before it ends "
        "(_control_upstream after _emit): a live connection with the free buffer at least "
        "B - B//4 after its first request never rests, its next step is UpRequest",
        lambda u, a, v, busy, c: a != "UpRequest" and _live(u) and _drained(u, c),
    ),
    "round completes": (
        "async",
        "the drain round that empties the buffer of an ended source completes the "
        "subscribers before it ends (_emit: _finish once the queue is empty): with the "
        "free buffer at least B - B//4, only an internal step leads to such a state, and "
        "Complete follows it at once",
        lambda u, a, v, busy, c: a != "Complete" and _completes(u) and _drained(u, c),
    ),
    "first round": (
        "async",
        "a subscriber gets its Subscription from the drain (on_subscribe, rule 1.9), whose "
        "first round tops the source up (or, disconnected, completes) before anything "
        "else: before the first UpRequest nobody requests or cancels and nothing is "
        "dispatched or dropped",
        lambda u, a, v, busy, c: (
            a in ("Request", "RequestUnbounded", "Leave", "Dispatch", "Drop") and u["upReq"] == 0
        ),
    ),
    "connect tops up": (
        "sync",
        "without an executor, connect() runs the first drain round inside the call: the "
        "source is topped up before anything else happens",
        lambda u, a, v, busy, c: a != "UpRequest" and _live(u) and u["upReq"] == 0,
    ),
    "inline drain": (
        "sync",
        "without an executor, every call runs the drain to rest before it returns: no "
        "environment step while a Dispatch, Drop or Complete is enabled",
        lambda u, a, v, busy, c: a in ENVIRONMENT and busy,
    ),
    "arrive after disconnect": (
        "both",
        "disconnect() installs a fresh connection: a subscriber arriving afterwards joins "
        "it and waits for the next connect() (ConnectableFlow), it is not terminated",
        lambda u, a, v, busy, c: a == "Arrive" and u["disc"] != "no",
    ),
}


def rules_of(sync: bool) -> list[str]:
    mode = "sync" if sync else "async"
    return [name for name, (modes, _, _) in DESIGN.items() if modes in ("both", mode)]


def _never(name: str, succ: Succ, cfg: Config) -> Callable[[Edge], bool]:
    rule = DESIGN[name][2]

    def never(e: Edge) -> bool:
        busy = any((e[0], a) in succ for a in ("Dispatch", "Drop", "Complete"))
        return rule(view(e[0]), e[1], view(e[2]), busy, cfg)

    return never


def excluded_by(model: Model, edge: Edge) -> str:
    """The design rule that excludes ``edge``: the one its step breaks, else the first
    without whose steps alone its source state is unreachable, else "together"."""
    names = rules_of(model.sync)
    for name in names:
        if _never(name, model.succ, model.cfg)(edge):
            return name
    for name in names:
        if edge not in model.alone[name]:
            return name
    return "together"


def edge_key(edge: Edge) -> str:
    return str(ep.edge_key(edge))


# --------------------------------------------------------------------------------------
# driving


def harness(cfg: Config, sync: bool) -> Harness:
    """Asynchronous: one element per task (each can be interleaved). Synchronous: a
    cancel's drain may top up ``batch_size`` elements in the call (a larger top-up moves
    the drain to the shared pool, rule 3.5, which this driver does not follow)."""
    batch = 256 if sync else 1
    return Harness(cfg.subs, cfg.elements, cfg.buffer, cfg.strategy, sync, batch)


def node_key(h: Harness, state: Abstract) -> tuple[Any, ...]:
    """What decides the implementation's next steps: the abstract state and what the
    abstraction leaves out (pending tasks, admitted subscribers, the drain's counters)."""
    conn = h.conn
    admitted = tuple(p is not None and p.subscription is not None for p in h.probes)
    return (state, len(h.manual), admitted, conn._wip, conn._disconnect_handled)


def run(cmds: list[str], model: Model) -> tuple[Harness, list[Edge]]:
    """A fresh connection driven through ``cmds``; the edges it took (connect()'s first)."""
    h = harness(model.cfg, model.sync)
    out = opening(h, model.succ)
    for c in cmds:
        out.extend(step(h, c, model.succ))
    return h, out


def explore(model: Model) -> dict[tuple[Any, ...], list[tuple[str, list[Edge], Any]]]:
    """Every driver step from every node the implementation reaches (breadth first)."""
    h, _ = run([], model)
    root = node_key(h, h.state())
    paths: dict[Any, list[str]] = {root: []}
    graph: dict[Any, list[tuple[str, list[Edge], Any]]] = {}
    todo = deque([root])
    while todo:
        key = todo.popleft()
        prefix = paths[key]
        h, _ = run(prefix, model)
        graph[key] = []
        for command in commands(h, h.state(), model.cfg.max_req):
            h2, _ = run(prefix, model)
            edges = step(h2, command, model.succ)
            nxt = node_key(h2, h2.state())
            graph[key].append((command, edges, nxt))
            if nxt not in paths:
                paths[nxt] = [*prefix, command]
                todo.append(nxt)
    return graph


def load(model: Model) -> tuple[dict[str, Any], list[tuple[list[str], str]]]:
    """The generated figures of ``model`` and its runs: driver steps (``SHORT`` names)
    and the digest of each run's path."""
    data = json.loads(RUNS.read_text())
    runs = data["runs"].get(model.label, [])
    return data["models"][model.cfg.name], [([_long(c) for c in r.split()], p) for r, p in runs]


SHORT = {"Arrive": "A", "Request": "R", "RequestUnbounded": "U", "Leave": "L", "UpEmit": "E"}
SHORT |= {"UpComplete": "C", "Disconnect": "D", "task": "t"}
LONG = {v: k for k, v in SHORT.items()}


def _short(command: str) -> str:
    action, *args = command.split()
    return SHORT[action] + "".join(args)


def _long(short: str) -> str:
    return " ".join([LONG[short[0]], *short[1:]])


def digest(edges: list[Edge]) -> str:
    """The path a run was generated for, in 8 hex digits (``ep.edge_key`` of each edge)."""
    keys = "".join(edge_key(e) for e in edges)
    return hashlib.sha256(keys.encode()).hexdigest()[:8]


# --------------------------------------------------------------------------------------
# the tests


def departure(k: int, cmds: list[str], path: str, model: Model) -> tuple[str | None, list[Edge]]:
    """Where run ``k`` leaves the model's graph (the step and the edge), or else whether
    it left the path it was generated for (None: it follows it); the edges it took."""
    name = f"{model.label} run {k} ({' '.join(map(_short, cmds))})"
    h = harness(model.cfg, model.sync)
    try:
        taken = opening(h, model.succ)
    except StepError as exc:
        return f"{name}, connect(): {exc}", []
    for i, command in enumerate(cmds, 1):
        try:
            taken.extend(step(h, command, model.succ))
        except StepError as exc:
            return f"{name}, step {i} ({command}): {exc}", taken
    if digest(taken) != path:
        return (
            f"{name}: every step is an edge of the model, but not of the path it was "
            f"generated for (RS_GENERATE_EDGES=1 regenerates)"
        ), taken
    return None, taken


def _excluded(model: Model) -> dict[str, int]:
    groups = {name: 0 for name in [*rules_of(model.sync), "together"]}
    for edge in model.edges - model.design:
        groups[excluded_by(model, edge)] += 1
    return groups


@needs_tlc
def test_every_edge_publish_can_take_by_design_is_driven(model: Model) -> None:
    """Each run follows its path step by step; together they take every edge reachable
    without the DESIGN rules' steps, and none of the others."""
    taken: set[Edge] = set()
    rerouted: list[str] = []  # legal steps off the generated path: checked last
    data, runs = load(model)
    for k, (cmds, path) in enumerate(runs):
        why, edges = departure(k, cmds, path, model)
        taken.update(edges)
        if why is not None and "every step is an edge of the model" in why:
            rerouted.append(why)
            continue
        assert why is None, why
    outside = taken - model.design
    rules = sorted({excluded_by(model, e) for e in outside})
    assert not outside, (
        f"{len(outside)} edges the design rules exclude were taken ({', '.join(rules)}), "
        f"e.g. {sorted(outside, key=repr)[:2]}"
    )
    missing = model.design - taken
    assert not missing, (
        f"{len(missing)} by-design edges no run takes (RS_GENERATE_EDGES=1 regenerates), "
        f"e.g. {sorted(missing, key=repr)[:3]}"
    )
    figures = data[model.mode]
    assert (len(model.edges), len(taken)) == (data["edges"], figures["taken"])
    assert _excluded(model) == figures["excluded"]
    assert not rerouted, f"{len(rerouted)} runs left their paths: {rerouted[0]}"


def test_a_departure_names_the_run_the_step_and_the_edge() -> None:
    """A connection that requests one element too many leaves the model at that step."""
    model = _model(CONFIGS[0], sync=False)
    cmds = ["Arrive 1", "task"]
    assert departure(0, cmds, "0" * 8, model)[0] == (
        "multicast_edges async run 0 (A1 t): every step is an edge of the model, but not "
        "of the path it was generated for (RS_GENERATE_EDGES=1 regenerates)"
    )
    path = digest(run(cmds, model)[1])
    assert departure(0, cmds, path, model)[0] is None
    real = Link.request

    def one_more(self: Link, n: int) -> None:
        real(self, n + 1)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Link, "request", one_more)
        why = str(departure(0, cmds, path, model)[0])
    assert why.startswith("multicast_edges async run 0 (A1 t), step 2 (task): UpRequest: "), why
    assert "is not an edge of the model" in why


def write_runs(data: dict[str, Any]) -> None:
    """multicast_edges.json (beside this file): the figures, then one line a run, by model
    and mode."""
    groups = [
        json.dumps(label) + ": [\n" + ",\n".join(json.dumps(r) for r in runs) + "\n]"
        for label, runs in sorted(data["runs"].items())
    ]
    head = json.dumps({"models": dict(sorted(data["models"].items()))})
    RUNS.write_text(head[:-1] + ', "runs": {\n' + ",\n".join(groups) + "\n}}\n")


@pytest.mark.skipif(not os.environ.get("RS_GENERATE_EDGES"), reason="RS_GENERATE_EDGES=1")
@needs_tlc
@pytest.mark.timeout(3600)
def test_generate_runs(model: Model) -> None:
    """The search (a few minutes a mode): the implementation's graph, then walks covering
    its edges, written to multicast_edges.json beside the other mode's."""
    graph = explore(model)
    h, opened = run([], model)
    walks = ep.walk_cover(graph, node_key(h, h.state()))
    runs = [[" ".join(map(_short, cmds)), digest(opened + edges)] for cmds, edges in walks]
    taken = set(opened) | {e for _, edges in walks for e in edges}
    data = json.loads(RUNS.read_text()) if RUNS.is_file() else {"models": {}, "runs": {}}
    entry = data["models"].setdefault(model.cfg.name, {})
    entry["edges"] = len(model.edges)
    entry[model.mode] = {
        "design": len(model.design),
        "taken": len(taken),
        "nodes": len(graph),
        "runs": len(runs),
        "excluded": _excluded(model),
    }
    data["runs"][model.label] = runs
    write_runs(data)
    print(f"{model.label}: {len(taken)} of {len(model.edges)} edges taken; {entry}")
    assert taken == model.design, (len(taken - model.design), len(model.design - taken))
