"""Tests of spec/tlc.py: the TLC output parser on captured TLC 2.15 output, and one real run."""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import spec_scripts
from reactive_streams.trace.format import Event
from reactive_streams.trace.model import replay
from reactive_streams.trace.to_tla import (
    CAUSE_CODES,
    EVENT_CODES,
    Prepared,
    close_calls,
    relabel,
    render_module,
    renumber,
    split_subscriptions,
)
from spec_scripts import JAR, SPEC_DIR

tlc = spec_scripts.load("tlc", "tlc_runner")

# Trimmed from real TLC 2.15 runs of spec/ReactiveStreams.tla.
PASS_OUTPUT = """\
TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)
Starting... (2026-11-22 03:36:44)
Computing initial states...
Progress(20) at 03:36:47: 15,012 states generated, 3,687 distinct states found, 0 states left.
Model checking completed. No error has been found.
  Estimates of the probability that TLC did not check all reachable states
15012 states generated, 3687 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 20.
Finished in 03s at (2026-11-22 03:36:47)
"""

INVARIANT_OUTPUT = """\
TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)
Error: Invariant Spec101_DeliveredLeqRequestedInv is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
/\\ emitted = <<0>>

State 4: <SendOnNext line 283, col 5 to line 295, col 35 of module ReactiveStreams>
/\\ emitted = <<1>>

4 states generated, 4 distinct states found, 0 states left on queue.
The depth of the complete state graph search is 4.
Finished in 01s at (2026-11-22 03:37:08)
"""

LIVENESS_OUTPUT = """\
TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)
Implied-temporal checking--satisfiability problem has 1 branches.
Progress(20) at 03:37:31: 15,012 states generated, 3,687 distinct states found, 0 states left.
Checking temporal properties for the complete state space with 3687 total distinct states
Error: Temporal properties were violated.

Error: The following behavior constitutes a counter-example:

State 1: <Initial predicate>
/\\ pub = <<"idle">>

State 9: Stuttering
Finished checking temporal properties in 00s at 2026-11-22 03:37:31
Finished in 02s at (2026-11-22 03:37:31)
"""

PARSE_ERROR_OUTPUT = """\
TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)
Parsing file /tmp/Broken.tla
***Parse Error***
Encountered "====" at line 5, column 1 and token "+"

Fatal errors while parsing TLA+ spec in file Broken

Could not parse module Broken from file Broken.tla

Error: Parsing or semantic analysis failed.
Finished in 01s at (2026-11-22 03:39:39)
"""

CONFIG_ERROR_OUTPUT = """\
Error: TLC threw an unexpected exception.
This was probably caused by an error in the spec or model.
See the User Output or TLC Console for clues to what happened.
The exception was a tlc2.tool.ConfigFileException
: TLC found an error in the configuration file at line 7
It was expecting }, but did not find it.
Finished in 00s at (2026-11-22 03:51:44)
"""

PROGRESS_ONLY = (
    "Progress(29) at 2026-11-22 03:40:38: 6,509,768 states generated (6,373,474 s/min), "
    "938,838 distinct states found (907,236 ds/min), 37,177 states left on queue.\n"
)


def _model(expect: str = "pass", violates: str = "") -> object:
    return tlc.Model("m", "ReactiveStreams", "models/m.cfg", ("ci",), expect, violates, 0)


def test_pass_output_is_a_pass_with_its_state_count() -> None:
    out = tlc.parse_output(PASS_OUTPUT, 0)
    assert (out.result, out.violated, out.distinct) == ("pass", "", 3687)
    assert tlc.judge(_model(), out, 0) == (True, "ok")


def test_invariant_violation_names_the_invariant() -> None:
    out = tlc.parse_output(INVARIANT_OUTPUT, tlc.EXIT_SAFETY)
    assert out.result == "violation"
    assert out.violated == "Spec101_DeliveredLeqRequestedInv"
    assert out.distinct == 4
    expected = _model("violation", "Spec101_DeliveredLeqRequestedInv")
    assert tlc.judge(expected, out, tlc.EXIT_SAFETY) == (True, "ok")
    other = _model("violation", "Spec107_NothingAfterTerminalInv")
    assert tlc.judge(other, out, tlc.EXIT_SAFETY)[0] is False
    # a pass model that violates is a mismatch
    assert tlc.judge(_model(), out, tlc.EXIT_SAFETY)[0] is False
    # the right name with the wrong exit status is a mismatch too
    assert tlc.judge(expected, out, 1)[0] is False


def test_liveness_violation_takes_the_single_property_of_the_cfg() -> None:
    out = tlc.parse_output(LIVENESS_OUTPUT, tlc.EXIT_LIVENESS, ["Spec108_CancelStopsProp"])
    assert (out.result, out.violated) == ("violation", "Spec108_CancelStopsProp")
    model = _model("violation", "Spec108_CancelStopsProp")
    assert tlc.judge(model, out, tlc.EXIT_LIVENESS) == (True, "ok")


def test_liveness_violation_with_several_properties_is_unnamed() -> None:
    props = ["Spec105_CompletesProp", "Spec108_CancelStopsProp"]
    out = tlc.parse_output(LIVENESS_OUTPUT, tlc.EXIT_LIVENESS, props)
    assert (out.result, out.violated) == ("violation", "")
    model = _model("violation", "Spec108_CancelStopsProp")
    assert tlc.judge(model, out, tlc.EXIT_LIVENESS)[0] is False


