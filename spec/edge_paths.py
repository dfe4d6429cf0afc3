"""Tests generated from a small model's state graph: which edges to drive, and the check
that a driven run is a path of the graph.

The targets are the by-design edges of a hop family (``trace_coverage.model_coverage``,
``Coverage.design`` with the DESIGN_RULES that hold for the family).  A run of the
implementation is mapped event by event (``abstract_replay`` over
``reactive_streams.trace.model.Replay(call_ends=True)``) to a list of abstract edges;
``Tracker`` follows the run through the concrete TLC graph (the set of TLC states whose
abstraction equals the run's current one, advanced along edges of the same action), so a
run that leaves the graph is reported at the step it leaves it, with the edge it took.
``greedy_cover`` picks few runs that together take every target edge.

The driver (which runs exist: sources, Arms, Interludes, executor steps) lives in
``tests/test_model_edges.py``; this module knows only the graph.
"""

from __future__ import annotations

import hashlib
import importlib.util
import pickle
import sys
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

SPEC_DIR = Path(__file__).resolve().parent


def coverage_module() -> ModuleType:
    """spec/trace_coverage.py, loaded once (under the name tests/spec_scripts.py uses)."""
    found = sys.modules.get("spec_trace_coverage")
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(
        "spec_trace_coverage", SPEC_DIR / "trace_coverage.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["spec_trace_coverage"] = module
    spec.loader.exec_module(module)
    return module


Abstract = tuple[Any, ...]
Edge = tuple[Abstract, str, Abstract]


@dataclass(frozen=True)
class Targets:
    """The edges a generated suite must take, and what the design rules exclude."""

    model: str
    bounds: Any  # trace_coverage.Bounds
    edges: frozenset[Edge]  # by design, for the family
    all_edges: frozenset[Edge]  # every abstract edge of the graph
    rules: tuple[Any, ...]  # the DesignRules applied


def family_targets(cov: Any, coverage: Any, bounds: Any, family: str) -> Targets:
    """The by-design edges of ``family`` (the rules whose ``families`` hold it)."""
    rules = tuple(r for r in cov.DESIGN_RULES if family in r.families)
    design = coverage.design(rules)
    return Targets(coverage.model, bounds, design.edges, coverage.edges, rules)


def excluded_by(cov: Any, coverage: Any, edge: Edge, rules: Sequence[Any]) -> list[str]:
    """The rules that, applied alone, make ``edge`` unreachable (why it is not by design)."""
    return [rule.name for rule in rules if edge not in coverage.design([rule]).edges]


class Tracker:
    """Follows a run through the concrete TLC graph, modulo the abstraction."""

    def __init__(self, cov: Any, graph: Any, bounds: Any) -> None:
        self.mapped = {k: cov.abstract_tlc(v, bounds) for k, v in graph.states.items()}
        self.succ: dict[str, list[tuple[str, str]]] = {}
        for a, action, b in graph.edges:
            if action != "Resting":
                self.succ.setdefault(a, []).append((action, b))
        self.init = frozenset(k for k, st in graph.states.items() if cov._var(st, "pub") == "idle")

    def follow(self, edges: Sequence[Edge]) -> tuple[int, str | None]:
        """How many steps of ``edges`` are a path of the graph from its initial state, and
        (when not all are) why the next one is not."""
        here = {k for k in self.init if edges and self.mapped[k] == edges[0][0]}
        if edges and not here:
            return 0, f"step 1: {edges[0][0]} is not the model's initial state"
        for k, (before, action, after) in enumerate(edges):
            nxt = {b for a in here for act, b in self.succ.get(a, ()) if act == action}
            there = {b for b in nxt if self.mapped[b] == after}
            if not there:
                seen = sorted({repr(self.mapped[b]) for b in nxt})[:3]
                return k, (
                    f"step {k + 1} ({action}) leaves the model's graph: {before} -> {after}; "
                    f"the model's {action} from there reaches {seen or 'nothing'}"
                )
            here = there
        return len(edges), None


def beyond_bounds(edges: Sequence[Edge], k: int) -> bool:
    """Step ``k`` is a second request() or cancel(): past the small model's MaxCalls /
    MaxCancels (1), which bound TLC's graph, not the protocol."""
    action = edges[k][1]
    return action in ("Request", "Cancel") and any(e[1] == action for e in edges[:k])


def replay_edges(events: Iterable[Any], bounds: Any, sync: bool) -> list[Edge]:
    """The abstract edges of one Subscription's recorded events (``trace.format.Event``)."""
    from reactive_streams.trace.model import Replay

    cov = coverage_module()
    model = Replay(sync=sync, call_ends=True)
    out: list[Edge] = []
    for event in events:
        state = model.state(event.sub)
        before = cov.abstract_replay(state, "", bounds)
        why = model.step(event)
        if why is not None:
            raise AssertionError(f"event {event.index} ({event.sig}) refused by the spec: {why}")
        out.append((before, cov.action_of(event.sig), cov.abstract_replay(state, "", bounds)))
    return out


def first_difference(expected: Sequence[Edge], got: Sequence[Edge]) -> str | None:
    """Where a run departs from the path it was generated for (None: it does not)."""
    for k, (want, have) in enumerate(zip(expected, got, strict=False), 1):
        if want != have:
            return (
                f"step {k}: the path takes {want[1]} to {want[2]}, "
                f"the implementation takes {have[1]} to {have[2]} (from {have[0]})"
            )
    if len(expected) != len(got):
        return f"the path has {len(expected)} steps, the implementation took {len(got)}"
    return None


def greedy_cover(runs: Mapping[Any, frozenset[Edge]], targets: frozenset[Edge]) -> list[Any]:
    """Few runs (greedy set cover, in the order of ``runs`` on ties) taking every target
    edge any run takes."""
    left = set(targets)
    chosen: list[Any] = []
    while left:
        best = max(runs, key=lambda key: len(runs[key] & left), default=None)
        if best is None or not runs[best] & left:
            break
        chosen.append(best)
        left -= runs[best]
    return chosen


def edge_key(edge: Any) -> str:
    """A short stable name of an edge (the generated files list edges by it)."""
    return hashlib.sha256(repr(edge).encode()).hexdigest()[:12]


def quotient(graph: Any, project: Any, initial: Any) -> tuple[frozenset[Edge], Abstract]:
    """TLC's graph (``trace_coverage.Graph``) modulo ``project`` (a function of a state's
    variables), without the ``Resting`` stutter; and the projection of the one initial
    state (``initial`` tells it). Sound for a projection that drops ghost variables only
    (no action's guard reads them)."""
    mapped = {k: project(v) for k, v in graph.states.items()}
    inits = {mapped[k] for k, v in graph.states.items() if initial(v)}
    if len(inits) != 1:
        raise ValueError(f"{len(inits)} initial states after the projection")
    edges = frozenset((mapped[a], act, mapped[b]) for a, act, b in graph.edges if act != "Resting")
    return edges, next(iter(inits))


def walk_cover(
    graph: Mapping[Any, Sequence[tuple[str, Sequence[Edge], Any]]], root: Any
) -> list[tuple[list[str], list[Edge]]]:
    """Walks from ``root`` through a deterministic driver's graph (node -> its steps:
    command, the edges it takes, the next node) that together take every edge reachable:
    each walk goes to the nearest step with an edge not yet taken, and a new walk starts
    from ``root`` when none is reachable any more."""
    left = {e for steps in graph.values() for _, edges, _ in steps for e in edges}
    walks: list[tuple[list[str], list[Edge]]] = []
    while left:
        node, cmds, taken = root, [], []
        while True:
            route = _nearest(graph, node, left)
            if route is None:
                break
            for command, edges, nxt in route:
                cmds.append(command)
                taken.extend(edges)
                left.difference_update(edges)
                node = nxt
        if not cmds:
            break
        walks.append((cmds, taken))
    return walks


def _nearest(
    graph: Mapping[Any, Sequence[tuple[str, Sequence[Edge], Any]]], start: Any, left: set[Edge]
) -> list[tuple[str, Sequence[Edge], Any]] | None:
    """The shortest route of steps from ``start`` whose last step takes an edge of ``left``."""
    back: dict[Any, tuple[Any, tuple[str, Sequence[Edge], Any]] | None] = {start: None}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        for st in graph.get(node, ()):
            if any(e in left for e in st[1]):
                route = [st]
                at = node
                while back[at] is not None:
                    prev, via = back[at]  # type: ignore[misc]
                    route.append(via)
                    at = prev
                return route[::-1]
            if st[2] not in back:
                back[st[2]] = (node, st)
                todo.append(st[2])
    return None


def reachable_edges(edges: Iterable[Edge], init: Abstract, never: Any) -> frozenset[Edge]:
    """The edges reachable from ``init`` without the steps ``never(edge)`` accepts (the
    edges a design can take, when ``never`` holds the steps its rules exclude)."""
    succ: dict[Abstract, list[Edge]] = {}
    for e in edges:
        succ.setdefault(e[0], []).append(e)
    seen, todo, out = {init}, [init], set()
    while todo:
        for e in succ.get(todo.pop(), ()):
            if never(e):
                continue
            out.add(e)
            if e[2] not in seen:
                seen.add(e[2])
                todo.append(e[2])
    return frozenset(out)


def cached(name: str, build: Any) -> Any:
    """``build()``, kept in build/model-edges/ under ``name`` and a digest of the specs and
    the manifest (a TLC graph is dumped once per change of the spec)."""
    digest = hashlib.sha256()
    for path in [*sorted(SPEC_DIR.glob("*.tla")), SPEC_DIR / "models.toml"]:
        digest.update(path.read_bytes())
    store = SPEC_DIR.parent / "build" / "model-edges" / f"{name}-{digest.hexdigest()[:16]}.pickle"
    if store.is_file():
        return pickle.loads(store.read_bytes())
    value = build()
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(pickle.dumps(value))
    return value
