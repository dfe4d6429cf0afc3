"""The rule registry links the spec, the implementation's twins, the kit and the docs.

One registry (``reactive_streams.rules``) names, for every rule, the TLA+ operators
that check it, their Python twins and the kit checks. These tests fail as soon as
one side is renamed or dropped without the others.
"""

from __future__ import annotations

import re
from pathlib import Path

from reactive_streams.rules import BY_ID, RULES, render_markdown, snake_case

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec" / "ReactiveStreams.tla"
TWIN_SOURCES = [
    ROOT / "impl" / "reactive_streams" / "trace" / "invariants.py",
    *sorted((ROOT / "stateful").glob("*.py")),
]


def test_registry_has_the_43_rules_of_sections_1_to_4() -> None:
    counts = {section: 0 for section in "1234"}
    for rule in RULES:
        counts[rule.id.split(".")[0]] += 1
    assert counts == {"1": 11, "2": 13, "3": 17, "4": 2}
    assert len(BY_ID) == 43


def test_rule_codes_follow_the_tck_encoding() -> None:
    assert BY_ID["1.1"].code == "spec101"
    assert BY_ID["3.17"].code == "spec317"
    assert snake_case("Spec101_DeliveredLeqRequestedInv") == "spec101_delivered_leq_requested_inv"


def test_docs_rules_md_is_rendered_from_the_registry() -> None:
    rendered = render_markdown()
    on_disk = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert on_disk == rendered, "docs/rules.md is stale: run `make docs`"


def test_every_tla_name_in_the_registry_is_defined_in_the_spec() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    for rule in RULES:
        for name in rule.tla:
            assert re.search(rf"^{re.escape(name)}\s*==", spec, re.MULTILINE), (
                f"rule {rule.id}: {name} is not defined in spec/ReactiveStreams.tla"
            )
            assert name.startswith(rule.code.capitalize()) or name == "TypeOK", (
                f"rule {rule.id}: {name} does not carry the rule code {rule.code}"
            )


def test_every_rule_tagged_invariant_in_the_spec_is_in_the_registry() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    defined = set(re.findall(r"^(Spec\d{3}_\w+(?:Inv|Prop))\s*==", spec, re.MULTILINE))
    registered = {name for rule in RULES for name in rule.tla}
    assert defined <= registered, (
        f"spec operators missing from the registry: {defined - registered}"
    )


def test_every_tla_invariant_has_a_python_twin_with_the_same_name() -> None:
    twins = "\n".join(path.read_text(encoding="utf-8") for path in TWIN_SOURCES)
    for rule in RULES:
        for name in rule.stateful:
            assert re.search(rf"^\s*def {re.escape(name)}\(", twins, re.MULTILINE), (
                f"rule {rule.id}: no Python twin {name} in reactive_streams.trace or stateful/"
            )


def test_every_kit_check_name_carries_a_registered_rule() -> None:
    from reactive_streams.tck import all_check_names

    for name in all_check_names():
        match = re.match(r"(?:required|optional|stochastic|untested|extra)_spec(\d)(\d\d)_", name)
        assert match, f"kit check {name} does not follow <status>_specXYY_<what>"
        rule_id = f"{match.group(1)}.{int(match.group(2))}"
        assert rule_id in BY_ID, f"kit check {name} cites unknown rule {rule_id}"


def test_every_modelled_rule_has_a_unit_test_or_a_kit_check() -> None:
    from reactive_streams.rules import kit_checks_by_rule

    kit = kit_checks_by_rule()
    test_names = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("tests", "stateful")
        for path in (ROOT / folder).rglob("test_*.py")
    )
    for rule in RULES:
        if not rule.tla:
            continue
        has_test = re.search(rf"def test_{rule.code}_", test_names) is not None
        has_check = any(not name.startswith("untested_") for name in kit[rule.id])
        assert has_test or has_check, f"rule {rule.id} is modelled but neither tested nor checked"
