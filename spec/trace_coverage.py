#!/usr/bin/env python3
"""How much of a small model's state graph the implementation's traces visit.

TLC dumps the reachable state graph of the model `rs_coverage` of `spec/models.toml`
(`-dump dot,actionlabels`; 2 elements, MaxDemand 3, one Subscription, one thread), and
the dump's state count is checked against TLC's.  Every state is mapped to an abstract
state, every transition to (abstract state, action, abstract state).  Each recorded
trace (full view) is replayed with the Python twin of the spec
(`reactive_streams.trace.model`), one Subscription at a time, and its states and steps
are mapped with the same function (`tests/test_spec_coverage.py` checks on random
walks through the graph that both mappings agree).

The abstraction keeps what a Subscription's protocol state is made of and drops
history and bookkeeping:
- kept: `pub`; elements emitted (0, 1, 2 = "Elements or more"); the Publisher's
  demand (0, 1, 2 = "2 or more, finite", 3 = unbounded); an invalid request was
  received; the queue `up` (request, request(max), request(invalid), cancel); the
  signals in flight (onError with its cause); the call stacks of the busy threads
  (thread ids dropped); cancel called; a Subscriber method raised;
- dropped: sequence numbers, the ghosts `requested`, `asked`, `cutoff`, `invalidAt`
  (a history position), `ref` (a function of `pub`), and the call counters `calls`
  and `cancels` (bounds that keep TLC finite).

DESIGN_RULES lists steps the model allows any Publisher but this implementation never
takes, each with its reason.  The states reachable from the initial state without
such a step are the "reachable by design" ones; the goal (every action, and at least
`--goal` percent of those states) is counted over them.  A rule that a recorded run
contradicts (it visits a state only that rule excludes) is reported and not applied,
so the figures stay right when the implementation changes; the exit status is 1 when
the rules still applied exclude a visited state.

Usage (from the repository root; `make check` runs it on build/traces):
    python spec/trace_coverage.py build/traces/*.jsonl
    python spec/trace_coverage.py --goal 60 --strict build/traces/*.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

SPEC_DIR = Path(__file__).resolve().parent
_ME = "trace_coverage.py"
DEFAULT_MODEL = "rs_coverage"
ACTIONS = (
    "Subscribe",
    "Request",
    "EndRequest",
    "Cancel",
    "EndCancel",
    "RecvRequest",
    "RecvCancel",
    "SendOnSubscribe",
    "SendOnNext",
    "SendOnComplete",
    "SendOnError",
    "Begin",
    "End",
)


def _load_tlc() -> ModuleType:
    """spec/tlc.py (the manifest reader and the TLC command line)."""
    found = sys.modules.get("tlc_runner")
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location("tlc_runner", SPEC_DIR / "tlc.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tlc_runner"] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------
# TLA+ values as TLC prints them (the subset the spec's variables use)


class TlaParseError(ValueError):
    """A TLC value or dump line this reader does not understand."""


_TOKEN = re.compile(
    r'\s*(?:(<<|>>|\|->|:>|@@|[\[\]\(\),{}])|(-?\d+)|"((?:[^"\\]|\\.)*)"|(TRUE|FALSE)|([A-Za-z_]\w*))'
)


def _tokens(text: str) -> Iterator[tuple[str, Any]]:
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return
        m = _TOKEN.match(text, pos)
        if not m:
            raise TlaParseError(f"cannot read TLA+ value at {text[pos : pos + 20]!r}")
        pos = m.end()
        punct, num, string, boolean, name = m.groups()
        if punct:
            yield "p", punct
        elif num is not None:
            yield "v", int(num)
        elif string is not None:
            yield "v", string.replace('\\"', '"').replace("\\\\", "\\")
        elif boolean:
            yield "v", boolean == "TRUE"
        else:
            yield "n", name


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = list(_tokens(text))
        self.i = 0

    def peek(self) -> tuple[str, Any] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> tuple[str, Any]:
        tok = self.peek()
        if tok is None or (want is not None and tok != ("p", want)):
            raise TlaParseError(f"expected {want!r}, got {tok!r}")
        self.i += 1
        return tok

    def items(self, close: str) -> list[Any]:
        out: list[Any] = []
        if self.peek() == ("p", close):
            self.take(close)
            return out
        while True:
            out.append(self.value())
            tok = self.take()
            if tok == ("p", close):
                return out
            if tok != ("p", ","):
                raise TlaParseError(f"expected ',' or {close!r}, got {tok!r}")

    def value(self) -> Any:
        kind, tok = self.take()
        if kind == "v":
            return tok
        if tok == "<<":
            return tuple(self.items(">>"))
        if tok == "{":
            return frozenset(self.items("}"))
        if tok == "[":
            record: dict[str, Any] = {}
            while True:
                _, key = self.take()
                self.take("|->")
                record[key] = self.value()
                sep = self.take()
                if sep == ("p", "]"):
                    return record
        if tok == "(":  # a function: (1 :> a @@ 2 :> b)
            fn: dict[Any, Any] = {}
            while True:
                key = self.value()
                self.take(":>")
                fn[key] = self.value()
                sep = self.take()
                if sep == ("p", ")"):
                    return fn
        raise TlaParseError(f"unexpected token {tok!r}")


def parse_value(text: str) -> Any:
    parser = _Parser(text)
    value = parser.value()
    if parser.peek() is not None:
        raise TlaParseError(f"trailing text after a TLA+ value: {parser.peek()!r}")
    return value


def parse_state(label: str) -> dict[str, Any]:
    """A TLC state (`/\\ x = v` conjuncts) as {variable: value}."""
    state: dict[str, Any] = {}
    for part in re.split(r"(?:^|\n)/\\ ", label):
        if not part.strip():
            continue
        name, _, text = part.partition(" = ")
        state[name.strip()] = parse_value(text)
    return state


# --------------------------------------------------------------------------------------
# the state graph of a TLC -dump dot file

_NODE = re.compile(r'^(-?\d+) \[label="(.*)"(?:,style = filled)?\];?$')
_EDGE = re.compile(r'^(-?\d+) -> (-?\d+) \[label="(\w+)"')


@dataclasses.dataclass
class Graph:
    states: dict[str, dict[str, Any]]  # id -> variables
    edges: list[tuple[str, str, str]]  # (from, action, to)


def read_dot(text: str) -> Graph:
    states: dict[str, dict[str, Any]] = {}
    edges: list[tuple[str, str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        edge = _EDGE.match(line)
        if edge:
            edges.append((edge.group(1), edge.group(3), edge.group(2)))
            continue
        node = _NODE.match(line)
        if node:
            label = node.group(2).replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
            states[node.group(1)] = parse_state(label)
    return Graph(states, edges)


# --------------------------------------------------------------------------------------
# the abstraction


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The constants of the small model the abstraction refers to."""

    elements: int
    max_demand: int


