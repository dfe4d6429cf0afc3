"""Tests of spec/tlc.py: the TLC output parser on captured TLC 2.15 output, and one real run."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
JAR = SPEC_DIR.parent / ".tools" / "tla2tools.jar"


def _load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tlc_runner", SPEC_DIR / "tlc.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tlc_runner"] = module
    spec.loader.exec_module(module)
    return module


tlc = _load_runner()

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


def test_manifest_models_exist_and_must_fail_ones_name_one_target() -> None:
    models = tlc.load_manifest(SPEC_DIR / "models.toml")
    assert any("ci" in m.sets for m in models)
    for m in models:
        cfg = SPEC_DIR / m.cfg
        assert cfg.is_file(), m.name
        assert (SPEC_DIR / f"{m.spec}.tla").is_file(), m.name
        if m.expect == "violation":
            assert m.violates, m.name
            text = cfg.read_text()
            assert m.violates in text, m.name
            if m.violates.endswith("Prop"):
                assert tlc.cfg_properties(text) == [m.violates], m.name


def test_record_states_rewrites_only_the_named_model(tmp_path: Path) -> None:
    manifest = tmp_path / "models.toml"
    manifest.write_text(
        '[[model]]\nname = "a"\nspec = "S"\ncfg = "a.cfg"\nstates = 10\n\n'
        '[[model]]\nname = "b"\nspec = "S"\ncfg = "b.cfg"\nstates = 20\n'
    )
    tlc.record_states(manifest, {"b": 25})
    states = {m.name: m.states for m in tlc.load_manifest(manifest)}
    assert states == {"a": 10, "b": 25}


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")
@pytest.mark.skipif(not JAR.is_file(), reason="TLC jar missing: run tools/bootstrap.sh")
def test_real_tlc_run_of_a_must_fail_model(capsys: pytest.CaptureFixture[str]) -> None:
    # rs_bug_skip_demand_check stops after a handful of states.
    status = tlc.main(["--jar", str(JAR), "--workers", "1", "rs_bug_skip_demand_check"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "violates Spec101_DeliveredLeqRequestedInv" in out
    assert "1/1 models as expected" in out
