"""Tests of spec/trace_coverage.py: the TLC value reader, and the abstraction of the Python
replay agreeing with the abstraction of TLC's states on walks through the real graph."""

from __future__ import annotations

import io
import random
import shutil
import tomllib
from typing import Any

import pytest

import spec_scripts
from reactive_streams.trace.format import event_from_dict
from reactive_streams.trace.model import Replay
from reactive_streams.trace.transitions import MAX_DEMAND
from spec_scripts import JAR, SPEC_DIR

cov = spec_scripts.load("trace_coverage", "spec_trace_coverage")
needs_tlc = pytest.mark.skipif(
    shutil.which("java") is None or not JAR.is_file(), reason="TLC needs Java and the jar"
)


def test_tla_values_as_tlc_prints_them() -> None:
    assert cov.parse_value("<<>>") == ()
    assert cov.parse_value("<<-1, 2>>") == (-1, 2)
    assert cov.parse_value('<<"a \\"b\\"">>') == ('a "b"',)
    assert cov.parse_value('[err |-> "none", seq |-> 0]') == {"err": "none", "seq": 0}
    assert cov.parse_value("(1 :> TRUE @@ 2 :> FALSE)") == {1: True, 2: False}
    assert cov.parse_value("{1, 2}") == frozenset({1, 2})
    assert cov.parse_value("<< <<<<>>>> >>") == (((),),)
    with pytest.raises(cov.TlaParseError):
        cov.parse_value("<<1,")


def test_a_dumped_state_and_its_edge() -> None:
    dot = (
        "strict digraph DiskGraph {\n"
        '1 [label="/\\\\ x = <<0>>\\n/\\\\ s = <<\\"idle\\">>",style = filled]\n'
        '1 -> -2 [label="Subscribe",color="black",fontcolor="black"];\n'
        '-2 [label="/\\\\ x = <<1>>\\n/\\\\ s = <<\\"subscribed\\">>"];\n'
        "}\n"
    )
    graph = cov.read_dot(dot)
    assert graph.states["1"] == {"x": (0,), "s": ("idle",)}
    assert graph.states["-2"] == {"x": (1,), "s": ("subscribed",)}
    assert graph.edges == [("1", "Subscribe", "-2")]


def _event(u: dict[str, Any], action: str, v: dict[str, Any]) -> dict[str, Any] | None:
    """The trace event of one step of the graph (thread 1), as the implementation
    would record it (the model's MaxDemand 3 is 2**63-1)."""
    var = cov._var

    def real(n: int) -> int:
        return MAX_DEMAND if n == 3 else n

    if action in ("Subscribe", "EndRequest", "Cancel", "EndCancel", "RecvCancel"):
        sig = {"Subscribe": "subscribe", "EndRequest": "end_request", "Cancel": "cancel"}.get(
            action, {"EndCancel": "end_cancel", "RecvCancel": "recv_cancel"}.get(action)
        )
        return {"sig": sig}
    if action == "Request":
        up_u, up_v = var(u, "up"), var(v, "up")
        n = up_v[-1]["n"] if len(up_v) > len(up_u) else 2  # a no-op: any n
        return {"sig": "request", "n": real(n)}
    if action == "RecvRequest":
        return {"sig": "recv_request", "n": real(var(u, "up")[0]["n"])}
    if action.startswith("SendOn"):
        last = var(v, "sent")[-1]
        sig = "send_on_" + {"onSubscribe": "subscribe", "onNext": "next"}.get(
            last["sig"], last["sig"][2:].lower()
        )
        if last["sig"] == "onNext":
            return {"sig": sig, "seq": last["seq"]}
        if last["sig"] == "onError":
            kind = "ValueError" if last["err"] == "invalid" else "SourceFailure"
            return {"sig": sig, "error": kind, "error_type": kind}
        return {"sig": sig}
    frame_of = {"onSubscribe": "on_subscribe", "onNext": "on_next"}
    if action == "Begin":
        k = var(v, "delivered")
        signal = var(v, "sent")[k - 1]
        name = frame_of.get(signal["sig"], "on_" + signal["sig"][2:].lower())
        fields: dict[str, Any] = {"sig": "begin_" + name}
        if signal["sig"] == "onNext":
            fields["seq"] = signal["seq"]
        return fields
    if action == "End":
        top = cov._thread_stacks(u)[0][-1]
        name = frame_of.get(top, "on_" + top[2:].lower())
        raised = bool(var(v, "faulted")) and not var(u, "faulted")
        fields = {"sig": "end_" + name, "raised": raised}
        if top == "onNext":  # Depth 1: the running onNext is the last one begun
            begun = var(u, "sent")[: var(u, "delivered")]
            fields["seq"] = [m["seq"] for m in begun if m["sig"] == "onNext"][-1]
        return fields
    return None