def test_parse_error_is_an_error_for_every_expectation() -> None:
    out = tlc.parse_output(PARSE_ERROR_OUTPUT, 150)
    assert out.result == "error"
    assert "Parsing or semantic analysis failed" in out.detail
    assert tlc.judge(_model(), out, 150)[0] is False
    assert tlc.judge(_model("violation", "TypeOK"), out, 150)[0] is False


def test_config_error_reports_the_reason() -> None:
    out = tlc.parse_output(CONFIG_ERROR_OUTPUT, 255)
    assert out.result == "error"
    assert "ConfigFileException" in out.detail
    assert "configuration file at line 7" in out.detail


def test_progress_lines_with_rates_give_the_state_count() -> None:
    assert tlc.parse_output(PROGRESS_ONLY, 255).distinct == 938838


def test_cfg_properties_reads_both_spellings() -> None:
    cfg = (
        '\\* comment PROPERTY Nope\nSPECIFICATION Spec\nCONSTANTS\n    Bug = "None"\n'
        "INVARIANT\n    TypeOK\nPROPERTIES\n    AProp\n    BProp\nPROPERTY CProp\n"
    )
    assert tlc.cfg_properties(cfg) == ["AProp", "BProp", "CProp"]


MANIFEST = tlc.load_manifest(SPEC_DIR / "models.toml")


def test_manifest_models_exist_and_must_fail_ones_name_one_target() -> None:
    assert any("ci" in m.sets for m in MANIFEST.models)
    for m in MANIFEST.models:
        assert (SPEC_DIR / f"{tlc.tla_module(m, MANIFEST)}.tla").is_file(), m.name
        text = tlc.cfg_text(m, MANIFEST)
        if m.expect == "violation":
            assert m.violates, m.name
            assert m.violates in text, m.name
            if m.violates.endswith("Prop"):
                assert tlc.cfg_properties(text) == [m.violates], m.name


def test_rendered_cfg_checks_every_invariant_and_property_of_the_spec() -> None:
    model = MANIFEST.model("rs_async_live")
    text = tlc.render_cfg(model, MANIFEST.specs)
    spec = MANIFEST.specs["ReactiveStreams"]
    assert "SPECIFICATION MCSpec" in text
    assert "    Threads = {1}" in text
    assert "    Sync = FALSE" in text
    for name in (*spec.invariants, *spec.properties):
        assert f"    {name}\n" in text
    assert tlc.cfg_properties(text) == list(spec.properties)
    mutated = tlc.render_cfg(model, MANIFEST.specs, {"SendOnNext": "Mut_SendOnNextSkipsDemand"})
    assert "    SendOnNext <- Mut_SendOnNextSkipsDemand\n" in mutated


def test_every_spec_invariant_and_property_is_checked_by_the_manifest() -> None:
    # Each Inv/Prop the normative spec defines is in [spec.ReactiveStreams].
    text = (SPEC_DIR / "ReactiveStreams.tla").read_text()
    defined = set(re.findall(r"^(\w+(?:Inv|Prop)|TypeOK)\s*==", text, re.MULTILINE))
    spec = MANIFEST.specs["ReactiveStreams"]
    assert defined == set(spec.invariants) | set(spec.properties)


def test_normative_specs_carry_no_mutation_switches() -> None:
    for name in ("ReactiveStreams.tla", "Multicast.tla"):
        text = (SPEC_DIR / name).read_text()
        assert "Bug" not in text, name
        assert "Mut_" not in text, name


def test_mutations_name_operators_of_their_mc_module_and_a_fit_kill_model() -> None:
    assert len(MANIFEST.mutations) >= 25
    for mut in MANIFEST.mutations:
        model = MANIFEST.model(mut.model)
        assert tlc.check_kill_model(model, MANIFEST) == "", mut.name
        module = (SPEC_DIR / f"{tlc.tla_module(model, MANIFEST)}.tla").read_text()
        for op, replacement in mut.override.items():
            assert re.search(rf"^{replacement}\b", module, re.MULTILINE), mut.name
            normative = (SPEC_DIR / f"{model.spec}.tla").read_text()
            assert re.search(rf"^{op}\b", normative, re.MULTILINE), mut.name


# Spec operators no mutation can be the target of, with the reason (issue 27.4).
UNTARGETED = {
    "TraceVerdictInv": "TraceReactiveStreams.tla prints TLC's verdict on a trace with it "
    "(PrintT); it is never FALSE, there is nothing to break",
    "SameInvariantsInv": "TraceReactiveStreams.tla's check that its restated invariants "
    "equal ReactiveStreams.tla's (tests/trace/test_trace_spec_refines.py): it is broken "
    "by editing the trace spec, not by a defect of the protocol",
}


def _spec_invariants_and_properties() -> set[str]:
    return {
        name
        for path in SPEC_DIR.glob("*.tla")
        for name in re.findall(r"^(\w+(?:Inv|Prop))\s*==", path.read_text(), re.MULTILINE)
    }


def test_every_spec_invariant_and_property_is_the_target_of_a_mutation() -> None:
    # A target: what a mutation says catches it, or what a must-fail protocol variant
    # (a hand-written SparkSink model) violates. tlc.py fails a mutation caught by another.
    targets = {m.catches for m in MANIFEST.mutations}
    targets |= {m.violates for m in MANIFEST.models if m.cfg and m.expect == "violation"}
    defined = _spec_invariants_and_properties()
    assert set(UNTARGETED) <= defined
    assert sorted(defined - targets - set(UNTARGETED)) == [], "no mutation targets these"