def _demand_class(demand: int, unbounded: bool) -> int:
    if unbounded:
        return 3
    return min(demand, 2)


def _request_class(n: int | None, max_demand: int) -> str:
    if n is None or n <= 0:
        return "request(invalid)"
    if n >= max_demand:
        return "request(max)"
    return "request"


def _signal(sig: str, err: str) -> str:
    return f"onError({err})" if sig == "onError" else sig


Abstract = tuple[Any, ...]
_SIGS = frozenset({"onSubscribe", "onNext", "onComplete", "onError"})


def abstract(
    pub: str,
    emitted: int,
    demand_class: int,
    invalid: bool,
    up: Sequence[str],
    in_flight: Sequence[str],
    stacks: Iterable[Sequence[str]],
    cancelled: bool,
    faulted: bool,
    bounds: Bounds,
) -> Abstract:
    busy = tuple(sorted(tuple(st) for st in stacks if st))
    return (
        pub,
        min(emitted, bounds.elements),
        demand_class,
        invalid,
        tuple(up),
        tuple(in_flight),
        busy,
        cancelled,
        faulted,
    )


def abstract_tlc(state: Mapping[str, Any], bounds: Bounds, sub: int = 1) -> Abstract:
    """A state of the dumped graph (one Subscription) as an abstract state."""

    def at(name: str) -> Any:
        value = state[name]
        if isinstance(value, dict):
            return value[sub]
        return value[sub - 1]  # a function over 1..N prints as a tuple

    sent, delivered = at("sent"), at("delivered")
    up = [
        "cancel" if m["type"] == "cancel" else _request_class(m["n"], bounds.max_demand)
        for m in at("up")
    ]
    stack = at("stack")
    stacks = list(stack.values() if isinstance(stack, dict) else stack)
    return abstract(
        pub=at("pub"),
        emitted=at("emitted"),
        demand_class=_demand_class(at("demand"), at("demand") == bounds.max_demand),
        invalid=at("invalidAt") >= 0,
        up=up,
        in_flight=[_signal(m["sig"], m["err"]) for m in sent[delivered:]],
        stacks=stacks,
        cancelled=at("cancels") > 0,
        faulted=at("faulted"),
        bounds=bounds,
    )