@needs_tlc
@pytest.mark.timeout(600)
def test_replay_abstraction_matches_tlc_states_on_random_walks() -> None:
    graph, bounds = cov.dump_graph("rs_coverage", SPEC_DIR / "models.toml", JAR, 300)
    assert bounds.max_demand == 3
    succ: dict[str, list[tuple[str, str]]] = {}
    for a, action, b in graph.edges:
        if action != "Resting":
            succ.setdefault(a, []).append((action, b))
    init = next(k for k, st in graph.states.items() if cov._var(st, "pub") == "idle")
    rng = random.Random(7)
    steps = 0
    for _walk in range(100):
        replay = Replay(call_ends=True)
        begun = ""
        here = init
        for k in range(30):
            if here not in succ:
                break
            action, there = rng.choice(succ[here])
            u, v = graph.states[here], graph.states[there]
            raw = _event(u, action, v)
            assert raw is not None, action
            event = event_from_dict({"clock": k + 1, "sub": 1, "thread": 1, **raw}, k + 1)
            why = replay.step(event)
            assert why is None, f"{action}: {why}"
            if raw["sig"].startswith("begin_"):
                begun = raw["sig"]
            mine = cov.abstract_replay(replay.state(1), begun, bounds)
            assert mine == cov.abstract_tlc(v, bounds), (action, raw)
            assert cov.action_of(raw["sig"]) == action
            here = there
            steps += 1
    assert steps > 500


@needs_tlc
@pytest.mark.timeout(600)
def test_report_on_recorded_traces() -> None:
    graph, bounds = cov.dump_graph("rs_coverage", SPEC_DIR / "models.toml", JAR, 300)
    with open(SPEC_DIR / "models.toml", "rb") as manifest:
        recorded = next(m for m in tomllib.load(manifest)["model"] if m["name"] == "rs_coverage")
    assert len(graph.states) == recorded["states"]  # the dump is the whole graph TLC counted
    model = cov.model_coverage("rs_coverage", graph, bounds)
    design = model.design(cov.DESIGN_RULES)
    assert design.states < model.states
    assert design.edges < model.edges
    assert design.calls_at_once < design.states
    assert model.design([]).states == model.states  # no rule: everything is reachable
    visits = cov.Visits()
    valid = sorted((SPEC_DIR.parent / "tests" / "traces" / "v2" / "valid").glob("*.jsonl"))
    for path in valid:
        cov.visit_trace(path, bounds, visits)
    assert visits.traces == len(valid)
    assert visits.states, "the valid traces visit some abstract states"
    out = io.StringIO()
    met, consistent = cov.report(model, visits, 60.0, out)
    assert consistent
    assert not met  # three small traces do not visit 60% of the states
    text = out.getvalue()
    assert "states visited:" in text
    assert "per action" in text
    for rule in cov.DESIGN_RULES:
        assert rule.name in text
    # a run that visits a state excluded by one rule contradicts that rule only
    rule = cov.DESIGN_RULES[0]
    visits.families[cov.SOURCE][next(iter(model.gone_alone[rule.name]))] += 1
    out = io.StringIO()
    _, consistent = cov.report(model, visits, 60.0, out)
    assert f"{rule.name} [" in out.getvalue()
    assert "CONTRADICTED" in out.getvalue()


def test_hop_families_name_every_source_and_relay() -> None:
    """The sources' hops are the IteratorSubscription and ScalarSubscription ones; the
    relays are every Relay."""
    from reactive_streams import Flow
    from reactive_streams._core.pump import IteratorSubscription, ScalarSubscription
    from reactive_streams.tracing import tracing

    relays = cov.relay_hops()
    assert {"map", "filter", "take", "do_on_next"} <= relays
    assert not relays & cov.SOURCE_HOPS
    for flow in (Flow.range(2), Flow.from_iterable([1]), Flow.just(1), Flow.empty()):
        with tracing() as tracer:
            flow.subscribe(lambda x: None)
        hop = tracer.events[0]["hop"]
        assert cov.hop_family(hop, relays) == cov.SOURCE, hop
        kinds = {type(s) for s in _subscriptions_of(flow)}
        assert kinds & {IteratorSubscription, ScalarSubscription}, kinds


def _subscriptions_of(flow: object) -> list[object]:
    """The Subscription a plain Subscriber of ``flow`` receives."""
    got: list[object] = []

    class Keep:
        def on_subscribe(self, s: object) -> None:
            got.append(s)

        def on_next(self, item: object) -> None: ...
        def on_error(self, error: BaseException) -> None: ...
        def on_complete(self) -> None: ...

    flow.subscribe(Keep())  # type: ignore[attr-defined]
    return got