def test_every_mutation_names_a_catch_its_model_checks() -> None:
    for mut in MANIFEST.mutations:
        model = MANIFEST.model(mut.model)
        if mut.equivalent:
            assert not mut.catches, mut.name
        elif model.expect == "violation":
            assert mut.catches == model.violates, mut.name
        else:
            invs, props = tlc.checked(model, MANIFEST.specs)
            assert mut.catches in {*invs, *props, "deadlock"}, mut.name


def test_a_mutation_without_a_catch_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "models.toml"
    manifest.write_text(
        '[[model]]\nname = "a"\nspec = "S"\ncfg = "a.cfg"\n\n'
        '[[mutation]]\nname = "m"\nmodel = "a"\noverride = { X = "Mut_X" }\n'
    )
    with pytest.raises(tlc.ManifestError, match="catches"):
        tlc.load_manifest(manifest)


def test_a_mutation_caught_by_another_than_its_target_is_off_target() -> None:
    mut = tlc.Mutation(
        "m", "1.1", "what", "w", {"X": "Mut_X"}, catches="Spec101_DeliveredLeqRequestedInv"
    )
    assert tlc.off_target(mut, "Spec101_DeliveredLeqRequestedInv") == ""
    assert "not by its target" in tlc.off_target(mut, "Spec308_RequestAddsDemandInv")
    assert "not by its target" in tlc.off_target(mut, "a temporal property")
    witness = tlc.Mutation("m", "3.3", "what", "w", {"X": "Mut_X"}, catches="SomeWitness")
    assert tlc.off_target(witness, "SomeWitness unreachable") == ""