# --------------------------------------------------------------------------------------
# implementation traces

_ACTION_OF = {
    "subscribe": "Subscribe",
    "request": "Request",
    "end_request": "EndRequest",
    "cancel": "Cancel",
    "end_cancel": "EndCancel",
    "recv_request": "RecvRequest",
    "recv_cancel": "RecvCancel",
    "send_on_subscribe": "SendOnSubscribe",
    "send_on_next": "SendOnNext",
    "send_on_complete": "SendOnComplete",
    "send_on_error": "SendOnError",
}


_SIG_OF = {
    "on_subscribe": "onSubscribe",
    "on_next": "onNext",
    "on_complete": "onComplete",
    "on_error": "onError",
}


def action_of(sig: str) -> str:
    """The spec action a trace event is (docs/trace-format.md)."""
    if sig in _ACTION_OF:
        return _ACTION_OF[sig]
    if sig.startswith("begin_on_"):
        return "Begin"
    if sig.startswith("end_on_"):
        return "End"
    raise TlaParseError(f"unknown event {sig!r}")


def abstract_replay(state: Any, last_begun: str, bounds: Bounds) -> Abstract:
    """A Subscription of the Python replay (``trace.model.SubState``) as an abstract state;
    ``last_begun``: the signal its Subscriber began last."""
    from reactive_streams.trace.transitions import MAX_DEMAND

    return abstract(
        pub=state.pub,
        emitted=state.emitted,
        demand_class=_demand_class(state.demand, state.unbounded or state.demand == MAX_DEMAND),
        invalid=state.invalid,
        up=["cancel" if m.kind == "cancel" else _request_class(m.n, MAX_DEMAND) for m in state.up],
        in_flight=[_signal(p.sig, p.err) for p in state.pending],
        stacks=[[f.sig for f in frames] for frames in state.stacks.values()],
        cancelled=state.cancels > 0,
        faulted=state.faulted,
        bounds=bounds,
    )


# Which design rules hold for a Subscription depends on the hop that made it: a source's
# drain pulls its iterator; any other drained hop forwards an upstream failure without
# demand (rule 1.4); a relay passes its upstream's signals through as they come, nested
# in a request() its Subscriber made (rule 3.3 bounds that), so it is never trampolined.
SOURCE, DRAINED, RELAY = "source", "drained", "relay"
FAMILIES = (SOURCE, DRAINED, RELAY)
# the hops whose Subscription is an IteratorSubscription or a ScalarSubscription
# (sources.py); "" is unnamed
SOURCE_HOPS = frozenset({"", "range", "iterable", "from_iterable", "generate", "just", "empty"})


def relay_hops() -> frozenset[str]:
    """The trace names of the pass-through hops: every subclass of ``Relay``."""
    import importlib
    import pkgutil

    import reactive_streams.flow  # noqa: F401  (imports the hops it builds)
    import reactive_streams.operators as operators
    from reactive_streams._core.relay import Relay

    for info in pkgutil.iter_modules(operators.__path__, operators.__name__ + "."):
        importlib.import_module(info.name)
    found: set[str] = set()
    todo: list[type[Relay[Any, Any]]] = [Relay]
    while todo:
        cls = todo.pop()
        found.add(cls.hop)
        todo.extend(cls.__subclasses__())
    return frozenset(found)


def hop_family(hop: str, relays: frozenset[str]) -> str:
    return RELAY if hop in relays else SOURCE if hop in SOURCE_HOPS else DRAINED


@dataclasses.dataclass
class Visits:
    states: Counter[Abstract] = dataclasses.field(default_factory=Counter)
    edges: Counter[tuple[Abstract, str, Abstract]] = dataclasses.field(default_factory=Counter)
    # the same, per hop family (FAMILIES)
    families: dict[str, Counter[Abstract]] = dataclasses.field(
        default_factory=lambda: {f: Counter() for f in FAMILIES}
    )
    family_edges: dict[str, Counter[tuple[Abstract, str, Abstract]]] = dataclasses.field(
        default_factory=lambda: {f: Counter() for f in FAMILIES}
    )
    traces: int = 0
    subscriptions: int = 0
    skipped: list[str] = dataclasses.field(default_factory=list)  # "path: why"


def visit_trace(
    path: Path,
    bounds: Bounds,
    visits: Visits,
    calls_at_once: bool = False,
    relays: frozenset[str] | None = None,
) -> None:
    """Replay one trace file and count the abstract states and steps it visits, overall
    and per hop family. ``calls_at_once`` drops the recorded ``end_request`` /
    ``end_cancel``, so every call returns at once (a comparison: format version 1)."""
    from reactive_streams.trace.format import CALL_ENDS, FormatError, Trace, read_trace
    from reactive_streams.trace.model import Replay
    from reactive_streams.trace.validate import prepare

    try:
        trace = read_trace(path)
    except (FormatError, OSError) as exc:
        visits.skipped.append(f"{path}: {exc}")
        return
    if trace.header.view != "full":
        visits.skipped.append(f"{path}: subscriber view (the Publisher's events are implied)")
        return
    relays = relay_hops() if relays is None else relays
    if calls_at_once:
        kept = [e for e in trace.events if e.sig not in CALL_ENDS]
        trace = Trace(dataclasses.replace(trace.header, version=1), tuple(kept), trace.name)
    events = prepare(trace).events
    model = Replay(sync=trace.header.mode == "sync", call_ends=True)
    visits.traces += 1
    begun: dict[int, str] = {}
    family: dict[int, str] = {}
    for event in events:
        if event.sub not in model.subs:
            visits.subscriptions += 1
        if event.sig == "subscribe":
            family[event.sub] = hop_family(event.hop, relays)
        state = model.state(event.sub)
        before = abstract_replay(state, begun.get(event.sub, ""), bounds)
        why = model.step(event)
        if why is not None:
            visits.skipped.append(f"{path}: event {event.index} ({event.sig}): {why}")
            return
        if event.sig.startswith("begin_"):
            begun[event.sub] = _SIG_OF[event.sig[6:]]
        after = abstract_replay(state, begun.get(event.sub, ""), bounds)
        edge = (before, action_of(event.sig), after)
        visits.states[before] += 1
        visits.states[after] += 1
        visits.edges[edge] += 1
        mine = visits.families[family.get(event.sub, SOURCE)]
        mine[before] += 1
        mine[after] += 1
        visits.family_edges[family.get(event.sub, SOURCE)][edge] += 1


# --------------------------------------------------------------------------------------
# steps this implementation never takes, by design

_CALLS = frozenset({"request", "cancel"})
Edge = tuple[Abstract, str, Abstract]


def _var(state: Mapping[str, Any], name: str, sub: int = 1) -> Any:
    value = state[name]
    return value[sub] if isinstance(value, dict) else value[sub - 1]


def _thread_stacks(state: Mapping[str, Any]) -> list[tuple[str, ...]]:
    stack = _var(state, "stack")
    return [tuple(st) for st in (stack.values() if isinstance(stack, dict) else stack)]


def _began_on(u: Mapping[str, Any], v: Mapping[str, Any]) -> tuple[str, ...]:
    """The stack (in u) of the thread on which a Begin step u -> v pushed a frame."""
    for before, after in zip(_thread_stacks(u), _thread_stacks(v), strict=True):
        if len(after) == len(before) + 1:
            return before
    return ()