def _run_mutation(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    outputs: list[tuple[str, int]],
) -> tuple[int, str, list[str]]:
    """tlc.main on one mutation with TLC faked: each run prints the next of `outputs`.
    Returns the exit status, what main printed and the cfg of each run."""
    cfgs: list[str] = []

    def run(cmd: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        cfgs.append(Path(cmd[cmd.index("-config") + 1]).read_text())
        text, code = outputs[len(cfgs) - 1]
        return subprocess.CompletedProcess(cmd, code, text, "")

    jar = tmp_path / "tla2tools.jar"
    jar.write_text("")
    monkeypatch.setattr(tlc.subprocess, "run", run)
    status = tlc.main(["--jar", str(jar), "--jobs", "1", "--mutation", name])
    return status, capsys.readouterr().out, cfgs


def _cfg_invariants(cfg: str) -> list[str]:
    body = cfg.split("INVARIANTS\n", 1)[1].split("PROPERTIES", 1)[0]
    return body.split()


def test_an_unnamed_temporal_catch_is_named_by_runs_without_and_with_that_property(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "Spec105_CompletesProp"
    unnamed = (LIVENESS_OUTPUT, tlc.EXIT_LIVENESS)
    passed = (PASS_OUTPUT, 0)

    def mutate(outputs: list[tuple[str, int]]) -> tuple[int, str, list[str]]:
        return _run_mutation(monkeypatch, tmp_path, capsys, "forget_complete", outputs)

    # without the target nothing breaks, with it alone it breaks: caught alone
    status, out, cfgs = mutate([passed, unnamed])
    assert status == 0, out
    assert f"{target} (alone)" in out
    others = tlc.cfg_properties(cfgs[0])
    assert target not in others
    assert others
    assert tlc.cfg_properties(cfgs[1]) == [target]
    assert len(cfgs) == 2
    # another property breaks too, and the target alone as well: caught, not alone
    status, out, cfgs = mutate([unnamed, unnamed])
    assert status == 0, out
    assert target in out
    assert "(alone)" not in out
    assert tlc.cfg_properties(cfgs[1]) == [target]
    # the property alone holds: another one broke, off target
    status, out, _ = mutate([unnamed, passed])
    assert status == 1
    assert f"OFF TARGET (another property, not {target})" in out
    # nothing breaks at all: it survived
    status, out, _ = mutate([passed, passed])
    assert status == 1
    assert "SURVIVED" in out
    # an invariant of the rest breaks: caught by it, off target, no second run
    inv = (INVARIANT_OUTPUT, tlc.EXIT_SAFETY)
    status, out, cfgs = mutate([inv])
    assert status == 1
    assert "OFF TARGET (Spec101_DeliveredLeqRequestedInv" in out
    assert len(cfgs) == 1


def test_only_a_property_with_a_leads_to_or_eventually_takes_the_temporal_path() -> None:
    live = MANIFEST.model("rs_async_live")
    assert tlc.is_temporal("Spec105_CompletesProp", live, MANIFEST)
    assert tlc.is_temporal("Spec308_DemandServedProp", live, MANIFEST)  # []<>
    assert not tlc.is_temporal("Spec213_FaultCancelOnceProp", live, MANIFEST)  # [][A]_v
    assert not tlc.is_temporal("Spec101_DeliveredLeqRequestedInv", live, MANIFEST)
    safety = MANIFEST.model("rs_async_safety")  # checks no property
    assert not tlc.is_temporal("Spec105_CompletesProp", safety, MANIFEST)


def test_an_invariant_target_is_checked_last_and_its_catch_is_then_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    caught = (INVARIANT_OUTPUT, tlc.EXIT_SAFETY)  # names Spec101_DeliveredLeqRequestedInv
    status, out, cfgs = _run_mutation(monkeypatch, tmp_path, capsys, "extra_on_next", [caught])
    assert status == 0, out
    assert "Spec101_DeliveredLeqRequestedInv (alone)" in out
    assert _cfg_invariants(cfgs[0])[-1] == "Spec101_DeliveredLeqRequestedInv"


def test_an_invariant_broken_before_the_target_is_run_again_in_the_specs_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = "Spec101_DeliveredLeqRequestedInv"
    other = INVARIANT_OUTPUT.replace(first, "Spec308_RequestAddsDemandInv")
    target = INVARIANT_OUTPUT.replace(first, "Spec317_DemandSaturatesInv")
    outputs = [(other, tlc.EXIT_SAFETY), (target, tlc.EXIT_SAFETY)]
    status, out, cfgs = _run_mutation(monkeypatch, tmp_path, capsys, "demand_uncapped", outputs)
    assert status == 0, out
    assert "Spec317_DemandSaturatesInv" in out
    assert "(alone)" not in out
    spec_order = list(MANIFEST.specs["ReactiveStreams"].invariants)
    assert _cfg_invariants(cfgs[1]) == spec_order


def test_a_property_no_mutation_catches_alone_is_reported() -> None:
    chosen = [m for m in MANIFEST.mutations if MANIFEST.model(m.model).spec == "Multicast"]
    names = tlc.guarded_names(MANIFEST, {"Multicast"})
    assert ("Multicast", "PublishTerminatesProp") in names
    assert ("Multicast", "TypeOK") not in names
    sole = set(names) - {("Multicast", "PublishTerminatesProp")}
    assert tlc.unguarded(MANIFEST, chosen, sole) == ["Multicast.PublishTerminatesProp"]
    assert tlc.unguarded(MANIFEST, chosen, set(names)) == []
    # one spec's sole catch does not stand for a same-named property of another
    rs = ("ReactiveStreams", "Spec101_DeliveredLeqRequestedInv")
    assert rs not in tlc.guarded_names(MANIFEST, {"ReactiveStreams"})  # implied
    assert ("Multicast", "Spec101_DeliveredLeqRequestedInv") in names


def test_an_implied_property_says_why_and_is_checked(tmp_path: Path) -> None:
    for spec in MANIFEST.specs.values():
        for name, why in spec.implied.items():
            assert name in {*spec.invariants, *spec.properties}
            assert why, name
    manifest = tmp_path / "models.toml"
    manifest.write_text('[spec.S]\ninvariants = ["AInv"]\nimplied = { BInv = "A" }\n')
    with pytest.raises(tlc.ManifestError, match="implied names unchecked"):
        tlc.load_manifest(manifest)


def test_every_invariant_and_property_is_the_target_of_a_ci_mutation() -> None:
    # what the kill table of `make check` must see caught alone (tlc.py fails the rest)
    ci = [m for m in MANIFEST.mutations if "ci" in MANIFEST.mutation_sets(m)]
    targets = {(MANIFEST.model(m.model).spec, m.catches) for m in ci}
    variants = {
        (m.spec, m.violates)
        for m in MANIFEST.models
        if m.cfg and m.expect == "violation" and "ci" in m.sets
    }
    names = tlc.guarded_names(MANIFEST, set(MANIFEST.specs))
    assert [n for n in names if n not in targets | variants] == []


def test_a_located_invariant_is_the_property_whose_always_conjunct_it_is() -> None:
    # TLC checks a property's [](state predicate) conjunct as an invariant and names it
    # by its place in the module: the runner names the property that holds that place.
    lines = (SPEC_DIR / "ReactiveStreams.tla").read_text().splitlines()
    at = next(i for i, ln in enumerate(lines, 1) if "[](\\A s \\in Subs : ~callRaised[s])" in ln)
    text = (
        f"Error: Invariant line {at}, col 8 to line {at}, col 41 of module ReactiveStreams"
        " is violated.\n"
    )
    props = ["Spec308_DemandServedProp", "Spec315_CallsReturnProp"]
    outcome = tlc.parse_output(text, tlc.EXIT_SAFETY, props)
    assert (outcome.result, outcome.violated) == ("violation", "Spec315_CallsReturnProp")
    # a place outside the checked properties names none
    assert tlc.parse_output(text, tlc.EXIT_SAFETY, props[:1]).violated == ""


def test_a_mutation_runs_in_its_own_sets_or_its_models() -> None:
    # a costly row may run in "deep" only; its kill model stays a ci model
    deep = [m for m in MANIFEST.mutations if m.sets]
    assert deep, "no mutation names its own sets"
    for mut in deep:
        assert "ci" not in mut.sets, mut.name
        assert MANIFEST.mutation_sets(mut) == mut.sets
        assert tlc.check_kill_model(MANIFEST.model(mut.model), MANIFEST) == "", mut.name
    plain = next(m for m in MANIFEST.mutations if not m.sets)
    assert MANIFEST.mutation_sets(plain) == MANIFEST.model(plain.model).sets


def test_a_model_without_coverage_is_run_without_it(tmp_path: Path) -> None:
    manifest = tmp_path / "models.toml"
    manifest.write_text(
        '[spec.S]\nmodule = "MCS"\n\n[[model]]\nname = "big"\nspec = "S"\ncoverage = false\n\n'
        '[[model]]\nname = "small"\nspec = "S"\n'
    )
    loaded = tlc.load_manifest(manifest)
    assert [m.coverage for m in loaded.models] == [False, True]
    assert not MANIFEST.model("rs_async_safety").coverage


def test_deadlock_checking_is_off_only_with_a_reason(tmp_path: Path) -> None:
    for m in MANIFEST.models:
        assert not m.deadlock or m.deadlock_reason, m.name
    manifest = tmp_path / "models.toml"
    manifest.write_text('[[model]]\nname = "a"\nspec = "S"\ncfg = "a.cfg"\ndeadlock = true\n')
    with pytest.raises(tlc.ManifestError, match="deadlock_reason"):
        tlc.load_manifest(manifest)


def test_coverage_report_is_parsed() -> None:
    text = (
        "The coverage statistics at 2026-11-23 18:34:22\n"
        "<Init line 68, col 1 to line 68, col 4 of module Multicast>: 1:1\n"
        "  line 69, col 5 to line 74, col 53 of module Multicast: 1\n"
        "<Leave line 97, col 1 to line 97, col 8 of module Multicast>: 3707:86150\n"
        "<Drop line 120, col 1 to line 120, col 4 of module Multicast>: 0:0\n"
    )
    assert tlc.parse_coverage(text) == {"Init": 1, "Leave": 86150, "Drop": 0}


def test_record_states_rewrites_only_the_named_model(tmp_path: Path) -> None:
    manifest = tmp_path / "models.toml"
    manifest.write_text(
        '[[model]]\nname = "a"\nspec = "S"\ncfg = "a.cfg"\nstates = 10\n\n'
        '[[model]]\nname = "b"\nspec = "S"\ncfg = "b.cfg"\nstates = 20\n'
    )
    tlc.record_states(manifest, {"b": 25})
    states = {m.name: m.states for m in tlc.load_manifest(manifest).models}
    assert states == {"a": 10, "b": 25}


def _witness(states: int = 0) -> object:
    return tlc.Model("w", "ReactiveStreams", "", ("ci",), "violation", "SomeWitness", states)


def _mutation(equivalent: str = "") -> object:
    return tlc.Mutation("m", "3.3", "what", "w", {"CanBegin": "Mut_X"}, equivalent)


def test_a_stricter_spec_that_passes_a_witness_model_is_caught() -> None:
    # The witness is a legal situation; a mutation that makes it unreachable is stricter.
    passed = tlc.parse_output(PASS_OUTPUT, 0)
    verdict = tlc.mutation_verdict(_mutation(), _witness(), passed, 0)
    assert verdict == "SomeWitness unreachable"
    still = tlc.Outcome("violation", "SomeWitness", 12, "Error: Invariant SomeWitness ...")
    assert tlc.mutation_verdict(_mutation(), _witness(), still, tlc.EXIT_SAFETY) == ""
    deadlock = tlc.Outcome("deadlock", "", 7, "Error: Deadlock reached.")
    assert tlc.mutation_verdict(_mutation(), _witness(), deadlock, tlc.EXIT_DEADLOCK) == "deadlock"
    crashed = tlc.Outcome("error", "", None, "Error: parse")
    assert tlc.mutation_verdict(_mutation(), _witness(), crashed, 150) == ""


def test_a_witness_model_is_a_fit_kill_model_and_a_passing_one_still_must_check_all() -> None:
    witness = MANIFEST.model("rs_witness_range_nesting")
    assert witness.expect == "violation"
    assert tlc.check_kill_model(witness, MANIFEST) == ""
    safety = MANIFEST.model("rs_async_safety")  # properties = false
    assert tlc.check_kill_model(safety, MANIFEST) == "does not check every invariant and property"


def test_an_equivalent_mutation_must_pass_with_the_recorded_state_count() -> None:
    passing = tlc.Outcome("pass", "", 2144, "")
    model = tlc.Model("k", "ReactiveStreams", "", ("ci",), "pass", "", 2144)
    verdict = tlc.mutation_verdict(_mutation("same value"), model, passing, 0)
    assert verdict.startswith("equivalent (2,144 states")
    other = tlc.Outcome("pass", "", 2145, "")
    assert tlc.mutation_verdict(_mutation("same value"), model, other, 0) == ""
    caught = tlc.Outcome("violation", "TypeOK", 3, "Error: Invariant TypeOK is violated.")
    assert tlc.mutation_verdict(_mutation("same value"), model, caught, tlc.EXIT_SAFETY) == ""


def test_every_stricter_mutation_is_judged_by_a_witness_model() -> None:
    names = {m.name for m in MANIFEST.mutations if MANIFEST.model(m.model).expect == "violation"}
    assert {"depth_counts_every_signal", "no_on_next_after_cancel_call"} <= names


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")
@pytest.mark.skipif(not JAR.is_file(), reason="TLC jar missing: run tools/bootstrap.sh")
def test_real_tlc_run_of_a_stricter_mutation_against_its_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = tlc.main(
        ["--jar", str(JAR), "--workers", "1", "--mutation", "depth_counts_every_signal"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "RangePublisherNestingWitness unreachable" in out
    assert "1/1 mutations caught" in out


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")
@pytest.mark.skipif(not JAR.is_file(), reason="TLC jar missing: run tools/bootstrap.sh")
def test_real_tlc_run_of_a_mutation(capsys: pytest.CaptureFixture[str]) -> None:
    # An extra onNext is caught after a handful of states, all invariants enabled.
    status = tlc.main(["--jar", str(JAR), "--workers", "1", "--mutation", "extra_on_next"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Spec101_DeliveredLeqRequestedInv" in out
    assert "1/1 mutations caught" in out


STATES_DIR_CLASH = """\
TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)
Exception in thread "main" util.Assert$TLCRuntimeException: TLC writes its files to a \
directory whose name is generated from the current time.
This directory should be states/26-11-26-09-00-00, but that directory already exists.
Trying to run TLC again will probably fix this problem.
"""


def test_a_states_directory_clash_is_run_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen in CI: one mutation's TLC run failed only because its clock-named states
    # directory "already exists"; the verdict must come from a run that checked the model.
    outputs = [STATES_DIR_CLASH, STATES_DIR_CLASH, PASS_OUTPUT]
    calls: list[list[str]] = []

    def fake_run(cmd: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        text = outputs[len(calls) - 1]
        return subprocess.CompletedProcess(cmd, 0 if text is PASS_OUTPUT else 255, text, "")

    monkeypatch.setattr(tlc.subprocess, "run", fake_run)
    manifest = tlc.load_manifest(tlc.DEFAULT_MANIFEST)
    outcome, code, _ = tlc.run_tlc(manifest.model("rs_async_live"), manifest, JAR, 1, 60, None)
    assert (outcome.result, code, len(calls)) == ("pass", 0, 3)


# --- Trace validation of re-entrance (spec/TraceReactiveStreams.tla) ----------------------


def needs_tlc(fn: Callable[..., None]) -> Callable[..., None]:
    """Run only where java and the TLC jar exist; bounded in time."""
    fn = pytest.mark.timeout(180)(fn)
    fn = pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")(fn)
    marked: Callable[..., None] = pytest.mark.skipif(not JAR.is_file(), reason="no TLC jar")(fn)
    return marked


def _events(rows: list[tuple[str, int | None, int]]) -> list[Event]:
    """(sig, n or seq, thread) rows of one Subscription as trace events."""
    out = []
    for k, (sig, arg, thread) in enumerate(rows, start=1):
        n = arg if sig in ("request", "recv_request") else None
        seq = arg if sig in ("send_on_next", "begin_on_next", "end_on_next") else None
        out.append(Event(k, k, 7, sig, n=n, seq=seq, thread=thread))
    return out


def _tlc_verdicts(
    traces: list[list[Event]], sync: bool, tmp_path: Path, depth: int = 1
) -> list[tuple[str, int]]:
    """One TLC run of TraceReactiveStreams over `traces`: (verdict, event) per trace."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name in ("ReactiveStreams.tla", "TraceReactiveStreams.tla", "TraceReactiveStreams.cfg"):
        shutil.copy(SPEC_DIR / name, tmp_path / name)
    batch = [Prepared(renumber(t), quiescent=True) for t in traces]
    (tmp_path / "TraceData.tla").write_text(render_module(batch, sync, depth=depth))
    cmd = ["java", f"-Djava.io.tmpdir={tmp_path}", "-cp", str(JAR), "tlc2.TLC", "-workers", "1"]
    cmd += ["-deadlock"]
    cmd += ["-metadir", str(tmp_path / "states"), "-config", "TraceReactiveStreams.cfg"]
    proc = subprocess.run(
        [*cmd, "TraceReactiveStreams"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    found = re.findall(r'<<"TRACE", (\d+), "(\w+)", (\d+)>>', proc.stdout)
    assert len(found) == len(traces), proc.stdout[-3000:]
    verdicts = {int(t): (v, int(k)) for t, v, k in found}
    return [verdicts[t] for t in range(1, len(traces) + 1)]


# RangePublisher (reactive-streams-jvm examples): onSubscribe calls request(2), which
# emits both elements inline on the same thread; the second onNext's request(1) only
# adds demand (the drain loop is already running), then the source completes.
RANGE_REENTRANT: list[tuple[str, int | None, int]] = [
    ("subscribe", None, 1),
    ("send_on_subscribe", None, 1),
    ("begin_on_subscribe", None, 1),
    ("request", 2, 1),
    ("recv_request", 2, 1),
    ("send_on_next", 1, 1),
    ("begin_on_next", 1, 1),
    ("end_on_next", 1, 1),
    ("send_on_next", 2, 1),
    ("begin_on_next", 2, 1),
    ("request", 1, 1),
    ("recv_request", 1, 1),
    ("end_request", None, 1),
    ("end_on_next", 2, 1),
    ("send_on_complete", None, 1),
    ("begin_on_complete", None, 1),
    ("end_on_complete", None, 1),
    ("end_request", None, 1),
    ("end_on_subscribe", None, 1),
]

# onNext(1) -> request(1) -> onNext(2) inline: two onNext frames open on one thread.
TOO_DEEP: list[tuple[str, int | None, int]] = [
    ("subscribe", None, 1),
    ("send_on_subscribe", None, 1),
    ("begin_on_subscribe", None, 1),
    ("request", 1, 1),
    ("recv_request", 1, 1),
    ("send_on_next", 1, 1),
    ("begin_on_next", 1, 1),
    ("request", 1, 1),
    ("recv_request", 1, 1),
    ("send_on_next", 2, 1),  # event 10
    ("begin_on_next", 2, 1),  # event 11: depth 2
    ("end_on_next", 2, 1),
    ("end_request", None, 1),
    ("end_on_next", 1, 1),
    ("end_request", None, 1),
    ("end_on_subscribe", None, 1),
]

# request(1) from onSubscribe returns; a second thread delivers onNext while
# onSubscribe still runs on the first: concurrent signals (1.3).
SECOND_THREAD: list[tuple[str, int | None, int]] = [
    ("subscribe", None, 1),
    ("send_on_subscribe", None, 1),
    ("begin_on_subscribe", None, 1),
    ("request", 1, 1),
    ("end_request", None, 1),
    ("recv_request", 1, 2),
    ("send_on_next", 1, 2),  # event 7
    ("begin_on_next", 1, 2),  # event 8
    ("end_on_next", 1, 2),
    ("end_on_subscribe", None, 1),
]


@needs_tlc
def test_tlc_accepts_range_publisher_reentrance_and_rejects_depth_and_threads(
    tmp_path: Path,
) -> None:
    for sync in (True, False):
        verdicts = _tlc_verdicts(
            [_events(RANGE_REENTRANT), _events(TOO_DEEP), _events(SECOND_THREAD)],
            sync,
            tmp_path / str(sync),
        )
        assert verdicts[0] == ("accepted", len(RANGE_REENTRANT)), sync
        # rule 3.3: the onNext at depth 2 (sync: not even committed where it cannot begin)
        assert verdicts[1] == ("stuck", 10 if sync else 11), sync
        assert verdicts[2] == ("stuck", 7 if sync else 8), sync  # rule 1.3: thread 2


@needs_tlc
def test_tlc_depth_bound_is_a_parameter(tmp_path: Path) -> None:
    verdicts = _tlc_verdicts([_events(TOO_DEEP)], True, tmp_path, depth=2)
    assert verdicts == [("accepted", len(TOO_DEEP))]


@needs_tlc
def test_tlc_v1_calls_return_at_once(tmp_path: Path) -> None:
    # Without end_request (format v1) the request returns at once, so the inline
    # onNext of RangePublisher is no longer nested in it: onNext inside onSubscribe.
    v1 = [row for row in RANGE_REENTRANT if row[0] != "end_request"]
    prepared = renumber(_events(v1))
    sigs = [e.sig for e in prepared]
    assert sigs[3:5] == ["request", "end_request"]
    assert sigs.count("end_request") == 2
    assert _tlc_verdicts([_events(v1)], False, tmp_path) == [("stuck", 8)]


# onSubscribe -> request(1) -> onNext(1) inline, and onNext raises: the implementation
# cancels for the Subscriber where it caught the exception (rule 2.13), which is inside
# the request() still open on that thread. Legal: rule 2.7 binds the Subscriber's own
# calls (the spec's CanFaultCancel).
FAULT_CANCEL_IN_REQUEST: list[tuple[str, int | None, int]] = [
    ("subscribe", None, 1),
    ("send_on_subscribe", None, 1),
    ("begin_on_subscribe", None, 1),
    ("request", 1, 1),  # event 4
    ("recv_request", 1, 1),
    ("send_on_next", 1, 1),
    ("begin_on_next", 1, 1),
    ("end_on_next", 1, 1),  # event 8: raised
    ("cancel", None, 1),  # event 9: directly inside request (event 4)
    ("recv_cancel", None, 1),
    ("end_cancel", None, 1),
    ("end_request", None, 1),
    ("end_on_subscribe", None, 1),
]


def _fault_cancel_traces() -> list[list[Event]]:
    """The fault cancel, then three variants whose last cancel breaks rule 2.7."""

    def raising(rows: list[tuple[str, int | None, int]]) -> list[Event]:
        return [dataclasses.replace(e, raised=True) if e.index == 8 else e for e in _events(rows)]

    legal = raising(FAULT_CANCEL_IN_REQUEST)
    # no on* method raised: a cancel directly inside request() is no Subscriber's call
    no_fault = _events(FAULT_CANCEL_IN_REQUEST)
    # the Subscriber cancelled inside onNext, then raised: already cancelled, so the
    # cancel at event 12 is no first cancel after the fault
    cancelled_first = [
        *FAULT_CANCEL_IN_REQUEST[:7],
        ("cancel", None, 1),
        ("recv_cancel", None, 1),
        ("end_cancel", None, 1),
        ("end_on_next", 1, 1),  # event 11: raised
        ("cancel", None, 1),  # event 12
        ("end_cancel", None, 1),
        ("end_request", None, 1),
        ("end_on_subscribe", None, 1),
    ]
    again = [
        dataclasses.replace(e, raised=True) if e.index == 11 else e
        for e in _events(cancelled_first)
    ]
    # the fault cancel on thread 2 while request() is open on thread 1 (2.7 across threads)
    other_thread = raising(
        [
            (sig, arg, 2 if k in (9, 10, 11) else 1)
            for k, (sig, arg, _) in enumerate(FAULT_CANCEL_IN_REQUEST, start=1)
        ]
    )
    return [legal, no_fault, again, other_thread]


def test_replay_accepts_the_fault_cancel_inside_request_and_nothing_more() -> None:
    legal, no_fault, again, other_thread = _fault_cancel_traces()
    for sync in (True, False):
        model, found = replay(legal, sync, call_ends=True)
        assert found is None, (sync, str(found))
        assert model.unfinished() is None, sync
        assert model.state(7).pub == "cancelled"
        for events, index, why in (
            (no_fault, 9, "cancel on thread 1 directly inside request (event 4)"),
            (again, 12, "cancel on thread 1 directly inside request (event 4)"),
            (other_thread, 9, "while request (event 4) has not returned on thread 1"),
        ):
            _, found = replay(events, sync, call_ends=True)
            assert found is not None, (sync, index)
            assert (found.index, found.sig, found.rule()) == (index, "cancel", "2.7"), str(found)
            assert why in found.message, found.message


@needs_tlc
def test_tlc_accepts_the_fault_cancel_inside_request_and_nothing_more(tmp_path: Path) -> None:
    traces = _fault_cancel_traces()
    for sync in (True, False):
        verdicts = _tlc_verdicts(traces, sync, tmp_path / str(sync))
        assert verdicts[0] == ("accepted", len(FAULT_CANCEL_IN_REQUEST)), sync
        assert verdicts[1:] == [("stuck", 9), ("stuck", 12), ("stuck", 9)], sync


def test_renumber_numbers_threads_and_closes_v1_calls() -> None:
    events = [
        Event(1, 1, 40, "subscribe", thread=900),
        Event(2, 2, 40, "send_on_subscribe", thread=901),
        Event(3, 3, 40, "begin_on_subscribe", thread=901),
        Event(4, 4, 40, "cancel", thread=901),
        Event(5, 5, 40, "request", n=1, thread=900),
        Event(6, 6, 40, "end_request", thread=900),
        Event(7, 7, 40, "end_on_subscribe", thread=901),
    ]
    out = renumber(events)
    assert [(e.sig, e.thread, e.sub) for e in out] == [
        ("subscribe", 1, 1),
        ("send_on_subscribe", 2, 1),
        ("begin_on_subscribe", 2, 1),
        ("cancel", 2, 1),
        ("end_cancel", 2, 1),  # synthetic: v1 cancel returned at once
        ("request", 1, 1),
        ("end_request", 1, 1),
        ("end_on_subscribe", 2, 1),
    ]
    assert out[4].index == 4  # the synthetic event points at its call
    module = render_module([Prepared(out, True)], sync=False)
    assert "TraceThreads == 1..2" in module
    assert "TraceDepth == 1" in module
    code = EVENT_CODES.index("end_cancel") + 1
    assert f"<<{code},0,2>>" in module  # end_cancel, not raised, thread 2, sub 1


def test_event_codes_are_the_specs_event_names() -> None:
    text = (SPEC_DIR / "TraceReactiveStreams.tla").read_text()
    names = re.search(r"^EventNames ==\s*<<(.*?)>>", text, re.MULTILINE | re.DOTALL)
    assert names is not None
    assert tuple(re.findall(r'"(\w+)"', names.group(1))) == EVENT_CODES
    causes = re.search(r"^Causes == <<(.*?)>>", text, re.MULTILINE)
    assert causes is not None
    assert tuple(re.findall(r'"(\w+)"', causes.group(1))) == CAUSE_CODES


def test_one_signal_vocabulary() -> None:
    """The emitter's vocabulary, the reader's and the TLC codes list the same signals
    (the codes are ordered as the spec's EventNames; the sets must not drift apart)."""
    from reactive_streams import tracing
    from reactive_streams.trace.format import FULL_SIGNALS

    assert tracing.SIGNALS == FULL_SIGNALS
    assert set(EVENT_CODES) == FULL_SIGNALS
    assert len(EVENT_CODES) == len(FULL_SIGNALS)  # no code listed twice


def _close_calls_by_scanning(events: list[Event]) -> list[str]:
    """close_calls as first written: scan forward from each call for its end."""
    ends = {"request": "end_request", "cancel": "end_cancel"}
    out = []
    for k, call in enumerate(events):
        out.append(call.sig)
        if call.sig not in ends:
            continue
        depth, found = 0, False
        for e in events[k + 1 :]:
            if (e.sub, e.thread) != (call.sub, call.thread):
                continue
            if e.sig == call.sig:
                depth += 1
            elif e.sig == ends[call.sig]:
                if depth == 0:
                    found = True
                    break
                depth -= 1
        if not found:
            out.append(ends[call.sig])
    return out


def test_close_calls_pairs_calls_and_ends_like_brackets() -> None:
    rng = random.Random(12)
    sigs = ["request", "end_request", "cancel", "end_cancel", "begin_on_next"]
    for _ in range(300):
        events = [
            Event(k, k, rng.choice((1, 2)), rng.choice(sigs), thread=rng.choice((1, 2)))
            for k in range(1, rng.randint(1, 14))
        ]
        assert [e.sig for e in close_calls(events)] == _close_calls_by_scanning(events)


def test_relabel_is_replace_of_sub_and_thread() -> None:
    e = Event(3, 9, 5, "send_on_error", 2, 4, "x", True, 8, "ValueError", "invalid", "map")
    assert relabel(e, 1, 2) == dataclasses.replace(e, sub=1, thread=2)
    assert len(dataclasses.fields(Event)) == 12  # relabel passes all twelve: add new ones there


def test_split_subscriptions_keeps_positions_and_numbers_threads_per_part() -> None:
    events = [
        Event(1, 1, 1, "subscribe", thread=1),
        Event(2, 2, 2, "subscribe", thread=3),
        Event(3, 3, 1, "send_on_subscribe", thread=3),
        Event(4, 4, 2, "send_on_subscribe", thread=3),
    ]
    parts = split_subscriptions(Prepared(tuple(events), True))
    assert [p.positions for p in parts] == [(0, 2), (1, 3)]
    assert [[(e.sub, e.thread) for e in p.prepared.events] for p in parts] == [
        [(1, 1), (1, 2)],
        [(1, 1), (1, 1)],
    ]
    assert all(p.prepared.quiescent for p in parts)
    [empty] = split_subscriptions(Prepared((), False))
    assert empty.prepared.events == ()
    assert empty.positions == ()


def test_a_target_is_checked_after_all_but_what_others_imply() -> None:
    model = tlc.target_last(MANIFEST.model("rs_async_live"), MANIFEST, "Spec317_DemandSaturatesInv")
    assert model.invariants is not None
    assert model.invariants[-2:] == (
        "Spec317_DemandSaturatesInv",
        "Spec101_DeliveredLeqRequestedInv",
    )
    assert set(model.invariants) == set(MANIFEST.specs["ReactiveStreams"].invariants)