def _commits_while_busy(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    if not action.startswith("SendOn"):
        return False
    in_flight = len(_var(u, "sent")) > _var(u, "delivered")
    running = any(f in _SIGS for st in _thread_stacks(u) for f in st)
    return in_flight or running


def _nests_in_signal_call(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    if action != "Begin":
        return False
    stack = _began_on(u, v)
    return bool(stack) and stack[-1] in _CALLS and any(f in _SIGS for f in stack)


def _begins_in_cancel(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    return action == "Begin" and _began_on(u, v)[-1:] == ("cancel",)


def _delays_fault_cancel(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    return bool(_var(u, "faulted")) and _var(u, "cancels") == 0 and action != "Cancel"


def _returns_unreceived_cancel(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    return action == "EndCancel" and any(m["type"] == "cancel" for m in _var(u, "up"))


def _steps_past_unreceived_cancel(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    queued = any(m["type"] == "cancel" for m in _var(u, "up"))
    return queued and action not in ("RecvRequest", "RecvCancel")


def _receives_in_signal(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    tops = [st[-1] for st in _thread_stacks(u) if st]
    return action == "RecvRequest" and bool(tops) and all(t in _SIGS for t in tops)


def _commits_after_raise(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    return action.startswith("SendOn") and bool(_var(u, "faulted"))


def _fails_unpulled(u: Mapping[str, Any], action: str, v: Mapping[str, Any]) -> bool:
    if action != "SendOnError" or _var(v, "sent")[-1]["err"] != "source":
        return False
    return _var(u, "demand") == 0 and _var(u, "emitted") > 0


@dataclasses.dataclass(frozen=True)
class DesignRule:
    """A step of the model this implementation never takes, and why."""

    name: str
    reason: str
    never: Callable[[Mapping[str, Any], str, Mapping[str, Any]], bool]  # (u, action, v)
    families: frozenset[str] = frozenset(FAMILIES)  # the hops it holds for


DESIGN_RULES = (
    DesignRule(
        "one signal at a time",
        "one drain commits every signal and calls the Subscriber itself, so it commits "
        "nothing while a committed signal waits or a Subscriber method runs (the model "
        "lets a Publisher commit ahead, e.g. two onNext in flight)",
        _commits_while_busy,
        frozenset({SOURCE, DRAINED}),
    ),
    DesignRule(
        "trampolining",
        "request()/cancel() made inside a Subscriber method only records the demand or the "
        "cancel; the running drain delivers after the method returns (RangePublisher-style "
        "nesting, legal under rules 3.2/3.3, is never chosen)",
        _nests_in_signal_call,
        frozenset({SOURCE, DRAINED}),
    ),
    DesignRule(
        "cancel() calls no Subscriber",
        "cancel() marks the Subscription; a drain stops at its next check",
        _begins_in_cancel,
    ),
    DesignRule(
        "cancel received in the call",
        "cancel() receives the cancel (and the requests queued before it) under the "
        "Subscription's lock before it returns (rule 3.12: emission stops at once)",
        _returns_unreceived_cancel,
    ),
    DesignRule(
        "cancel received at once",
        "cancel() records the call and receives it (with the requests queued before it) "
        "under the Subscription's lock, so no other step comes between the Cancel and its "
        "RecvCancel (rule 3.12; the model lets the Publisher commit a signal in between)",
        _steps_past_unreceived_cancel,
    ),
    DesignRule(
        "requests received between signals",
        "a request is received inside its own call (synchronous) or by the drain between "
        "two signals (asynchronous), never while a Subscriber method of that drain runs "
        "and no call is open (the model lets the Publisher take a queued request then)",
        _receives_in_signal,
        frozenset({SOURCE, DRAINED}),
    ),
    DesignRule(
        "raise then cancel at once",
        "the raise of a Subscriber method and the cancel made for it are recorded in one "
        "atomic step (rule 2.13), so nothing happens in between",
        _delays_fault_cancel,
    ),
    DesignRule(
        "nothing committed after a raise",
        "the drain that caught the raise cancels and stops, so no signal is committed after "
        "it (the model lets the Publisher go on until the cancel arrives)",
        _commits_after_raise,
    ),
    DesignRule(
        "a source fails when pulled",
        "the source is pulled only for outstanding demand (or opened before the first "
        "element), so its failure shows then, never after an element with no demand left",
        _fails_unpulled,
        frozenset({SOURCE}),
    ),
)


def _reachable(graph: Graph, keep: Callable[[str, str, str], bool]) -> set[str]:
    """States reachable from the initial state over the edges ``keep`` accepts."""
    succ: dict[str, list[tuple[str, str]]] = {}
    for a, action, b in graph.edges:
        succ.setdefault(a, []).append((action, b))
    init = [k for k, st in graph.states.items() if _var(st, "pub") == "idle"]
    seen = set(init)
    todo = list(init)
    while todo:
        a = todo.pop()
        for action, b in succ.get(a, ()):
            if b not in seen and keep(a, action, b):
                seen.add(b)
                todo.append(b)
    return seen


# --------------------------------------------------------------------------------------
# the report


@dataclasses.dataclass(frozen=True)
class Design:
    """What is reachable without the steps of some design rules."""

    states: frozenset[Abstract]
    edges: frozenset[Edge]
    calls_at_once: frozenset[Abstract]  # the same, with every call returning at once


@dataclasses.dataclass
class Coverage:
    model: str
    tlc_states: int
    tlc_edges: int
    states: frozenset[Abstract]  # every reachable abstract state
    edges: frozenset[Edge]
    gone_alone: Mapping[str, frozenset[Abstract]]  # unreachable by each rule alone
    design: Callable[[Sequence[DesignRule]], Design]


def model_coverage(model: str, graph: Graph, bounds: Bounds) -> Coverage:
    mapped = {key: abstract_tlc(vars_, bounds) for key, vars_ in graph.states.items()}
    real = [e for e in graph.edges if e[1] != "Resting"]
    states = frozenset(mapped.values())

    def allowed(rules: Sequence[DesignRule]) -> Callable[[str, str, str], bool]:
        def keep(a: str, action: str, b: str) -> bool:
            u, v = graph.states[a], graph.states[b]
            return not any(r.never(u, action, v) for r in rules)

        return keep

    def design(rules: Sequence[DesignRule]) -> Design:
        keep = allowed(rules)
        reach = _reachable(graph, keep)

        def returns_at_once(a: str, action: str, b: str) -> bool:
            tops = [st[-1] for st in _thread_stacks(graph.states[a]) if st]
            busy = bool(tops) and tops[-1] in _CALLS
            return keep(a, action, b) and (not busy or action in ("EndRequest", "EndCancel"))

        return Design(
            frozenset(mapped[k] for k in reach),
            frozenset(
                (mapped[a], act, mapped[b])
                for a, act, b in real
                if a in reach and b in reach and keep(a, act, b)
            ),
            frozenset(mapped[k] for k in _reachable(graph, returns_at_once)),
        )

    gone_alone = {
        rule.name: states - frozenset(mapped[k] for k in _reachable(graph, allowed([rule])))
        for rule in DESIGN_RULES
    }
    return Coverage(
        model,
        len(graph.states),
        len(real),
        states,
        frozenset((mapped[a], act, mapped[b]) for a, act, b in real),
        gone_alone,
        design,
    )


def _pct(a: int, b: int) -> str:
    return f"{a:,}/{b:,} ({100.0 * a / b:.1f}%)" if b else f"{a}/0"


def report(cov: Coverage, visits: Visits, goal: float, out: Any = sys.stdout) -> tuple[bool, bool]:
    """Print the figures; (goal met with every action visited, no run contradicts the
    design rules that are applied)."""
    visited = frozenset(visits.states)
    seen = visited & cov.states
    seen_edges = frozenset(visits.edges) & cov.edges
    print(f"Trace coverage of the state graph of {cov.model}", file=out)
    print(
        f"  TLC graph: {cov.tlc_states:,} states, {cov.tlc_edges:,} transitions; abstract: "
        f"{len(cov.states):,} states, {len(cov.edges):,} edges",
        file=out,
    )
    print(
        f"  traces: {visits.traces:,} full-view files, {visits.subscriptions:,} subscriptions"
        f" ({len(visits.skipped)} files not mapped)",
        file=out,
    )
    print(f"  states visited: {_pct(len(seen), len(cov.states))}", file=out)
    print(f"  edges visited:  {_pct(len(seen_edges), len(cov.edges))}", file=out)
    print(f"  abstract states visited outside the graph: {len(visited - cov.states):,}", file=out)
    per = Counter(a for _, a, _ in cov.edges)
    hit = Counter(a for _, a, _ in seen_edges)
    print("  per action (edges visited/reachable):", file=out)
    line = ", ".join(f"{a} {hit[a]}/{per[a]}" for a in ACTIONS if a in per)
    print(f"    {line}", file=out)
    never = [a for a in ACTIONS if a in per and hit[a] == 0]
    tail = f" (never: {', '.join(never)})" if never else ""
    print(f"  actions visited: {len(per) - len(never)}/{len(per)}{tail}", file=out)
    print(
        "  steps this implementation never takes (states unreachable by that rule alone), "
        "with the hop families it holds for:",
        file=out,
    )
    active = []
    for rule in DESIGN_RULES:
        gone = cov.gone_alone[rule.name]
        mine = frozenset().union(*(visits.families[f] for f in FAMILIES if f in rule.families))
        seen_there = len(gone & mine)
        note = f"; CONTRADICTED by {seen_there} visited states: not applied" if seen_there else ""
        where = "/".join(f for f in FAMILIES if f in rule.families)
        print(
            f"    {rule.name} [{where}]: {_pct(len(gone), len(cov.states))}; {rule.reason}{note}",
            file=out,
        )
        if not seen_there:
            active.append(rule)
    wrong: set[Abstract] = set()
    designs: dict[str, Design] = {}
    print("  per hop family (states reachable by design for its rules):", file=out)
    for fam in FAMILIES:
        fam_design = cov.design([r for r in active if fam in r.families])
        designs[fam] = fam_design
        fam_visited = frozenset(visits.families[fam])
        wrong |= fam_visited & (cov.states - fam_design.states)
        fam_edges = len(fam_design.edges & frozenset(visits.family_edges[fam]))
        fam_seen = len(fam_design.states & fam_visited)
        print(
            f"    {fam}: states {_pct(fam_seen, len(fam_design.states))}"
            f", edges {_pct(fam_edges, len(fam_design.edges))}",
            file=out,
        )
    if wrong:
        print(f"    ERROR: {len(wrong)} states excluded by design were visited", file=out)
    design = designs[SOURCE]  # the goal: sources, where every rule holds
    visited = frozenset(visits.families[SOURCE])
    got = len(design.states & visited)
    ok_edges = len(design.edges & frozenset(visits.family_edges[SOURCE]))
    share = 100.0 * got / len(design.states) if design.states else 100.0
    met = share >= goal and not never
    print(
        f"  goal (every action, >= {goal:g}% of the sources' states reachable by design): "
        f"states {_pct(got, len(design.states))}, edges {_pct(ok_edges, len(design.edges))}: "
        f"{'met' if met else 'NOT MET'}",
        file=out,
    )
    open_calls = len(design.states - design.calls_at_once)
    at_once = design.calls_at_once
    print(
        f"  of those, {open_calls:,} need a request()/cancel() to stay open across another "
        f"step: {_pct(len((design.states - at_once) & visited), open_calls)} "
        f"visited; the rest: {_pct(len(at_once & visited), len(at_once))}",
        file=out,
    )
    _print_gaps(design.states - visited, design.states, out)
    for text in visits.skipped[:5]:
        if "subscriber view" not in text:
            print(f"  not mapped: {text}", file=out)
    return met, not wrong


def _print_gaps(missing: frozenset[Abstract], rest: frozenset[Abstract], out: Any) -> None:
    """The largest groups of unvisited states, by signals in flight and busy stacks."""

    def key(s: Abstract) -> str:
        flight = "+".join(s[5]) or "-"
        stacks = " | ".join(">".join(st) for st in s[6]) or "-"
        flags = ",".join(f for f, on in (("cancelled", s[7]), ("raised", s[8])) if on) or "-"
        return f"{s[0]}; in flight {flight}; stack {stacks}; {flags}"

    groups = Counter(key(s) for s in missing)
    sizes = Counter(key(s) for s in rest)
    print("  largest unvisited groups (reachable by design):", file=out)
    for name, count in groups.most_common(10):
        print(f"    {count:>4}/{sizes[name]:<4} {name}", file=out)


# --------------------------------------------------------------------------------------
# running TLC


def dump_graph(
    model_name: str, manifest_path: Path, jar: Path, timeout: float
) -> tuple[Graph, Bounds]:
    """TLC's reachable state graph of a model (safety only), checked against its count."""
    tlc = _load_tlc()
    consts = tlc.load_manifest(manifest_path).model(model_name).constants
    if consts.get("Subs") != "{1}":
        raise SystemExit(f"{_ME}: {model_name} must have one Subscription (Subs = {{1}})")
    bounds = Bounds(int(consts["Elements"]), int(consts["MaxDemand"]))
    return dump_dot(model_name, manifest_path, jar, timeout), bounds


def dump_dot(model_name: str, manifest_path: Path, jar: Path, timeout: float) -> Graph:
    """TLC's reachable state graph of any model of the manifest (``-dump dot``, safety
    only), checked against TLC's distinct-state count."""
    tlc = _load_tlc()
    manifest = tlc.load_manifest(manifest_path)
    model = dataclasses.replace(manifest.model(model_name), check_properties=False)
    with tempfile.TemporaryDirectory(prefix="tlc-cov-") as tmp:
        cfg = Path(tmp) / f"{model_name}.cfg"
        cfg.write_text(tlc.render_cfg(model, manifest.specs))
        dot = Path(tmp) / "graph.dot"
        cmd = tlc.java_command(
            tlc.tla_module(model, manifest),
            str(cfg),
            jar,
            Path(tmp) / "states",
            1,
            model.deadlock,
            False,
        )
        at = cmd.index("-metadir")
        cmd[at:at] = ["-dump", "dot,actionlabels", str(dot)]
        proc = subprocess.run(
            cmd, cwd=SPEC_DIR, capture_output=True, text=True, timeout=timeout, check=False
        )
        outcome = tlc.parse_output(proc.stdout + proc.stderr, proc.returncode)
        if outcome.result != "pass":
            raise SystemExit(f"{_ME}: TLC on {model_name}: {outcome.result} {outcome.detail}")
        graph = read_dot(dot.read_text())
    if len(graph.states) != outcome.distinct:
        raise SystemExit(
            f"{_ME}: the dump has {len(graph.states)} states, TLC found {outcome.distinct}"
        )
    return graph


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("traces", nargs="*", type=Path, help="trace files (.jsonl)")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="model of spec/models.toml")
    ap.add_argument("--manifest", type=Path, default=SPEC_DIR / "models.toml")
    ap.add_argument("--jar", type=Path, default=SPEC_DIR.parent / ".tools" / "tla2tools.jar")
    ap.add_argument("--goal", type=float, default=60.0, help="percent of the states")
    ap.add_argument("--strict", action="store_true", help="exit 1 when the goal is not met")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument(
        "--calls-at-once",
        action="store_true",
        help="drop the recorded end_request/end_cancel (every call returns at once)",
    )
    args = ap.parse_args(argv)
    start = time.monotonic()
    graph, bounds = dump_graph(args.model, args.manifest, args.jar.resolve(), args.timeout)
    cov = model_coverage(args.model, graph, bounds)
    visits = Visits()
    relays = relay_hops()
    for path in args.traces:
        visit_trace(path, bounds, visits, args.calls_at_once, relays)
    met, consistent = report(cov, visits, args.goal)
    print(f"  ({time.monotonic() - start:.1f} s)")
    if not consistent:
        return 1  # the design rules applied together exclude a state a run visited
    return 0 if met or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
